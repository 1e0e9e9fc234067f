import Foundation
import SQLiteToolkit
import Testing

/// SQLite re-prepares a statement inside `sqlite3_step` after a schema change; the column count, the names and the
/// name lookup follow it.
@Suite("Schema changes")
struct SchemaChangeTests {
    @Test("a cached SELECT * sees a column added since it was prepared", arguments: [64, 0])
    func cachedSelectStar(cacheCapacity: Int) throws {
        var configuration = Database.Configuration()
        configuration.statementCacheCapacity = cacheCapacity
        let db = try Database(configuration: configuration)
        try db.execute("CREATE TABLE t (a)")
        try db.execute("INSERT INTO t VALUES (1)")
        let before = try #require(try db.queryRow("SELECT * FROM t"))
        #expect(before == ["a": .integer(1)])
        try db.execute("ALTER TABLE t ADD COLUMN b DEFAULT 2")
        let rows = try db.query("SELECT * FROM t")
        let row = try #require(try rows.next())
        #expect(row.count == 2)
        #expect(rows.statement.columnNames == ["a", "b"])
        #expect(try row.value(named: "b", as: Int.self) == 2)
        #expect(try row.value(at: 1, as: Int.self) == 2)
    }

    @Test("a statement kept by the user follows the schema too")
    func keptStatement() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (a)")
        try db.execute("INSERT INTO t VALUES (1)")
        let select = try db.prepare("SELECT * FROM t")
        #expect(select.columnCount == 1)
        #expect(try select.query().map { try $0.value(named: "a", as: Int.self) } == [1])
        try db.execute("ALTER TABLE t ADD COLUMN b DEFAULT 'x'")
        #expect(try select.query().map { try $0.value(named: "b", as: String.self) } == ["x"])
        #expect(select.columnCount == 2)
        // Through step() and currentRow as well.
        try db.execute("ALTER TABLE t ADD COLUMN c DEFAULT 3")
        try select.reset()
        #expect(try select.step())
        #expect(try select.currentRow.value(named: "c", as: Int.self) == 3)
        try select.reset()
        #expect(try db.queryValue("SELECT * FROM t", as: Int.self) == 1)
    }

    @Test("queryValue reads column 0 across a re-preparation; the statement's next cursor sees the new columns")
    func queryValueThenCursor() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (a)")
        try db.execute("INSERT INTO t VALUES (1)")
        let sql = "SELECT * FROM t"
        #expect(try db.queryValue(sql, as: Int.self) == 1)
        try db.execute("ALTER TABLE t ADD COLUMN b DEFAULT 2")
        // queryValue steps without refreshing the columns (it reads only column 0) ...
        #expect(try db.queryValue(sql, as: Int.self) == 1)
        #expect(try db.queryValue(sql, as: Int.self) == 1)
        // ... so the cursor that runs the same statement next refreshes them.
        let rows = try db.query(sql)
        let row = try #require(try rows.next())
        #expect(row.count == 2)
        #expect(try row.value(named: "b", as: Int.self) == 2)
        rows.close()
        #expect(db.statementCacheStatistics.misses == 4)  // the first SELECT, and each of the three other statements
    }

    @Test("column names and count are right before the first row")
    func namesBeforeFirstRow() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (a, b)")
        let rows = try db.query("SELECT a, b AS second FROM t")
        #expect(rows.statement.columnCount == 2)
        #expect(rows.statement.columnNames == ["a", "second"])
        #expect(try rows.statement.columnIndex(forName: "SECOND") == 1)
        #expect(try rows.statement.columnIndex(forName: "missing") == nil)
        #expect(try rows.next() == nil)
    }

    @Test("the bytes of a column can be read by name without copying")
    func bytesByName() throws {
        let db = try Database()
        let rows = try db.query("SELECT x'0102' AS data, NULL AS absent")
        let row = try #require(try rows.next())
        #expect(try row.withUnsafeBytes(named: "DATA") { Array($0) } == [1, 2])
        #expect(try row.withUnsafeBytes(named: "absent") { $0.count } == 0)
        let error = #expect(throws: DatabaseError.self) { try row.withUnsafeBytes(named: "nope") { _ in } }
        #expect(error?.reason == .columnNotFound("nope"))
    }

    @Test("connections opened on many threads at once all open (sqlite3_initialize runs once)")
    func concurrentFirstOpens() async throws {
        let opened = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask { (try? Database().queryValue("SELECT 1", as: Int.self)) == 1 }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(opened == 8)
    }
}
