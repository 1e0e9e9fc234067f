import Foundation
import SQLiteToolkit
import Testing

/// Swift arrays bound to `carray()`: every element type, empty arrays, `IN` lookups checked against a filter in
/// Swift, SQL interpolation, StatementArguments, rebinding, and the errors for what cannot be bound.
@Suite("Arrays bound to carray()")
struct CArrayTests {
    private func values<T: DatabaseValueConvertible>(
        _ db: Database, _ array: CArray, as type: T.Type
    ) throws -> [T] {
        try db.query("SELECT value FROM carray(?)", array).map { try $0.value(at: 0, as: T.self) }
    }

    @Test("each element type comes back from carray() as bound, in order")
    func everyType() throws {
        let db = try Database()
        #expect(try values(db, CArray([Int64.min, -1, 0, 42, Int64.max]), as: Int64.self) == [.min, -1, 0, 42, .max])
        #expect(try values(db, CArray([3, 1, 2] as [Int]), as: Int.self) == [3, 1, 2])
        #expect(try values(db, CArray([Int32.min, 7, Int32.max]), as: Int32.self) == [.min, 7, .max])
        #expect(try values(db, CArray([0.5, -2.25, 1e300]), as: Double.self) == [0.5, -2.25, 1e300])
        #expect(try values(db, CArray(["", "a", "é€😀", "x y"]), as: String.self) == ["", "a", "é€😀", "x y"])
        let blobs: [[UInt8]] = [[], [0], [0xFF, 0x00, 0x7F], Array(repeating: 9, count: 1000)]
        #expect(try values(db, CArray(blobs), as: [UInt8].self) == blobs)
        #expect(try values(db, CArray(blobs.map { Data($0) }), as: Data.self) == blobs.map { Data($0) })
        // A zero-length BLOB is not NULL.
        let firstType = try db.queryValue("SELECT typeof(value) FROM carray(?) LIMIT 1", CArray(blobs), as: String.self)
        #expect(firstType == "blob")
    }

    @Test("an empty array of any type yields no row")
    func emptyArrays() throws {
        let db = try Database()
        let empties = [
            CArray([Int64]()), CArray([Int32]()), CArray([Double]()), CArray([String]()), CArray([[UInt8]]()),
        ]
        for array in empties {
            #expect(try db.queryValue("SELECT count(*) FROM carray(?)", array, as: Int.self) == 0)
        }
    }

    @Test("IN carray(?) with 10,000 random ids finds exactly the rows a filter in Swift finds", arguments: [1, 2, 3])
    func inLookupAgainstSwiftFilter(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let db = try Database()
        try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT)")
        try db.transaction { db in
            for id in 1...20_000 { try db.execute("INSERT INTO item VALUES (?, ?)", id, "item \(id)") }
        }
        let ids = (0..<10_000).map { _ in Int64.random(in: -100...30_000, using: &random) }
        let found = try db.query("SELECT id FROM item WHERE id IN carray(?) ORDER BY id", CArray(ids)).map {
            try $0.value(at: 0, as: Int64.self)
        }
        #expect(found == Set(ids).filter { (1...20_000).contains($0) }.sorted(), "seed \(seed)")
        let names = ["item 5", "item 19999", "nothing", "item 5"]
        let byName = try db.query("SELECT id FROM item WHERE name IN carray(?) ORDER BY id", CArray(names)).map {
            try $0.value(at: 0, as: Int64.self)
        }
        #expect(byName == [5, 19_999])
    }

    @Test("SQL interpolation binds arrays after carray( and refuses them anywhere else")
    func interpolation() throws {
        let db = try Database()
        try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, score REAL, name TEXT, data BLOB)")
        try db.execute("INSERT INTO item VALUES (1, 0.5, 'a', x'01'), (2, 1.5, 'b', x'02'), (3, 2.5, 'c', x'03')")
        let ids: [Int64] = [3, 1]
        let ints: [Int] = [2]
        let small: [Int32] = [1, 2]
        let scores = [2.5]
        let names = ["b", "c"]
        let data = [Data([1])]
        func found(_ sql: SQL) throws -> [Int] {
            try db.query(sql: sql).map { try $0.value(at: 0, as: Int.self) }
        }
        #expect(try found("SELECT id FROM item WHERE id IN carray(\(ids)) ORDER BY id") == [1, 3])
        #expect(try found("SELECT id FROM item WHERE id IN CARRAY ( \(ints) )") == [2])
        #expect(try found("SELECT id FROM item WHERE id IN carray(\(small)) ORDER BY id") == [1, 2])
        #expect(try found("SELECT id FROM item WHERE score IN carray(\(scores))") == [3])
        #expect(try found("SELECT id FROM item WHERE name IN carray(\(names)) ORDER BY id") == [2, 3])
        #expect(try found("SELECT id FROM item WHERE data IN carray(\(data))") == [1])
        #expect(try found("SELECT id FROM item WHERE id IN carray(\(CArray(ids))) AND name = \("c")") == [3])
        // Anywhere else SQL would read NULL and find nothing: it throws instead.
        let error = #expect(throws: DatabaseError.self) { try found("SELECT id FROM item WHERE id = \(ids)") }
        #expect(error?.reason == .valueMismatch)
        #expect(error?.message.contains("carray()") == true)
    }

    @Test("StatementArguments hold an array by position; a named one throws before anything runs")
    func statementArguments() throws {
        let db = try Database()
        try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY)")
        try db.execute("INSERT INTO item VALUES (1), (2), (3)")
        let positional: StatementArguments = [CArray([Int64(1), 3]), 2]
        #expect(
            try db.query("SELECT id FROM item WHERE id IN carray(?) OR id = ? ORDER BY id", arguments: positional)
                .map { try $0.value(at: 0, as: Int.self) } == [1, 2, 3])
        let named: StatementArguments = ["ids": CArray([Int64(1)])]
        let error = #expect(throws: DatabaseError.self) {
            _ = try db.query("SELECT id FROM item WHERE id IN carray(:ids)", arguments: named).map { $0 }
        }
        #expect(error?.reason == .valueMismatch)
        #expect(positional != [CArray([Int64(1), 4]), 2])
    }

    @Test("a statement binds one array, then another; SQLite copied each, so changing it later changes nothing")
    func rebindAndCopy() throws {
        let db = try Database()
        let statement = try db.prepare("SELECT group_concat(value, ',') FROM carray(?)")
        var ids: [Int64] = [1, 2, 3]
        try statement.bind(CArray(ids))
        ids[0] = 99
        #expect(try statement.step())
        #expect(try statement.currentRow.value(at: 0, as: String.self) == "1,2,3")
        try statement.reset()
        try statement.bind(CArray(ids))
        #expect(try statement.step())
        #expect(try statement.currentRow.value(at: 0, as: String.self) == "99,2,3")
    }

    @Test("text holding a NUL character throws embeddedNUL, naming the element, and binds nothing")
    func nulInText() throws {
        let db = try Database()
        let error = #expect(throws: DatabaseError.self) {
            _ = try db.query("SELECT value FROM carray(?)", CArray(["ok", "a\u{0}b"])).map { $0 }
        }
        #expect(error?.reason == .embeddedNUL(offset: 1))
        #expect(error?.message.contains("element 1") == true)
    }
}
