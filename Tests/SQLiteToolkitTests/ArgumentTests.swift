import Foundation
import SQLiteBindings
import SQLiteToolkit
import Testing

@Suite("Arguments")
struct ArgumentTests {
    private func database() throws -> Database {
        let db = try Database()
        try db.execute("CREATE TABLE t (a, b)")
        return db
    }

    private func rowsOfT(_ db: Database) throws -> [[DatabaseValue]] {
        try allValues(db, "SELECT a, b FROM t ORDER BY rowid")
    }

    @Test("positional ? arguments bind in order from variadic values and from an array")
    func positional() throws {
        let db = try database()
        try db.execute("INSERT INTO t (a, b) VALUES (?, ?)", 1, "one")
        try db.execute("INSERT INTO t (a, b) VALUES (?, ?)", arguments: [2, "two"])
        try db.execute(
            "INSERT INTO t (a, b) VALUES (?, ?)", arguments: StatementArguments([.integer(3), .text("three")]))
        try db.prepare("INSERT INTO t (a, b) VALUES (?, ?)").execute(4, "four")
        try db.prepare("INSERT INTO t (a, b) VALUES (?, ?)").execute(arguments: [5, nil])
        #expect(
            try rowsOfT(db) == [
                [1, "one"], [2, "two"], [3, "three"], [4, "four"], [5, .null],
            ])
    }

    @Test("?NNN arguments bind by number: reordered and repeated parameters")
    func numbered() throws {
        let db = try database()
        try db.execute("INSERT INTO t (a, b) VALUES (?2, ?1)", "first", "second")
        try db.execute("INSERT INTO t (a, b) VALUES (?1, ?1)", arguments: ["same"])
        try db.execute("INSERT INTO t (a, b) VALUES (?3, ?1)", "x", "unused but counted", "z")
        #expect(try rowsOfT(db) == [["second", "first"], ["same", "same"], ["z", "x"]])
        #expect(try db.prepare("SELECT ?3").parameterCount == 3)
    }

    @Test(
        "named :name @name $name arguments bind from a dictionary, keys with or without their prefix",
        arguments: [
            ("INSERT INTO t (a, b) VALUES (:a, :b)", ["a", "b"]),
            ("INSERT INTO t (a, b) VALUES (:a, :b)", [":a", ":b"]),
            ("INSERT INTO t (a, b) VALUES (@a, @b)", ["a", "b"]),
            ("INSERT INTO t (a, b) VALUES (@a, @b)", ["@a", "@b"]),
            ("INSERT INTO t (a, b) VALUES ($a, $b)", ["a", "b"]),
            ("INSERT INTO t (a, b) VALUES ($a, $b)", ["$a", "$b"]),
            ("INSERT INTO t (a, b) VALUES (:a, @b)", [":a", "b"]),
            ("INSERT INTO t (b, a) VALUES (:b, :a)", ["a", "b"]),
        ]
    )
    func named(_ sql: String, keys: [String]) throws {
        let db = try database()
        try db.execute(sql, arguments: StatementArguments([keys[0]: 10, keys[1]: "ten"]))
        try db.prepare(sql).execute(arguments: StatementArguments([keys[0]: 20, keys[1]: nil]))
        let rows = try db.query(
            sql + " RETURNING a, b", arguments: StatementArguments([keys[0]: 30, keys[1]: "thirty"]))
        #expect(try rows.next()?.values == [30, "thirty"])
        #expect(try rows.next() == nil)
        #expect(try rowsOfT(db) == [[10, "ten"], [20, .null], [30, "thirty"]])
    }

    @Test("a named parameter used twice binds once from one key")
    func namedRepeated() throws {
        let db = try database()
        try db.execute("INSERT INTO t (a, b) VALUES (:v, :v || '!')", arguments: ["v": "hi"])
        #expect(try rowsOfT(db) == [["hi", "hi!"]])
    }

    @Test(
        "a wrong positional count throws, says what was expected and given, and runs nothing",
        arguments: [0, 1, 3, 4]
    )
    func wrongCount(_ given: Int) throws {
        let db = try database()
        let values: [(any DatabaseValueConvertible)?] = Array(repeating: 7, count: given)
        let attempts: [(String, () throws -> Void)] = [
            ("array", { try db.execute("INSERT INTO t (a, b) VALUES (?, ?)", arguments: StatementArguments(values)) }),
            (
                "prepared",
                { try db.prepare("INSERT INTO t (a, b) VALUES (?, ?)").execute(arguments: StatementArguments(values)) }
            ),
            (
                "query",
                { _ = try db.query("INSERT INTO t (a, b) VALUES (?, ?)", arguments: StatementArguments(values)) }
            ),
        ]
        for (name, attempt) in attempts {
            do {
                try attempt()
                Issue.record("\(name): \(given) arguments for 2 parameters were accepted")
            } catch let error as DatabaseError {
                #expect(error.isMisuse, "\(name)")
                #expect(error.message.contains("expects 2 arguments, \(given) were given"), "\(name)")
                #expect(error.sql == "INSERT INTO t (a, b) VALUES (?, ?)", "\(name)")
            }
        }
        #expect(try rowsOfT(db).isEmpty)
        #expect(db.openCursors == 0)
    }

    @Test("a wrong variadic count throws before anything runs")
    func wrongVariadicCount() throws {
        let db = try database()
        let sql = "INSERT INTO t (a, b) VALUES (?, ?)"
        let attempts: [(String, Int, () throws -> Void)] = [
            ("none", 0, { try db.execute(sql) }),
            ("too few", 1, { try db.execute(sql, 1) }),
            ("too many", 3, { try db.execute(sql, 1, 2, 3) }),
            ("query", 3, { _ = try db.query(sql, 1, 2, 3) }),
            ("queryValue", 1, { _ = try db.queryValue(sql, 1, as: Int.self) }),
            ("prepared", 1, { try db.prepare(sql).execute("x") }),
            ("bind", 3, { try db.prepare(sql).bind(1, 2, 3) }),
            ("no parameters", 1, { try db.execute("DELETE FROM t", 1) }),
        ]
        for (name, given, attempt) in attempts {
            let error = try #require(throws: DatabaseError.self, "\(name)") { try attempt() }
            #expect(error.isMisuse, "\(name)")
            #expect(error.message.contains("\(given) were given"), "\(name)")
        }
        #expect(try rowsOfT(db).isEmpty)
    }

    @Test(
        "missing or unknown names throw, name them, and run nothing",
        arguments: [
            (["a": 1] as StatementArguments, ["missing :b"]),
            (["a": 1, "b": 2, "c": 3] as StatementArguments, ["unknown c"]),
            (["a": 1, "x": 2] as StatementArguments, ["missing :b", "unknown x"]),
            ([:] as StatementArguments, ["missing :a, :b"]),
            ([":a": 1, "@b": 2, "d": 4] as StatementArguments, ["unknown d"]),
        ]
    )
    func namedMismatch(_ arguments: StatementArguments, expected: [String]) throws {
        let db = try database()
        let error = try #require(throws: DatabaseError.self) {
            try db.execute("INSERT INTO t (a, b) VALUES (:a, :b)", arguments: arguments)
        }
        #expect(error.isMisuse)
        for part in expected { #expect(error.message.contains(part), "\(error.message)") }
        #expect(try rowsOfT(db).isEmpty)
    }

    @Test("the same name given with and without its prefix throws")
    func duplicateKey() throws {
        let db = try database()
        let error = try #require(throws: DatabaseError.self) {
            try db.execute("INSERT INTO t (a, b) VALUES (:a, :b)", arguments: ["a": 1, ":a": 2, "b": 3])
        }
        #expect(error.isMisuse)
        #expect(error.message.contains("\"a\" is given twice"))
        #expect(try rowsOfT(db).isEmpty)
    }

    @Test(
        "a dictionary for positional parameters (?, ?NNN) throws, names the parameter, and runs nothing",
        arguments: [
            ("INSERT INTO t (a, b) VALUES (?, ?)", ["a": 1, "b": 2] as StatementArguments, "parameter 1"),
            ("INSERT INTO t (a, b) VALUES (:a, ?)", ["a": 1, "b": 2] as StatementArguments, "parameter 2"),
            ("INSERT INTO t (a, b) VALUES (?1, ?2)", ["1": 1, "2": 2] as StatementArguments, "parameter 1"),
            ("INSERT INTO t (a, b) VALUES (:a, ?2)", ["a": 1, "2": 2] as StatementArguments, "parameter 2"),
        ]
    )
    func dictionaryForPositional(_ sql: String, arguments: StatementArguments, parameter: String) throws {
        let db = try database()
        let error = try #require(throws: DatabaseError.self) { try db.execute(sql, arguments: arguments) }
        #expect(error.isMisuse)
        #expect(error.message.contains("\(parameter) is positional"), "\(error.message)")
        #expect(try rowsOfT(db).isEmpty)
    }

    @Test("a dictionary for a statement without parameters must be empty")
    func dictionaryWithoutParameters() throws {
        let db = try database()
        try db.execute("INSERT INTO t (a, b) VALUES (1, 2)", arguments: [:])
        let error = try #require(throws: DatabaseError.self) {
            try db.execute("INSERT INTO t (a, b) VALUES (1, 2)", arguments: ["a": 1])
        }
        #expect(error.message.contains("unknown a"))
        #expect(try rowsOfT(db) == [[1, 2]])
    }

    /// Named parameters also have numbers (in order of first appearance), and SQLite lets them be bound by number,
    /// so positional values bind them in that order: the toolkit keeps SQLite's rule (as GRDB does).
    @Test("positional values bind named parameters in the order SQLite numbers them")
    func positionalForNamed() throws {
        let db = try database()
        try db.execute("INSERT INTO t (a, b) VALUES (:a, :b)", 1, 2)
        try db.execute("INSERT INTO t (a, b) VALUES (:b, :a)", arguments: [3, 4])
        #expect(try rowsOfT(db) == [[1, 2], [3, 4]])
        #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t (a, b) VALUES (:a, :b)", 1) }
    }

    @Test("an argument that fails to bind leaves the statement runnable with good arguments")
    func failedBindThenGood() throws {
        let db = try database()
        #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t (a, b) VALUES (?, ?)", 1, Double.nan) }
        try db.execute("INSERT INTO t (a, b) VALUES (?, ?)", 2, 2.5)
        #expect(try rowsOfT(db) == [[2, 2.5]])
    }

    // MARK: - Interpolation

    @Test("interpolated values become bound arguments, never SQL text")
    func interpolation() throws {
        let db = try database()
        let name = "Robert'); DROP TABLE t; --"
        let score = 42
        let sql: SQL = "INSERT INTO t (a, b) VALUES (\(name), \(score))"
        #expect(sql.text == "INSERT INTO t (a, b) VALUES (?, ?)")
        #expect(sql.arguments == [.text(name), .integer(42)])
        try db.execute(sql: sql)
        try db.execute(sql: "INSERT INTO t (a, b) VALUES (\("' OR 1=1 --"), \(Data([0, 1])))")
        #expect(try rowsOfT(db) == [[.text(name), 42], ["' OR 1=1 --", .blob(Data([0, 1]))]])
        let found = try db.query(sql: "SELECT b FROM t WHERE a = \(name)").map { try $0.value(at: 0, as: Int.self) }
        #expect(found == [42])
        let injected = try db.query(sql: "SELECT COUNT(*) FROM t WHERE a = \("x' OR '1'='1")").map {
            try $0.value(at: 0, as: Int.self)
        }
        #expect(injected == [0])
    }

    @Test("interpolation binds optionals, dates and UUIDs like typed arguments, and pastes only literal fragments")
    func interpolationKinds() throws {
        let db = try database()
        let missing: String? = nil
        let uuid = UUID()
        let date = Date(timeIntervalSince1970: 12.5)
        let table = "t"
        try db.execute(sql: "INSERT INTO \(literal: table) (a, b) VALUES (\(missing), \(uuid))")
        try db.execute(sql: "INSERT INTO t (a, b) VALUES (\(date), \(true))")
        #expect(try rowsOfT(db) == [[.null, uuid.databaseValue], [.real(12.5), .integer(1)]])
        let plain: SQL = "SELECT 1"
        #expect(plain.arguments.isEmpty)
        #expect(try db.query(sql: plain).map { try $0.value(at: 0, as: Int.self) } == [1])
    }

    @Test("StatementArguments describes itself as SQL literals")
    func argumentsDescription() {
        let positional: StatementArguments = [1, "it's", nil, 1.5, Data([0xAB])]
        #expect(positional.description == "[1, 'it''s', NULL, 1.5, X'AB']")
        #expect(positional.count == 5)
        let named: StatementArguments = ["b": 2, "a": "x"]
        #expect(named.description == "[a: 'x', b: 2]")
    }
}
