import Foundation
import SQLiteToolkit
import Testing

/// Reading by column name takes an inlined path when the name is the one the row was read by last time plus one
/// column; these tests mix short and long names (a long one lives in its own storage), orders and spellings.
@Suite("Reading columns by name")
struct ReadByNameTests {
    static let longName = "a_column_name_longer_than_fifteen_bytes"

    @Test("short and long names, in order, out of order, repeated, and in other cases, over many rows")
    func mixedLookups() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (a INTEGER, \(Self.longName) INTEGER, b INTEGER, A2 INTEGER)")
        for row in 0..<20 { try db.execute("INSERT INTO t VALUES (?, ?, ?, ?)", row, row * 10, row * 100, -row) }
        let rows = try db.query("SELECT a, \(Self.longName), b, A2 AS dup, a AS A FROM t ORDER BY a")
        // A long name built at run time: same spelling, other storage than the statement's.
        let longCopy = String(Self.longName.reversed().reversed())
        var row = 0
        while let current = try rows.next() {
            #expect(try current.value(named: "a", as: Int.self) == row)
            #expect(try current.value(named: Self.longName, as: Int.self) == row * 10)
            #expect(try current.value(named: "b", as: Int.self) == row * 100)
            #expect(try current.value(named: "dup", as: Int.self) == -row)
            // Out of order, another case, a run-time copy of the long name.
            #expect(try current.value(named: "B", as: Int.self) == row * 100)
            #expect(try current.value(named: longCopy, as: Int.self) == row * 10)
            #expect(try current.value(named: "DUP", as: Int.self) == -row)
            // Two columns spelled "a" and "A": the leftmost wins, whichever spelling is asked.
            #expect(try current.value(named: "A", as: Int.self) == row)
            #expect(try current.value(named: "a", as: Int.self) == row)
            let error = #expect(throws: DatabaseError.self) { try current.value(named: "missing", as: Int.self) }
            #expect(error?.reason == .columnNotFound("missing"))
            row += 1
        }
        #expect(row == 20)
    }

    @Test("after a schema change, names read by the same cached statement follow the new columns")
    func afterSchemaChange() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (\(Self.longName) INTEGER)")
        try db.execute("INSERT INTO t VALUES (1)")
        let before = try db.query("SELECT * FROM t")
        #expect(try before.next()?.value(named: Self.longName, as: Int.self) == 1)
        before.close()
        try db.execute("ALTER TABLE t ADD COLUMN b TEXT DEFAULT 'x'")
        let rows = try db.query("SELECT * FROM t")
        let row = try #require(try rows.next())
        #expect(try row.value(named: "b", as: String.self) == "x")
        #expect(try row.value(named: Self.longName, as: Int.self) == 1)
    }

    @Test("through a prepared statement's current row; after the connection closed, the name expected next throws")
    func throughStatementThenClosed() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (a INTEGER, \(Self.longName) INTEGER)")
        try db.execute("INSERT INTO t VALUES (1, 2), (3, 4)")
        let select = try db.prepare("SELECT a, \(Self.longName) FROM t")
        var sums: [Int] = []
        while try select.step() {
            let row = select.currentRow
            sums.append(try row.value(named: "a", as: Int.self) + row.value(named: Self.longName, as: Int.self))
        }
        #expect(sums == [3, 7])
        try select.reset()
        #expect(try select.step())
        #expect(try select.currentRow.value(named: "a", as: Int.self) == 1)
        // The inlined lookup now tries the long name first: closing must make that read throw, not reach the
        // finalized statement.
        db.close()
        let error = #expect(throws: DatabaseError.self) {
            try select.currentRow.value(named: Self.longName, as: Int.self)
        }
        #expect(error?.reason == .connectionClosed)
        #expect(throws: DatabaseError.self) { try select.currentRow.value(named: "a", as: Int.self) }
    }
}
