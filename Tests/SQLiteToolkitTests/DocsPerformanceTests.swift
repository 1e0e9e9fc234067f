import Foundation
import SQLiteToolkit
import Testing

/// The samples of the Performance article (Sources/SQLiteToolkit/SQLiteToolkit.docc/Performance.md), line for
/// line: `DocsSampleTests` checks that every line of the article's samples appears here. Nothing is timed: the
/// tests check that each fast path computes what the slow one does.
@Suite("Docs: Performance")
struct DocsPerformanceTests {
    func makeTable() throws -> Database {
        let db = try Database()
        try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, price INT, picture BLOB)")
        return db
    }

    @Test("bulk inserts: one transaction, one prepared statement, positional or in-order named arguments")
    func bulkInsert() throws {
        let db = try makeTable()
        let items = (1...1000).map { ("item \($0)", $0) }
        try db.transaction { db in
            let insert = try db.prepare("INSERT INTO item (name, price) VALUES (?, ?)")
            for (name, price) in items {
                try insert.execute(name, price)  // no dictionary, no boxing: each value binds directly
            }
        }
        try db.transaction { db in
            let insert = try db.prepare("INSERT INTO item (name, price) VALUES (:name, :price)")
            for (name, price) in items {
                try insert.execute(named: ("name", name), ("price", price))  // pairs in order: no hashing
            }
        }
        #expect(try db.queryValue("SELECT count(*) FROM item", as: Int.self) == 2000)
        #expect(try db.queryValue("SELECT sum(price) FROM item", as: Int.self) == 2 * 500_500)
    }

    @Test("reads: by index, or a name resolved once; bytes without a copy")
    func reads() throws {
        let db = try makeTable()
        try db.execute("INSERT INTO item (name, price, picture) VALUES ('a', 1, x'0102'), ('b', 2, x'030405')")

        var total = 0
        let rows = try db.query("SELECT name, price FROM item")
        let price = try rows.statement.columnIndex(forName: "price") ?? 1  // once, not once per row
        while let row = try rows.next() {
            total += try row.value(at: price) as Int
        }
        #expect(total == 3)

        var bytes = 0
        let pictures = try db.query("SELECT picture FROM item")
        while let row = try pictures.next() {
            bytes += try row.withUnsafeBytes(at: 0) { $0.count }  // no Data, no copy
        }
        #expect(bytes == 5)
    }

    @Test("the hottest loops step a prepared statement and read its current row")
    func steppedReads() throws {
        let db = try makeTable()
        try db.execute("INSERT INTO item (name, price) VALUES ('a', 1), ('b', 2), ('c', 4)")

        var total = 0
        let select = try db.prepare("SELECT price FROM item")
        while try select.step() {
            total += try select.currentRow.value(at: 0) as Int  // no cursor, no reference counting per row
        }
        try select.reset()
        #expect(total == 7)
        // Reset, it runs again from the first row.
        #expect(try select.step())
        #expect(try select.currentRow.value(at: 0) as Int == 1)
    }

    @Test("a queue: one access for a batch, not one per row, in async code")
    func queueBatch() async throws {
        let queue = try DatabaseQueue()
        try await queue.write { db in
            try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, price INT, picture BLOB)")
        }
        let items = (1...100).map { ("item \($0)", $0) }
        try await queue.write { db in  // one transaction, one lock, one commit
            for (name, price) in items {
                try db.execute("INSERT INTO item (name, price) VALUES (?, ?)", name, price)
            }
        }
        #expect(
            try await queue.read { db in try db.queryValue("SELECT sum(price) FROM item", as: Int.self) } == 5050)
    }
}
