import Foundation
import SQLiteBindings
import SQLiteToolkit
import Testing

@Suite("Queries: column access")
struct ColumnAccessTests {
    private func playerDatabase() throws -> Database {
        let db = try Database()
        try db.execute("CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INT, avatar BLOB)")
        try db.execute("INSERT INTO player (id, name, score, avatar) VALUES (1, 'Arthur', 100, X'0102')")
        return db
    }

    @Test("columns read by index and by name give the same values")
    func indexAndName() throws {
        let db = try playerDatabase()
        let rows = try db.query("SELECT id, name, score FROM player")
        let row = try #require(try rows.next())
        #expect(row.count == 3)
        #expect(try row.value(at: 0, as: Int.self) == 1)
        #expect(try row.value(named: "id", as: Int.self) == 1)
        #expect(try row.value(at: 1, as: String.self) == "Arthur")
        #expect(try row.value(named: "name", as: String.self) == "Arthur")
        #expect(try row.value(at: 2, as: Int.self) == 100)
        #expect(try row.value(named: "score", as: Int.self) == 100)
    }

    @Test("column names are matched case-insensitively", arguments: ["name", "NAME", "Name", "nAmE"])
    func caseInsensitive(_ name: String) throws {
        let db = try playerDatabase()
        let rows = try db.query("SELECT id, name AS Name FROM player")
        let row = try #require(try rows.next())
        #expect(try row.value(named: name, as: String.self) == "Arthur")
        #expect(try row.value(named: name, as: String?.self) == "Arthur")
    }

    @Test("with duplicate column names the leftmost column wins")
    func duplicateNames() throws {
        let db = try Database()
        let rows = try db.query("SELECT 1 AS a, 2 AS A, 3 AS a")
        let row = try #require(try rows.next())
        #expect(try row.value(named: "a", as: Int.self) == 1)
        #expect(try row.value(named: "A", as: Int.self) == 1)
        #expect(row.dictionary == ["a": .integer(1), "A": .integer(2)])
        #expect(row.values == [.integer(1), .integer(2), .integer(3)])

        let join = try db.query("SELECT * FROM (SELECT 'left' AS id) JOIN (SELECT 'right' AS id)")
        let joined = try #require(try join.next())
        #expect(try joined.value(named: "id", as: String.self) == "left")
        #expect(joined.dictionary == ["id": .text("left")])
    }

