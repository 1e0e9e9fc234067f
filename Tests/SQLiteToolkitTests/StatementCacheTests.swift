import Foundation
import SQLiteBindings
import SQLiteToolkit
import Testing

@Suite("Statement cache")
struct StatementCacheTests {
    private func database(capacity: Int = 64) throws -> Database {
        var configuration = Database.Configuration()
        configuration.statementCacheCapacity = capacity
        let db = try Database(configuration: configuration)
        try db.execute("CREATE TABLE t (x INTEGER)")
        try db.execute("INSERT INTO t (x) VALUES (1), (2), (3)")
        return db
    }

    @Test("running the same SQL again reuses the cached statement")
    func reuse() throws {
        let db = try database()
        let before = db.statementCacheStatistics
        for value in 10..<13 { try db.execute("INSERT INTO t (x) VALUES (?)", value) }
        let after = db.statementCacheStatistics
        #expect(after.misses == before.misses + 1)
        #expect(after.hits == before.hits + 2)
        #expect(after.count == before.count + 1)
        #expect(after.capacity == 64)
        _ = try db.queryValue("SELECT COUNT(*) FROM t", as: Int.self)
        _ = try db.queryValue("SELECT COUNT(*) FROM t", as: Int.self)
        #expect(db.statementCacheStatistics.hits == after.hits + 1)
        #expect(db.statementCacheStatistics.misses == after.misses + 1)
    }

    @Test("the default capacity is 64")
    func defaultCapacity() throws {
        let db = try Database()
        #expect(db.statementCacheStatistics.capacity == 64)
        #expect(Database.Configuration().statementCacheCapacity == 64)
    }

    @Test("beyond its capacity the cache evicts the least recently used statement")
    func eviction() throws {
        let db = try database(capacity: 2)
        db.clearStatementCache()
        let start = db.statementCacheStatistics
        func run(_ sql: String) throws { _ = try db.queryValue(sql, as: Int.self) }
        try run("SELECT 'a'")  // miss: [a]
        try run("SELECT 'b'")  // miss: [a, b]
        try run("SELECT 'c'")  // miss, evicts a: [b, c]
        #expect(db.statementCacheStatistics.count == 2)
        try run("SELECT 'b'")  // hit: b is now the most recent
        try run("SELECT 'a'")  // miss, evicts c: [b, a]
        try run("SELECT 'b'")  // hit
        try run("SELECT 'c'")  // miss, evicts a: [b, c]
        try run("SELECT 'a'")  // miss, evicts b
        let end = db.statementCacheStatistics
        #expect(end.count == 2)
        #expect(end.hits - start.hits == 2)
        #expect(end.misses - start.misses == 6)
    }

