import CSQLTKTestExtension
import Foundation
import SQLiteToolkit
import Testing

/// One error the toolkit detects itself, with the reason it must carry.
struct ReasonCase: Sendable, CustomTestStringConvertible {
    var name: String
    var code: ResultCode
    var reason: DatabaseError.Reason
    var body: @Sendable (Database) throws -> Void

    var testDescription: String { name }
}

/// Each typed reason, matched both with `catch` and with Swift Testing's `#expect(throws:)`.
@Suite("Typed error reasons")
struct ErrorReasonTests {
    static let cases: [ReasonCase] = [
        ReasonCase(name: "closed connection", code: .misuse, reason: .connectionClosed) { db in
            db.close()
            try db.execute("SELECT 1")
        },
        ReasonCase(name: "too few arguments", code: .misuse, reason: .argumentMismatch(expected: 2, given: 1)) {
            try $0.execute("SELECT ?, ?", 1)
        },
        ReasonCase(name: "too many arguments", code: .misuse, reason: .argumentMismatch(expected: 1, given: 2)) {
            try $0.execute("SELECT ?", arguments: [1, 2])
        },
        ReasonCase(name: "unknown names", code: .misuse, reason: .unknownArgumentNames(["b"])) {
            try $0.execute("SELECT :a", arguments: ["a": 1, "b": 2])
        },
        ReasonCase(name: "missing names", code: .misuse, reason: .missingArgumentNames([":b"])) {
            try $0.execute("SELECT :a, :b", arguments: ["a": 1])
        },
        ReasonCase(name: "duplicate name", code: .misuse, reason: .duplicateArgumentName("a")) {
            try $0.execute("SELECT :a", arguments: ["a": 1, ":a": 2])
        },
        ReasonCase(name: "positional parameter", code: .misuse, reason: .positionalParameter(index: 1)) {
            try $0.execute("SELECT ?", arguments: ["a": 1])
        },
        ReasonCase(name: "second statement", code: .misuse, reason: .multipleStatements(tail: "SELECT 2")) {
            try $0.execute("SELECT 1; SELECT 2")
        },
        ReasonCase(name: "no statement", code: .misuse, reason: .noStatement) {
            _ = try $0.prepare("  -- nothing")
        },
        ReasonCase(name: "NUL in SQL", code: .misuse, reason: .embeddedNUL(offset: 8)) {
            try $0.execute("SELECT 1\0; SELECT 2")
        },
        ReasonCase(name: "nested transaction", code: .misuse, reason: .nestedTransaction) { db in
            try db.transaction { db in try db.transaction { _ in } }
        },
        ReasonCase(name: "unknown column", code: .range, reason: .columnNotFound("nope")) { db in
            let rows = try db.query("SELECT 1 AS one")
            _ = try rows.next()?.value(named: "nope", as: Int.self)
        },
        ReasonCase(name: "column index", code: .range, reason: .columnIndexOutOfRange(index: 3, count: 1)) { db in
            let rows = try db.query("SELECT 1")
            _ = try rows.next()?.value(at: 3, as: Int.self)
        },
        ReasonCase(name: "statement in use", code: .misuse, reason: .statementInUse) { db in
            let statement = try db.prepare("SELECT 1")
            let rows = try statement.query()
            _ = try rows.next()
            try statement.execute()
        },
        ReasonCase(name: "no row", code: .notfound, reason: .noRow) {
            _ = try $0.queryRequiredValue("SELECT 1 WHERE 0", as: Int.self)
        },
        ReasonCase(name: "NULL as a non-optional", code: .mismatch, reason: .unexpectedNull) {
            _ = try $0.queryValue("SELECT NULL", as: Int.self)
        },
        ReasonCase(name: "value mismatch", code: .mismatch, reason: .valueMismatch) {
            _ = try $0.queryValue("SELECT 'not a uuid'", as: UUID.self)
        },
        ReasonCase(
            name: "extension load", code: .error, reason: .extensionLoadFailed(path: "/nonexistent/extension")
        ) {
            try $0.loadExtension(atPath: "/nonexistent/extension")
        },
        ReasonCase(
            name: "extension registration", code: .error, reason: .extensionRegistrationFailed(name: "failing")
        ) {
            try $0.registerExtension(sqltk_test_extension_init_failing, named: "failing")
        },
        ReasonCase(name: "extension in a callback", code: .misuse, reason: .extensionLoadInCallback) { db in
            nonisolated(unsafe) var caught: (any Error)?
            // Unowned: the connection keeps its functions, which must not keep it.
            try db.createFunction("load_inside") { [unowned db] (value: Int) -> Int in
                do { try db.loadExtension(atPath: "/nonexistent/extension") } catch { caught = error }
                return value
            }
            _ = try db.queryValue("SELECT load_inside(1)", as: Int.self)
            if let caught { throw caught }
        },
    ]

