import Foundation
import SQLiteBindings
import SQLiteToolkit
import Testing

@Suite("Errors")
struct ErrorTests {
    @Test(
        "wrong SQL throws with the error offset pointing at the mistake",
        arguments: [
            ("SELECT * FROM t WHERE x = = 1", 26, "="),
            ("SELECT nope FROM t", 7, "nope"),
            ("SELECT x FROM t WHERE x IN (1, 2,)", 33, ")"),
            ("SELEKT 1", 0, "SELEKT"),
            ("SELECT 'é', nope FROM t", 13, "nope"),
            ("SELECT t.x, t.nope FROM t", 12, "t.nope"),
        ] as [(String, Int, String)]
    )
    func errorOffset(_ sql: String, offset: Int, token: String) throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        let error = try #require(throws: DatabaseError.self) { try db.execute(sql) }
        #expect(error.code == .error)
        #expect(error.sql == sql)
        #expect(error.errorOffset == offset)
        // The offset is a byte offset into the SQL's UTF-8 and lands on the blamed token.
        let bytes = Array(sql.utf8)
        #expect(String(decoding: bytes[offset...].prefix(token.utf8.count), as: UTF8.self) == token)
        // The same from prepare and query.
        let prepareError = try #require(throws: DatabaseError.self) { try db.prepare(sql) }
        #expect(prepareError == error)
        let queryError = try #require(throws: DatabaseError.self) { try db.query(sql) }
        #expect(queryError == error)
    }

    /// `sqlite3_error_offset` is -1 for errors SQLite does not tie to a token, such as a missing table.
    @Test(
        "errors SQLite does not tie to a token have no offset",
        arguments: ["SELECT x FROM missing_table", "INSERT INTO t (x, y) VALUES (1, 2)"]
    )
    func noOffset(_ sql: String) throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        let error = try #require(throws: DatabaseError.self) { try db.execute(sql) }
        #expect(error.code == .error)
        #expect(error.errorOffset == nil)
        #expect(error.sql == sql)
    }

    @Test("a syntax error's message is SQLite's and names the token")
    func syntaxMessage() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        let error = try #require(throws: DatabaseError.self) { try db.execute("SELECT * FROM t WHERE x = = 1") }
        #expect(error.message == "near \"=\": syntax error")
        #expect(error.extendedCode == .error)
    }

    @Test("an error raised while running has no offset")
    func runtimeErrorHasNoOffset() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x NOT NULL)")
        let error = try #require(throws: DatabaseError.self) { try db.execute("INSERT INTO t (x) VALUES (NULL)") }
        #expect(error.errorOffset == nil)
    }

    static let constraintCases: [(String, String, ResultCode)] = [
        ("CREATE TABLE t (x UNIQUE); INSERT INTO t VALUES (1)", "INSERT INTO t VALUES (1)", .constraintUnique),
        ("CREATE TABLE t (x NOT NULL)", "INSERT INTO t VALUES (NULL)", .constraintNotnull),
        ("CREATE TABLE t (x CHECK (x > 0))", "INSERT INTO t VALUES (-1)", .constraintCheck),
        (
            "CREATE TABLE t (id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1)", "INSERT INTO t VALUES (1)",
            .constraintPrimarykey
        ),
        (
            "CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE t (p REFERENCES p (id))",
            "INSERT INTO t VALUES (42)", .constraintForeignkey
        ),
        ("CREATE TABLE t (x INTEGER) STRICT", "INSERT INTO t VALUES ('abc')", .constraintDatatype),
    ]

    @Test(
        "constraint violations are recognisable by extended code, without reading the message",
        arguments: constraintCases)
    func constraints(_ schema: String, sql: String, expected: ResultCode) throws {
        let db = try Database()
        try db.executeScript(schema)
        let error = try #require(throws: DatabaseError.self) { try db.execute(sql) }
        #expect(error.extendedCode == expected)
        #expect(error.code == .constraint)
        #expect(error.isConstraintViolation)
        #expect(!error.isBusy && !error.isMisuse && !error.isLocked && !error.isInterrupted && !error.isNotADatabase)
        #expect(error.sql == sql)
        do {
            try db.execute(sql)
            Issue.record("the violation was accepted")
        } catch ResultCode.constraint {
            // A primary code matches its extended codes.
        }
        do {
            try db.execute(sql)
        } catch expected {
            // The extended code matches itself.
        }
        do {
            try db.execute(sql)
        } catch let error as DatabaseError where error.extendedCode == expected {
        }
    }

    @Test("an extended pattern does not match another extended code")
    func extendedPatternIsExact() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x NOT NULL)")
        do {
            try db.execute("INSERT INTO t VALUES (NULL)")
        } catch ResultCode.constraintUnique {
            Issue.record("NOT NULL matched the UNIQUE pattern")
        } catch ResultCode.busy {
            Issue.record("NOT NULL matched the busy pattern")
        } catch ResultCode.constraintNotnull {
        }
    }

    @Test("arguments never appear in an error by default")
    func argumentsHiddenByDefault() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x UNIQUE)")
        try db.execute("INSERT INTO t VALUES ('secret-value')")
        for error in try failures(db) {
            #expect(error.arguments == nil)
            #expect(!error.description.contains("secret-value"))
            #expect(!error.message.contains("secret-value"))
        }
    }

    @Test("arguments appear in the error when the connection opts in")
    func argumentsIncludedWhenOptedIn() throws {
        var configuration = Database.Configuration()
        configuration.includesArgumentsInErrors = true
        let db = try Database(configuration: configuration)
        try db.execute("CREATE TABLE t (x UNIQUE)")
        try db.execute("INSERT INTO t VALUES ('secret-value')")
        let errors = try failures(db)
        #expect(errors.count == 5)
        for error in errors {
            let arguments = try #require(error.arguments)
            #expect(arguments.contains("'secret-value'"))
            #expect(error.description.contains("'secret-value'"))
        }
    }

    /// The errors of the same failing insert through every entry point that takes arguments.
    private func failures(_ db: Database) throws -> [DatabaseError] {
        let sql = "INSERT INTO t VALUES (?)"
        let attempts: [() throws -> Void] = [
            { try db.execute(sql, "secret-value") },
            { try db.execute(sql, arguments: ["secret-value"]) },
            { try db.execute("INSERT INTO t VALUES (:x)", arguments: ["x": "secret-value"]) },
            { try db.execute(sql: "INSERT INTO t VALUES (\("secret-value"))") },
            { try db.execute(sql, "secret-value", "second") },
        ]
        return try attempts.map { attempt in try #require(throws: DatabaseError.self) { try attempt() } }
    }

    @Test("description holds the code's name, SQLite's message and the SQL")
    func description() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x UNIQUE)")
        try db.execute("INSERT INTO t VALUES (1)")
        let error = try #require(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (1)") }
        #expect(error.description.contains("SQLITE_CONSTRAINT_UNIQUE"))
        #expect(error.description.contains("2067"))
        #expect(error.description.contains("UNIQUE constraint failed: t.x"))
        #expect(error.description.contains("INSERT INTO t VALUES (1)"))
        #expect(error.message == "UNIQUE constraint failed: t.x")
        let syntax = try #require(throws: DatabaseError.self) { try db.execute("SELECT * FROM t WHERE x = = 1") }
        #expect(syntax.description.contains("SQLITE_ERROR"))
        #expect(syntax.description.contains("near \"=\": syntax error"))
        #expect(syntax.description.contains("SELECT * FROM t WHERE x = = 1"))
        #expect(syntax.description.contains("26"))
        #expect("\(syntax)" == syntax.description)
    }

    @Test("toolkit checks use SQLite's codes: misuse for wrong calls, range for bad columns, mismatch for values")
    func toolkitCodes() throws {
        let db = try Database()
        let misuse = try #require(throws: DatabaseError.self) { try db.execute("SELECT ?") }
        #expect(misuse.extendedCode == .misuse && misuse.isMisuse)
        let rows = try db.query("SELECT 1 AS a")
        let row = try #require(try rows.next())
        let range = try #require(throws: DatabaseError.self) { try row.value(at: 1, as: Int.self) }
        #expect(range.extendedCode == .range)
        let mismatch = try #require(throws: DatabaseError.self) { try db.queryValue("SELECT 300", as: Int8.self) }
        #expect(mismatch.extendedCode == .mismatch)
        do {
            try db.execute("SELECT ?")
        } catch ResultCode.misuse {
        }
    }

    @Test("the connection stays usable after every kind of error")
    func usableAfterErrors() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x UNIQUE)")
        try db.execute("INSERT INTO t VALUES (1)")
        #expect(throws: DatabaseError.self) { try db.execute("SELEKT") }
        #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (1)") }
        #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (?)") }
        #expect(throws: DatabaseError.self) { try db.execute("SELECT 1; SELECT 2") }
        #expect(!db.isInTransaction)
        #expect(db.openCursors == 0)
        try db.execute("INSERT INTO t VALUES (2)")
        #expect(try db.queryValue("SELECT COUNT(*) FROM t", as: Int.self) == 2)
    }
}