    @Test("SQL run once keeps few statements; SQL that comes back after its eviction stays cached")
    func firstUseStatementsAreBounded() throws {
        let db = try database()
        db.clearStatementCache()
        func run(_ value: Int) throws -> Int? { try db.queryValue("SELECT \(value)", as: Int.self) }
        // Statements of SQL seen once hold SQLite's lookaside memory: only the last 8 of them are kept.
        for value in 0..<20 { #expect(try run(value) == value) }
        #expect(db.statementCacheStatistics.count == 8)
        for value in 12..<20 { #expect(try run(value) == value) }
        #expect(db.statementCacheStatistics.hits == 8)
        // SQL 0 was evicted; asked for again, it repeats: kept beside the first-use statements, not among them.
        let misses = db.statementCacheStatistics.misses
        #expect(try run(0) == 0)
        #expect(db.statementCacheStatistics.misses == misses + 1)
        for value in 100..<120 { #expect(try run(value) == value) }
        #expect(db.statementCacheStatistics.count == 9)
        let hits = db.statementCacheStatistics.hits
        #expect(try run(0) == 0)
        #expect(db.statementCacheStatistics.hits == hits + 1)
    }

    @Test("a statement checked out while the cache evicts is not evicted, and is kept when checked in")
    func checkedOutStatementSurvivesEviction() throws {
        let db = try database(capacity: 2)
        db.clearStatementCache()
        #expect(try db.query("SELECT x FROM t ORDER BY x").map { try $0.value(at: 0, as: Int.self) } == [1, 2, 3])
        let rows = try db.query("SELECT x FROM t ORDER BY x")
        #expect(try rows.next()?.value(at: 0, as: Int.self) == 1)
        for value in 0..<5 { #expect(try db.queryValue("SELECT \(value)", as: Int.self) == value) }
        #expect(try rows.map { try $0.value(at: 0, as: Int.self) } == [2, 3])
        let hits = db.statementCacheStatistics.hits
        #expect(try db.query("SELECT x FROM t ORDER BY x").map { try $0.value(at: 0, as: Int.self) } == [1, 2, 3])
        #expect(db.statementCacheStatistics.hits == hits + 1)
        #expect(db.statementCacheStatistics.count <= 2)
    }

    @Test("clearStatementCache empties the cache; the next run prepares again")
    func clear() throws {
        let db = try database()
        try db.execute("UPDATE t SET x = x")
        #expect(db.statementCacheStatistics.count > 0)
        db.clearStatementCache()
        #expect(db.statementCacheStatistics.count == 0)
        let misses = db.statementCacheStatistics.misses
        try db.execute("UPDATE t SET x = x")
        #expect(db.statementCacheStatistics.misses == misses + 1)
        #expect(db.statementCacheStatistics.count == 1)
    }

    @Test("clearing the cache while a cursor holds a cached statement leaves the cursor working")
    func clearWhileInUse() throws {
        let db = try database()
        let rows = try db.query("SELECT x FROM t ORDER BY x")
        #expect(try rows.next()?.value(at: 0, as: Int.self) == 1)
        db.clearStatementCache()
        #expect(try rows.map { try $0.value(at: 0, as: Int.self) } == [2, 3])
    }

    @Test("capacity 0 disables caching")
    func disabled() throws {
        let db = try database(capacity: 0)
        for _ in 0..<3 { try db.execute("UPDATE t SET x = x") }
        let statistics = db.statementCacheStatistics
        #expect(statistics.count == 0)
        #expect(statistics.capacity == 0)
        #expect(statistics.hits == 0)
        #expect(try db.queryValue("SELECT SUM(x) FROM t", as: Int.self) == 6)
        #expect(db.statementCacheStatistics.count == 0)
    }

    @Test("a cached statement is never handed to two users at once")
    func neverSharedWhileInUse() throws {
        let db = try database()
        let sql = "SELECT x FROM t WHERE x >= ? ORDER BY x"
        let outer = try db.query(sql, 1)
        #expect(try outer.next()?.value(at: 0, as: Int.self) == 1)
        // The same SQL again while the first cursor is open: both must give their own, right rows.
        let inner = try db.query(sql, 2)
        #expect(try inner.next()?.value(at: 0, as: Int.self) == 2)
        #expect(try db.query(sql, 3).map { try $0.value(at: 0, as: Int.self) } == [3])
        #expect(try db.queryValue(sql, 2, as: Int.self) == 2)
        #expect(try inner.next()?.value(at: 0, as: Int.self) == 3)
        #expect(try outer.next()?.value(at: 0, as: Int.self) == 2)
        #expect(try inner.next() == nil)
        #expect(try outer.next()?.value(at: 0, as: Int.self) == 3)
        #expect(try outer.next() == nil)
        #expect(db.openCursors == 0)
        // Once everybody is done, one statement for the SQL stays cached and is reused.
        let hits = db.statementCacheStatistics.hits
        #expect(try db.query(sql, 0).map { try $0.value(at: 0, as: Int.self) } == [1, 2, 3])
        #expect(db.statementCacheStatistics.hits == hits + 1)
    }

    @Test("executing SQL whose cached statement an open cursor is reading works")
    func executeWhileCursorOpen() throws {
        let db = try database()
        let sql = "INSERT INTO t (x) SELECT ? RETURNING x"
        let rows = try db.query(sql, 10)
        #expect(try rows.next()?.value(at: 0, as: Int.self) == 10)
        try db.execute(sql, 20)
        #expect(try rows.next() == nil)
        #expect(try db.queryValue("SELECT group_concat(x) FROM t WHERE x >= 10 ORDER BY x", as: String.self) == "10,20")
    }

    @Test("a cursor dropped before its end returns its statement to the cache, reset")
    func droppedCursorReturnsStatement() throws {
        let db = try database()
        do {
            let rows = try db.query("SELECT x FROM t ORDER BY x")
            #expect(try rows.next() != nil)
        }
        let before = db.statementCacheStatistics
        #expect(try db.query("SELECT x FROM t ORDER BY x").map { try $0.value(at: 0, as: Int.self) } == [1, 2, 3])
        #expect(db.statementCacheStatistics.hits == before.hits + 1)
    }

    @Test("arguments of an earlier run never leak into the next run of a cached statement")
    func bindingsDoNotLeak() throws {
        let db = try database()
        #expect(try db.queryValue("SELECT ?", "first", as: String.self) == "first")
        #expect(try db.queryValue("SELECT ?", 2, as: Int.self) == 2)
        #expect(try db.queryValue("SELECT ?", String?.none, as: String?.self) == .some(nil))
        #expect(try db.query("SELECT :v", arguments: ["v": 3]).map { try $0.value(at: 0, as: Int.self) } == [3])
    }

    @Test("a failed run leaves the cached statement usable")
    func failureDoesNotPoison() throws {
        let db = try database()
        try db.execute("CREATE TABLE u (x UNIQUE)")
        try db.execute("INSERT INTO u (x) VALUES (?)", 1)
        #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO u (x) VALUES (?)", 1) }
        #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO u (x) VALUES (?)", 1, 2) }
        try db.execute("INSERT INTO u (x) VALUES (?)", 2)
        #expect(try db.queryValue("SELECT COUNT(*) FROM u", as: Int.self) == 2)
        #expect(!db.isInTransaction)
    }

    static let queries: [String] = [
        "SELECT x, x * 2, 'v' || x, NULL FROM t ORDER BY x",
        "SELECT COUNT(*), SUM(x), AVG(x), group_concat(x) FROM t",
        "SELECT typeof(x), x / 2.0, CAST(x AS TEXT), X'00' FROM t WHERE x > 1",
        "SELECT * FROM t WHERE x > 100",
    ]

    @Test("cached and uncached execution give identical results", arguments: queries)
    func cachedMatchesUncached(_ sql: String) throws {
        let cached = try database()
        let uncached = try database(capacity: 0)
        let viaCache = try allValues(cached, sql)
        let viaCacheAgain = try allValues(cached, sql)
        let viaPrepare = try cached.prepare(sql).query().map(\.values)
        let viaUncached = try allValues(uncached, sql)
        #expect(viaCache == viaCacheAgain)
        #expect(viaCache == viaPrepare)
        #expect(viaCache == viaUncached)
        #expect(cached.statementCacheStatistics.hits >= 1)
        #expect(uncached.statementCacheStatistics.hits == 0)
    }
}