    @Test("names read in any order, row after row, find their columns (the predicted position may miss)")
    func namesInAnyOrder() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (a INT, b INT, c INT)")
        for row in 0..<4 { try db.execute("INSERT INTO t VALUES (?, ?, ?)", row * 10 + 1, row * 10 + 2, row * 10 + 3) }
        let orders: [[String]] = [["a", "b", "c"], ["c", "b", "a"], ["b", "b", "A", "c"], ["C", "a", "c", "a"]]
        let rows = try db.query("SELECT a, b, c, a AS a FROM t ORDER BY a")
        var rowNumber = 0
        while let row = try rows.next() {
            for name in orders[rowNumber] {
                let expected = rowNumber * 10 + ["a": 1, "b": 2, "c": 3][name.lowercased(), default: 0]
                #expect(try row.value(named: name, as: Int.self) == expected, "row \(rowNumber), column \(name)")
            }
            rowNumber += 1
        }
        #expect(rowNumber == 4)
    }

    @Test(
        "an unknown column name throws, for optional reads too",
        arguments: [
            { @Sendable (row: Row) throws in _ = try row.value(named: "missing", as: Int.self) },
            { @Sendable (row: Row) throws in _ = try row.value(named: "missing", as: Int?.self) },
            { @Sendable (row: Row) throws in _ = try row.value(named: "missing", as: DatabaseValue.self) },
            { @Sendable (row: Row) throws in _ = try row.value(named: "", as: String?.self) },
            { @Sendable (row: Row) throws in _ = try row.value(named: "nam", as: String?.self) },
        ] as [@Sendable (Row) throws -> Void]
    )
    func unknownName(_ read: @Sendable (Row) throws -> Void) throws {
        let db = try playerDatabase()
        let rows = try db.query("SELECT id, name FROM player")
        let row = try #require(try rows.next())
        let error = try #require(throws: DatabaseError.self) { try read(row) }
        #expect(error.extendedCode == .range)
        #expect(error.message.contains("no column named"))
        #expect(error.message.contains("name"))  // it lists the columns there are
        #expect(error.sql == "SELECT id, name FROM player")
    }

    @Test("a column index out of range throws", arguments: [-1, 2, 3, Int.max, Int.min])
    func indexOutOfRange(_ index: Int) throws {
        let db = try playerDatabase()
        let rows = try db.query("SELECT id, name FROM player")
        let row = try #require(try rows.next())
        let error = try #require(throws: DatabaseError.self) { try row.value(at: index, as: Int?.self) }
        #expect(error.extendedCode == .range)
        #expect(error.message.contains("\(index)"))
        #expect(throws: DatabaseError.self) { try row.value(at: index, as: String.self) }
        #expect(throws: DatabaseError.self) { try row.withUnsafeBytes(at: index) { $0.count } }
        #expect(row[index] == .null)
    }

    @Test("a row copies out as a dictionary with the exact column names, and as values in order")
    func dictionaryAndValues() throws {
        let db = try playerDatabase()
        let rows = try db.query(
            "SELECT id AS ID, name AS PlayerName, score, avatar, NULL AS Note, 1.5 AS x FROM player")
        let row = try #require(try rows.next())
        #expect(
            row.dictionary == [
                "ID": .integer(1), "PlayerName": .text("Arthur"), "score": .integer(100),
                "avatar": .blob(Data([1, 2])), "Note": .null, "x": .real(1.5),
            ])
        #expect(row.values == [.integer(1), .text("Arthur"), .integer(100), .blob(Data([1, 2])), .null, .real(1.5)])
        #expect(row[1] == .text("Arthur"))
        #expect(try db.queryRow("SELECT name AS Name FROM player") == ["Name": .text("Arthur")])
        #expect(try db.queryRow("SELECT name FROM player WHERE id = ?", 99) == nil)
    }

    @Test("withUnsafeBytes exposes a column's bytes without copying them into a value")
    func unsafeBytes() throws {
        let db = try playerDatabase()
        let rows = try db.query("SELECT avatar, name, NULL, X'', 42 FROM player")
        let row = try #require(try rows.next())
        #expect(try row.withUnsafeBytes(at: 0) { Array($0) } == [1, 2])
        #expect(try row.withUnsafeBytes(at: 1) { Array($0) } == Array("Arthur".utf8))
        #expect(try row.withUnsafeBytes(at: 2) { $0.count } == 0)
        #expect(try row.withUnsafeBytes(at: 3) { $0.count } == 0)
        #expect(try row.withUnsafeBytes(at: 4) { Array($0) } == Array("42".utf8))
        struct Stop: Error {}
        #expect(throws: Stop.self) { try row.withUnsafeBytes(at: 0) { _ in throw Stop() } }
    }

    @Test("withUnsafeBytes gives a UTF-16 database's text as UTF-8, its blobs as stored, and Latin-1 text as is")
    func unsafeBytesOfEncodings() throws {
        let db = try Database()
        try db.execute("PRAGMA encoding = 'UTF-16le'")
        try db.execute("CREATE TABLE t (a, b)")
        try db.execute("INSERT INTO t VALUES ('x\u{E9}\u{1F600}', X'6800')")
        let rows = try db.query("SELECT a, b FROM t")
        let row = try #require(try rows.next())
        #expect(try row.withUnsafeBytes(at: 0) { Array($0) } == Array("x\u{E9}\u{1F600}".utf8))
        #expect(try row.withUnsafeBytes(named: "b") { Array($0) } == [0x68, 0x00])
        // A UTF-8 database keeps bytes that are not UTF-8 as they are stored.
        let plain = try Database()
        try plain.executeScript(
            bytes: Array("CREATE TABLE t (a); INSERT INTO t VALUES ('caf".utf8) + [0xE9] + [0x27, 0x29])
        let storedRows = try plain.query("SELECT a FROM t")
        let stored = try #require(try storedRows.next())
        #expect(try stored.withUnsafeBytes(at: 0) { Array($0) } == Array("caf".utf8) + [0xE9])
    }

    @Test("queryValue returns the first column of the first row, or nil when there is no row")
    func queryValue() throws {
        let db = try playerDatabase()
        #expect(try db.queryValue("SELECT name FROM player WHERE id = ?", 1, as: String.self) == "Arthur")
        #expect(try db.queryValue("SELECT name FROM player WHERE id = ?", 2, as: String.self) == nil)
        #expect(try db.queryValue("SELECT NULL", as: String?.self) == .some(nil))
        #expect(throws: DatabaseError.self) { try db.queryValue("SELECT NULL", as: String.self) }
        #expect(db.openCursors == 0)
    }
}