    @Test("each reason is matched with catch", arguments: cases)
    func matchedWithCatch(_ reasonCase: ReasonCase) throws {
        let db = try Database()
        do {
            try reasonCase.body(db)
            Issue.record("no error thrown")
        } catch let error as DatabaseError where error.reason == reasonCase.reason {
            #expect(error.code == reasonCase.code)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("each reason is matched with #expect(throws:)", arguments: cases)
    func matchedWithExpectThrows(_ reasonCase: ReasonCase) throws {
        let db = try Database()
        let error = #expect(throws: DatabaseError.self) { try reasonCase.body(db) }
        #expect(error?.reason == reasonCase.reason)
        #expect(error?.code == reasonCase.code)
    }

    @Test("the SQLite code still matches in catch patterns beside the reason")
    func codeStillMatches() throws {
        let db = try Database()
        do {
            try db.execute("SELECT ?", 1, 2)
            Issue.record("no error thrown")
        } catch ResultCode.misuse {
        }
    }

    /// `#expect(throws: ResultCode.constraint)` casts the thrown error to `ResultCode`, which a `DatabaseError` is
    /// not: the documented spelling asks for `DatabaseError` and checks the code of the error it returns.
    @Test("the documented Swift Testing spelling matches a constraint error by code")
    func documentedSpelling() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x UNIQUE)")
        try db.execute("INSERT INTO t VALUES (1)")
        let error = #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (1)") }
        #expect(error?.code == .constraint)
        #expect(error?.extendedCode == .constraintUnique)
        #expect(error?.reason == nil)
    }

    @Test("a second statement's error names the unused tail")
    func tailInMessage() throws {
        let db = try Database()
        let error = try #require(throws: DatabaseError.self) { try db.execute("SELECT 1;  DROP TABLE nothing") }
        #expect(error.message.contains("DROP TABLE nothing"))
        #expect(error.reason == .multipleStatements(tail: "DROP TABLE nothing"))
    }

    @Test("SQL after an embedded NUL is never silently dropped")
    func embeddedNUL() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        let error = try #require(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (1)\0garbage") }
        #expect(error.reason == .embeddedNUL(offset: 24))
        let scriptError = try #require(throws: DatabaseError.self) {
            try db.executeScript("INSERT INTO t VALUES (1);\0INSERT INTO t VALUES (2)")
        }
        #expect(scriptError.reason == .embeddedNUL(offset: 25))
        #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 0)
        let inLiteral = try #require(throws: DatabaseError.self) { try db.execute("SELECT 'a\0b'") }
        #expect(inLiteral.reason == .embeddedNUL(offset: 9))
    }

    @Test("a failed open keeps SQLite's message and carries the path on its own")
    func openError() throws {
        let path = "/nonexistent-\(UUID().uuidString)/sub/test.sqlite"
        let error = try #require(throws: DatabaseError.self) { try Database(path: path) }
        #expect(error.code == .cantopen)
        #expect(error.message == "unable to open database file")
        #expect(error.path == path)
        #expect(error.description.contains(path))
    }

    @Test("a bind error carries SQLite's message and the parameter's index and name")
    func bindError() throws {
        let db = try Database()
        let handle = try #require(db.handle)
        _ = handle.limit(.length, 10)
        let error = try #require(throws: DatabaseError.self) {
            try db.execute(
                "SELECT :first, :second", arguments: ["first": 1, "second": String(repeating: "x", count: 100)])
        }
        #expect(error.code == .toobig)
        #expect(error.message == "string or blob too big")
        #expect(error.parameterIndex == 2)
        #expect(error.parameterName == ":second")
        #expect(error.description.contains(":second"))
    }
}

/// A failed typed read names the type, the storage class and the size, never the value.
@Suite("Read errors carry no user data")
struct ReadErrorTests {
    @Test("reading a 4 MiB blob as UUID reports its size, not its bytes")
    func largeBlob() throws {
        let db = try Database()
        let blob = Data(repeating: 0xAB, count: 4 << 20)
        let error = try #require(throws: DatabaseError.self) { _ = try db.queryValue("SELECT ?", blob, as: UUID.self) }
        #expect(error.message == "cannot read BLOB of 4194304 bytes as UUID")
        #expect(error.reason == .valueMismatch)
        #expect(!error.description.contains("ABAB"))
    }

    @Test("text read as an integer too small for it reports no value")
    func integerOutOfRange() throws {
        let db = try Database()
        let error = try #require(throws: DatabaseError.self) { _ = try db.queryValue("SELECT 300", as: Int8.self) }
        #expect(!error.message.contains("300"))
        #expect(error.reason == .valueMismatch)
    }

    @Test("with values in errors opted in, the value appears, truncated")
    func optedIn() throws {
        var configuration = Database.Configuration()
        configuration.includesArgumentsInErrors = true
        let db = try Database(configuration: configuration)
        let blob = Data(repeating: 0xAB, count: 4 << 20)
        let error = try #require(throws: DatabaseError.self) { _ = try db.queryValue("SELECT ?", blob, as: UUID.self) }
        #expect(error.message.contains("X'ABAB"))
        #expect(error.description.count < 1000)
    }
}
