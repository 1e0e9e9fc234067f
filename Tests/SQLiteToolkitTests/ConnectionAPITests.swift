import Foundation
import SQLiteToolkit
import Testing

/// The pieces of the connection API that round out the first pass: limits, the busy mode read back, versions and
/// compile options, named arguments without a dictionary, and the statement cache's eviction order under load.
@Suite("Connection API")
struct ConnectionAPITests {
    @Test("a limit reads back what was set; the previous value is returned")
    func limits() throws {
        let db = try Database()
        let original = try db.limit(.variableNumber)
        #expect(original > 0)
        #expect(try db.setLimit(.variableNumber, to: 2) == original)
        #expect(try db.limit(.variableNumber) == 2)
        let error = #expect(throws: DatabaseError.self) { _ = try db.prepare("SELECT ?, ?, ?") }
        #expect(error?.code == .error)
        // SQLite raises a length limit below 30 to 30.
        try db.setLimit(.length, to: 30)
        #expect(try db.limit(.length) == 30)
        let tooBig = #expect(throws: DatabaseError.self) {
            try db.execute("SELECT ?", String(repeating: "x", count: 31))
        }
        #expect(tooBig?.code == .toobig)
    }

    @Test("a limit outside 0...Int32.max throws", arguments: [-1, Int(Int32.max) + 1])
    func limitOutOfRange(_ value: Int) throws {
        let db = try Database()
        let error = #expect(throws: DatabaseError.self) { try db.setLimit(.length, to: value) }
        #expect(error?.code == .range)
        db.close()
        let closed = #expect(throws: DatabaseError.self) { _ = try db.limit(.length) }
        #expect(closed?.reason == .connectionClosed)
    }

    @Test("the busy mode in force can be read back")
    func busyModeReadBack() throws {
        let db = try Database()
        guard case .timeout(let seconds) = db.busyMode else {
            Issue.record("the default busy mode is not a timeout")
            return
        }
        #expect(seconds == 5)
        try db.setBusyMode(.immediateError)
        guard case .immediateError = db.busyMode else {
            Issue.record("the busy mode was not read back")
            return
        }
        try db.setBusyMode(.handler { _ in false })
        guard case .handler = db.busyMode else {
            Issue.record("the busy mode was not read back")
            return
        }
    }

    @Test("a busy handler that captures its connection does not keep it alive after close")
    func busyHandlerCycleBrokenByClose() throws {
        weak var released: Database?
        do {
            nonisolated(unsafe) let db = try Database()
            try db.setBusyMode(.handler { _ in db.isOpen })
            released = db
            db.close()
            guard case .immediateError = db.busyMode else {
                Issue.record("a closed connection kept its busy handler")
                return
            }
        }
        #expect(released == nil)
    }

    @Test("the SQLite and sqlite3mc versions and the compile options are reachable through the toolkit")
    func versions() throws {
        let db = try Database()
        #expect(Database.sqliteVersion == (try db.queryValue("SELECT sqlite_version()", as: String.self)))
        #expect(Database.sqliteVersionNumber >= 3_000_000)
        #expect(Database.sqliteSourceID == (try db.queryValue("SELECT sqlite_source_id()", as: String.self)))
        #expect(Database.multipleCiphersVersion.contains("Multiple Ciphers"))
        let fromSQL = try db.query("PRAGMA compile_options").map { try $0.value(at: 0, as: String.self) }
        #expect(Database.compileOptions == fromSQL)
        #expect(Database.isCompileOptionUsed("SQLITE_THREADSAFE") == true)
        #expect(Database.isCompileOptionUsed("NO_SUCH_OPTION_EVER") == false)
    }

    @Test("quoteIdentifier names one object whatever the name holds, and the quoted name works in SQL")
    func quotedIdentifiers() throws {
        #expect(try Database.quoteIdentifier("t") == "\"t\"")
        #expect(try Database.quoteIdentifier("a\"b") == "\"a\"\"b\"")
        let db = try Database()
        for name in ["order items", "a\"b", "x\"; DROP TABLE t; --", "ü 🙂", ""] {
            let quoted = try Database.quoteIdentifier(name)
            try db.execute("CREATE TABLE " + quoted + " (v)")
            try db.execute("INSERT INTO " + quoted + " VALUES (1)")
            #expect(try db.queryValue("SELECT count(*) FROM " + quoted, as: Int.self) == 1)
        }
        let names = try db.query("SELECT name FROM sqlite_schema ORDER BY name").map {
            try $0.value(at: 0, as: String.self)
        }
        #expect(Set(names) == ["order items", "a\"b", "x\"; DROP TABLE t; --", "ü 🙂", ""])
    }

    @Test(
        "completeness(of:) tells complete statements, comment-only text and unfinished statements apart",
        arguments: [
            ("SELECT 1;", SQLCompleteness.complete),
            ("SELECT 1; SELECT 2;", .complete),
            ("SELECT 1", .incomplete),
            ("SELECT 'a;", .incomplete),
            ("CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1;", .incomplete),
            ("-- a comment\n", .empty),
            ("  /* only this */  ", .empty),
        ])
    func completeness(sql: String, expected: SQLCompleteness) {
        #expect(Database.completeness(of: sql) == expected)
    }

    @Test("named arguments as pairs bind in parameter order, out of order, and with prefixes")
    func namedPairs() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (a, b)")
        let insert = try db.prepare("INSERT INTO t VALUES (:a, @b)")
        try insert.execute(named: ("a", 1), ("b", "one"))
        try insert.execute(named: ("b", "two"), ("a", 2))
        try insert.execute(named: (":a", 3), ("@b", "three"))
        let rows = try db.query("SELECT a, b FROM t ORDER BY a").map {
            "\(try $0.value(at: 0, as: Int.self)) \(try $0.value(at: 1, as: String.self))"
        }
        #expect(rows == ["1 one", "2 two", "3 three"])
    }

    @Test("named pairs that do not match throw the dictionary's reasons before running")
    func namedPairMismatches() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (a, b)")
        let insert = try db.prepare("INSERT INTO t VALUES (:a, :b)")
        let missing = #expect(throws: DatabaseError.self) { try insert.execute(named: ("a", 1)) }
        #expect(missing?.reason == .missingArgumentNames([":b"]))
        let unknown = #expect(throws: DatabaseError.self) { try insert.execute(named: ("a", 1), ("b", 2), ("c", 3)) }
        #expect(unknown?.reason == .unknownArgumentNames(["c"]))
        let repeated = #expect(throws: DatabaseError.self) { try insert.execute(named: ("a", 1), ("a", 2)) }
        #expect(repeated?.reason == .duplicateArgumentName("a"))
        let positional = try db.prepare("INSERT INTO t VALUES (?, ?)")
        let error = #expect(throws: DatabaseError.self) { try positional.execute(named: ("a", 1), ("b", 2)) }
        #expect(error?.reason == .positionalParameter(index: 1))
        #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 0)
    }

    @Test("a full cache whose statements are all in use keeps none of the new ones, and evicts in LRU order after")
    func evictionWithStatementsInUse() throws {
        var configuration = Database.Configuration()
        configuration.statementCacheCapacity = 2
        let db = try Database(configuration: configuration)
        _ = try db.queryValue("SELECT 1", as: Int.self)
        _ = try db.queryValue("SELECT 2", as: Int.self)
        let first = try db.query("SELECT 1")
        let second = try db.query("SELECT 2")
        _ = try first.next()
        _ = try second.next()
        #expect(try db.queryValue("SELECT 3", as: Int.self) == 3)
        #expect(db.statementCacheStatistics.count == 2)
        first.close()
        second.close()
        // SELECT 3 was not kept; SELECT 1 is now the least recently checked in: the next new statement evicts it.
        #expect(try db.queryValue("SELECT 4", as: Int.self) == 4)
        let misses = db.statementCacheStatistics.misses
        _ = try db.queryValue("SELECT 2", as: Int.self)
        #expect(db.statementCacheStatistics.misses == misses)
        _ = try db.queryValue("SELECT 1", as: Int.self)
        #expect(db.statementCacheStatistics.misses == misses + 1)
    }

    @Test("many distinct statements through a small cache: every result right, the count bounded (seeded)")
    func manyDistinctStatements() throws {
        var configuration = Database.Configuration()
        configuration.statementCacheCapacity = 8
        let db = try Database(configuration: configuration)
        var generator = SeededRandom(seed: 9)
        for _ in 0..<2000 {
            let value = Int.random(in: 0..<40, using: &generator)
            #expect(try db.queryValue("SELECT \(value)", as: Int.self) == value)
            #expect(db.statementCacheStatistics.count <= 8)
        }
    }
}