@Suite("Queries: cursors")
struct CursorTests {
    @Test("next() after the last row returns nil every time and never runs the query again")
    func endIsSticky() throws {
        let db = try Database()
        try db.execute("CREATE TABLE log (x)")
        // Every run of this query inserts a row, so a second run would show in the count.
        let rows = try db.query("INSERT INTO log (x) VALUES (1), (2) RETURNING x")
        #expect(try rows.next()?.value(at: 0, as: Int.self) == 1)
        #expect(try rows.next()?.value(at: 0, as: Int.self) == 2)
        for _ in 0..<5 { #expect(try rows.next() == nil) }
        #expect(!rows.isOpen)
        #expect(try db.queryValue("SELECT COUNT(*) FROM log", as: Int.self) == 2)
        for _ in 0..<2 { #expect(try rows.next() == nil) }
        #expect(try db.queryValue("SELECT COUNT(*) FROM log", as: Int.self) == 2)
        #expect(db.openCursors == 0)
    }

    @Test("an empty result ends at once and stays ended")
    func emptyResult() throws {
        let db = try Database()
        let rows = try db.query("SELECT 1 WHERE 0")
        #expect(rows.isOpen)
        #expect(try rows.next() == nil)
        #expect(try rows.next() == nil)
        #expect(!rows.isOpen)
    }

    @Test("after an error, next() throws the same error every time")
    func errorIsSticky() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, x INTEGER)")
        try db.execute("INSERT INTO t (id, x) VALUES (1, 5), (2, ?), (3, 7)", Int64.min)
        let rows = try db.query("SELECT abs(x) FROM t ORDER BY id")
        #expect(try rows.next()?.value(at: 0, as: Int.self) == 5)
        let first = try #require(throws: DatabaseError.self) { try rows.next() }
        #expect(first.extendedCode == .error)
        #expect(first.message.contains("integer overflow"))
        #expect(first.sql == "SELECT abs(x) FROM t ORDER BY id")
        for _ in 0..<3 {
            let again = try #require(throws: DatabaseError.self) { try rows.next() }
            #expect(again == first)
        }
        #expect(!rows.isOpen)
        #expect(db.openCursors == 0)
        // The connection and the cached statement stay usable.
        #expect(try db.queryValue("SELECT abs(x) FROM t WHERE id = 3", as: Int.self) == 7)
    }

    @Test("forEach and map visit every remaining row in order")
    func forEachAndMap() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        try db.execute("INSERT INTO t (x) VALUES (1), (2), (3), (4)")
        #expect(try db.query("SELECT x FROM t ORDER BY x").map { try $0.value(at: 0, as: Int.self) } == [1, 2, 3, 4])
        var seen: [Int] = []
        let rows = try db.query("SELECT x FROM t ORDER BY x")
        _ = try rows.next()
        // swift-format-ignore: ReplaceForEachWithForLoop
        try rows.forEach { seen.append(try $0.value(named: "x")) }
        #expect(seen == [2, 3, 4])
        #expect(try rows.map { $0.count }.isEmpty)
        struct Stop: Error {}
        let stopped = try db.query("SELECT x FROM t ORDER BY x")
        #expect(throws: Stop.self) {
            // swift-format-ignore: ReplaceForEachWithForLoop
            try stopped.forEach { _ in throw Stop() }
        }
    }

    @Test("closing a cursor early stops it and returns its statement")
    func closeEarly() throws {
        let db = try Database()
        let rows = try db.query(
            "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s LIMIT 100) SELECT n FROM s")
        #expect(try rows.next() != nil)
        #expect(db.openCursors == 1)
        rows.close()
        rows.close()
        #expect(!rows.isOpen)
        #expect(db.openCursors == 0)
        #expect(try rows.next() == nil)
    }

    @Test("a query not finished when its cursor is dropped leaves no lock behind")
    func droppedCursorReleasesLock() throws {
        try TemporaryFile.withDatabasePath { path in try droppedCursorReleasesLock(path: path) }
    }

    private func droppedCursorReleasesLock(path: String) throws {
        let reader = try Database(path: path)
        try reader.execute("CREATE TABLE t (x)")
        try reader.execute("INSERT INTO t (x) VALUES (1), (2), (3)")
        var configuration = Database.Configuration()
        configuration.busyMode = .immediateError
        let writer = try Database(path: path, configuration: configuration)

        do {
            let rows = try reader.query("SELECT x FROM t")
            #expect(try rows.next() != nil)
            // While the read is under way, its shared lock keeps the writer from committing.
            let error = try #require(throws: DatabaseError.self) {
                try writer.execute("INSERT INTO t (x) VALUES (4)")
            }
            #expect(error.isBusy)
            #expect(reader.openCursors == 1)
            withExtendedLifetime(rows) {}
        }
        // The cursor is gone without reaching its end.
        #expect(reader.openCursors == 0)
        #expect(!reader.isInTransaction)
        try writer.execute("INSERT INTO t (x) VALUES (4)")
        #expect(try reader.queryValue("SELECT COUNT(*) FROM t", as: Int.self) == 4)
    }

    @Test("a cursor's statement with new arguments gives new rows")
    func rerunWithArguments() throws {
        let db = try Database()
        for limit in [1, 3, 0, 2] {
            let sql =
                "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s LIMIT 100) SELECT n FROM s WHERE n <= ?"
            let values = try db.query(sql, limit).map {
                try $0.value(at: 0, as: Int.self)
            }
            #expect(values == Array(0..<limit).map { $0 + 1 })
        }
    }
}

