import Foundation
import SQLiteBindings
import SQLiteToolkit
import Testing

@Suite("Prepared statements")
struct StatementTests {
    @Test("bind, step, reset and clearBindings: bindings survive a reset and are NULL after clearing")
    func bindStepResetClear() throws {
        let db = try Database()
        let statement = try db.prepare("SELECT ?, ?")
        try statement.bind(1, "one")
        #expect(try statement.step())
        #expect(statement.currentRow.values == [1, "one"])
        #expect(try statement.currentRow.value(at: 1, as: String.self) == "one")
        #expect(try !statement.step())
        try statement.reset()
        #expect(try statement.step())
        #expect(statement.currentRow.values == [1, "one"])
        try statement.reset()
        try statement.clearBindings()
        #expect(try statement.step())
        #expect(statement.currentRow.values == [.null, .null])
        try statement.reset()
        #expect(try statement.query(2, Data([9])).map(\.values) == [[2, .blob(Data([9]))]])
    }

    @Test("a statement re-runs with new arguments")
    func rerun() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
        let insert = try db.prepare("INSERT INTO t (id, name) VALUES (?, ?)")
        for (id, name) in [(1, "a"), (2, "b"), (3, "c")] {
            try insert.execute(id, name)
            #expect(db.changes == 1)
            #expect(db.lastInsertRowID == Int64(id))
        }
        try insert.execute(arguments: [4, "d"])
        let select = try db.prepare("SELECT name FROM t WHERE id >= ? ORDER BY id")
        #expect(try select.query(3).map { try $0.value(at: 0, as: String.self) } == ["c", "d"])
        #expect(try select.query(1).map { try $0.value(at: 0, as: String.self) } == ["a", "b", "c", "d"])
        #expect(try select.query(arguments: [5]).map { try $0.value(at: 0, as: String.self) }.isEmpty)
    }

    @Test("a failed step reports its error, and the statement runs again after a reset")
    func failedStepThenRerun() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x UNIQUE)")
        let insert = try db.prepare("INSERT INTO t (x) VALUES (?)")
        try insert.execute(1)
        let error = try #require(throws: DatabaseError.self) { try insert.execute(1) }
        #expect(error.extendedCode == .constraintUnique)
        try insert.execute(2)
        try insert.bind(3)
        #expect(try !insert.step())
        try insert.reset()
        try insert.bind(3)
        let stepError = try #require(throws: DatabaseError.self) { try insert.step() }
        #expect(stepError.extendedCode == .constraintUnique)
        // reset() after a failed step has nothing left to report: the failure was thrown by step().
        try insert.reset()
        try insert.bind(4)
        #expect(try !insert.step())
        #expect(try db.queryValue("SELECT group_concat(x) FROM t", as: String.self) == "1,2,3,4")
    }

    @Test("expandedSQL shows the bound values as SQL literals")
    func expandedSQL() throws {
        let db = try Database()
        let statement = try db.prepare("SELECT ?, ?, ?, :name")
        try statement.bind([1, "it's", nil, 2.5])
        #expect(statement.expandedSQL == "SELECT 1, 'it''s', NULL, 2.5")
        #expect(statement.sql == "SELECT ?, ?, ?, :name")
    }

    @Test(
        "isReadOnly tells reads from writes",
        arguments: [
            ("SELECT * FROM t", true), ("SELECT 1", true), ("WITH c AS (SELECT 1) SELECT * FROM c", true),
            ("INSERT INTO t (x) VALUES (1)", false), ("UPDATE t SET x = 1", false), ("DELETE FROM t", false),
            ("CREATE TABLE u (y)", false), ("DROP TABLE t", false), ("BEGIN", true), ("PRAGMA user_version = 3", false),
        ]
    )
    func isReadOnly(_ sql: String, expected: Bool) throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        #expect(try db.prepare(sql).isReadOnly == expected)
    }

    @Test("column metadata: names, count, declared types and parameter count")
    func columnMetadata() throws {
        let db = try Database()
        try db.execute(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL, photo BLOB, score real, misc, label VarChar(10))"
        )
        let select = try db.prepare(
            "SELECT id, name AS Title, photo, score, misc, 1 + 1 AS two, label FROM t WHERE id = ?")
        #expect(select.columnCount == 7)
        #expect(select.columnNames == ["id", "Title", "photo", "score", "misc", "two", "label"])
        #expect(select.parameterCount == 1)
        #expect(try select.declaredType(ofColumn: 0) == "INTEGER")
        #expect(try select.declaredType(ofColumn: 1) == "TEXT")
        #expect(try select.declaredType(ofColumn: 2) == "BLOB")
        // SQLite gives the standard type names (INT, INTEGER, REAL, TEXT, BLOB, ANY) in upper case, others as written.
        #expect(try select.declaredType(ofColumn: 3) == "REAL")
        #expect(try select.declaredType(ofColumn: 4) == nil)
        #expect(try select.declaredType(ofColumn: 5) == nil)
        #expect(try select.declaredType(ofColumn: 6) == "VarChar(10)")
        // An aliased column still names its origin; an expression has none.
        let origin = try select.origin(ofColumn: 1)
        #expect(origin.schema == "main" && origin.table == "t" && origin.column == "name")
        let expression = try select.origin(ofColumn: 5)
        #expect(expression.schema == nil && expression.table == nil && expression.column == nil)
        for index in [-1, 7] {
            let error = try #require(throws: DatabaseError.self) { try select.declaredType(ofColumn: index) }
            #expect(error.extendedCode == .range)
        }
        let insert = try db.prepare("INSERT INTO t (id, name) VALUES (?, :name)")
        #expect(insert.columnCount == 0)
        #expect(insert.columnNames.isEmpty)
        #expect(insert.parameterCount == 2)
        #expect(try db.prepare("SELECT ?, :a, ?5, @b, $c, :a").parameterCount == 7)
    }

    @Test("a statement with an open cursor cannot be run again until the cursor ends")
    func busyStatement() throws {
        let db = try Database()
        let statement = try db.prepare("SELECT 1 UNION ALL SELECT 2")
        let rows = try statement.query()
        #expect(try rows.next()?.value(at: 0, as: Int.self) == 1)
        let second = try #require(throws: DatabaseError.self) { try statement.query() }
        #expect(second.isMisuse)
        let execute = try #require(throws: DatabaseError.self) { try statement.execute() }
        #expect(execute.isMisuse)
        #expect(try rows.next()?.value(at: 0, as: Int.self) == 2)
        #expect(try rows.next() == nil)
        #expect(try statement.query().map { try $0.value(at: 0, as: Int.self) } == [1, 2])
    }

    @Test(
        "a statement used after its database is closed throws misuse",
        arguments: [
            ("step", { @Sendable (statement: Statement) throws in try statement.step() }),
            ("bind", { @Sendable (statement: Statement) throws in try statement.bind(1) }),
            ("bind arguments", { @Sendable (statement: Statement) throws in try statement.bind([1]) }),
            ("reset", { @Sendable (statement: Statement) throws in try statement.reset() }),
            ("clearBindings", { @Sendable (statement: Statement) throws in try statement.clearBindings() }),
            ("execute", { @Sendable (statement: Statement) throws in try statement.execute(1) }),
            ("execute arguments", { @Sendable (statement: Statement) throws in try statement.execute(arguments: [1]) }),
            ("query", { @Sendable (statement: Statement) throws in _ = try statement.query(1) }),
            (
                "declaredType",
                { @Sendable (statement: Statement) throws in _ = try statement.declaredType(ofColumn: 0) }
            ),
        ] as [(String, @Sendable (Statement) throws -> Void)]
    )
    func useAfterClose(_ name: String, use: @Sendable (Statement) throws -> Void) throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x INTEGER)")
        let statement = try db.prepare("SELECT x FROM t WHERE x = ?")
        db.close()
        #expect(statement.isFinalized)
        let error = try #require(throws: DatabaseError.self) { try use(statement) }
        #expect(error.isMisuse)
        #expect(error.sql == "SELECT x FROM t WHERE x = ?")
    }

    @Test("a finalized statement's metadata stays safe to read")
    func metadataAfterClose() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x INTEGER)")
        let statement = try db.prepare("SELECT x AS value FROM t WHERE x = ?")
        try statement.bind(5)
        db.close()
        #expect(statement.sql == "SELECT x AS value FROM t WHERE x = ?")
        #expect(statement.columnCount == 1)
        #expect(statement.parameterCount == 1)
        #expect(statement.columnNames == ["value"])
        #expect(statement.isReadOnly)
        #expect(statement.expandedSQL == nil)
    }

    @Test("a cursor open when the database closes throws misuse, and so do its rows")
    func cursorAfterClose() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x INTEGER)")
        try db.execute("INSERT INTO t (x) VALUES (1), (2)")
        let rows = try db.query("SELECT x FROM t")
        let row = try #require(try rows.next())
        db.close()
        let error = try #require(throws: DatabaseError.self) { try rows.next() }
        #expect(error.isMisuse)
        let again = try #require(throws: DatabaseError.self) { try rows.next() }
        #expect(again == error)
        let byIndex = try #require(throws: DatabaseError.self) { try row.value(at: 0, as: Int.self) }
        #expect(byIndex.isMisuse)
        let byName = try #require(throws: DatabaseError.self) { try row.value(named: "x", as: Int?.self) }
        #expect(byName.isMisuse)
        let bytes = try #require(throws: DatabaseError.self) { try row.withUnsafeBytes(at: 0) { $0.count } }
        #expect(bytes.isMisuse)
        #expect(row[0] == .null)
        #expect(row.values == [.null])
        rows.close()
    }

    @Test("the connection's API after close throws misuse naming the closed database")
    func databaseAfterClose() throws {
        let db = try Database()
        db.close()
        db.close()
        #expect(!db.isOpen)
        let attempts: [(String, () throws -> Void)] = [
            ("execute", { try db.execute("SELECT 1") }),
            ("execute arguments", { try db.execute("SELECT ?", arguments: [1]) }),
            ("query", { _ = try db.query("SELECT 1") }),
            ("queryValue", { _ = try db.queryValue("SELECT 1", as: Int.self) }),
            ("prepare", { _ = try db.prepare("SELECT 1") }),
            ("script", { try db.executeScript("SELECT 1; SELECT 2") }),
        ]
        for (name, attempt) in attempts {
            let error = try #require(throws: DatabaseError.self, "\(name)") { try attempt() }
            #expect(error.isMisuse, "\(name)")
            #expect(error.message.contains("closed"), "\(name)")
        }
    }
}