@Suite("Queries: one statement at a time")
struct SingleStatementTests {
    @Test(
        "SQL holding a second statement throws misuse and runs nothing",
        arguments: [
            "INSERT INTO t (x) VALUES (1); INSERT INTO t (x) VALUES (2)",
            "INSERT INTO t (x) VALUES (1);INSERT INTO t (x) VALUES (2);",
            "INSERT INTO t (x) VALUES (1); -- comment\nINSERT INTO t (x) VALUES (2)",
            "INSERT INTO t (x) VALUES (1); /* comment */ INSERT INTO t (x) VALUES (2)",
            "INSERT INTO t (x) VALUES (1); DROP TABLE t",
            "INSERT INTO t (x) VALUES (1); garbage",
        ]
    )
    func secondStatementThrows(_ sql: String) throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        let attempts: [(String, () throws -> Void)] = [
            ("execute", { try db.execute(sql) }),
            ("execute(arguments:)", { try db.execute(sql, arguments: []) }),
            ("query", { _ = try db.query(sql) }),
            ("queryValue", { _ = try db.queryValue(sql, as: Int.self) }),
            ("prepare", { _ = try db.prepare(sql) }),
        ]
        for (name, attempt) in attempts {
            do {
                try attempt()
                Issue.record("\(name) accepted two statements")
            } catch let error as DatabaseError {
                #expect(error.isMisuse, "\(name)")
                #expect(error.message.contains("more than one statement"), "\(name)")
                #expect(error.sql == sql, "\(name)")
            }
        }
        #expect(try db.queryValue("SELECT COUNT(*) FROM t", as: Int.self) == 0)
    }

    @Test(
        "a trailing semicolon, white space and comments after the statement are fine",
        arguments: [
            "INSERT INTO t (x) VALUES (1)", "INSERT INTO t (x) VALUES (1);", "INSERT INTO t (x) VALUES (1) ;  \n\t",
            "INSERT INTO t (x) VALUES (1);;", "INSERT INTO t (x) VALUES (1); -- done",
            "INSERT INTO t (x) VALUES (1) -- done", "INSERT INTO t (x) VALUES (1); /* done */",
            "INSERT INTO t (x) VALUES (1); -- one\n/* two */ ; -- three\n",
            "  -- leading comment\n INSERT INTO t (x) VALUES (1)",
        ]
    )
    func trailingTextIsFine(_ sql: String) throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        try db.execute(sql)
        try db.prepare(sql).execute()
        #expect(try db.queryValue("SELECT COUNT(*) FROM t", as: Int.self) == 2)
    }

    @Test("SQL with no statement at all throws misuse", arguments: ["", "  ", ";", "-- only a comment"])
    func noStatement(_ sql: String) throws {
        let db = try Database()
        let error = try #require(throws: DatabaseError.self) { try db.execute(sql) }
        #expect(error.isMisuse)
        #expect(throws: DatabaseError.self) { try db.prepare(sql) }
    }

    @Test("execute runs a row-returning statement to completion and discards its rows")
    func executeDiscardsRows() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, x INTEGER)")
        try db.execute("INSERT INTO t (id, x) VALUES (1, 1), (2, 2), (3, 3) RETURNING id")
        #expect(try db.queryValue("SELECT COUNT(*) FROM t", as: Int.self) == 3)
        try db.execute("SELECT * FROM t")
        try db.execute("PRAGMA table_info(t)")
        #expect(db.openCursors == 0)
        #expect(!db.isInTransaction)
        // A failure on the last row proves every row was stepped through.
        try db.execute("UPDATE t SET x = ? WHERE id = 3", Int64.min)
        let error = try #require(throws: DatabaseError.self) { try db.execute("SELECT abs(x) FROM t ORDER BY id") }
        #expect(error.message.contains("integer overflow"))
    }
}
