import Foundation
import SQLiteToolkit
import Testing

/// A dictionary literal of named arguments keeps its pairs in the order written and binds them by position when
/// they follow the parameters; in any other order it matches them by name. Either way it behaves as a dictionary:
/// the same values, the same errors, equality and hashing by content.
@Suite("Named argument literals")
struct NamedLiteralTests {
    private func database() throws -> Database {
        let db = try Database()
        try db.execute("CREATE TABLE t (a, b, c)")
        return db
    }

    private func rows(_ db: Database) throws -> [[DatabaseValue]] {
        try db.query("SELECT a, b, c FROM t ORDER BY rowid").map { row in
            try (0..<3).map { try row.value(at: $0, as: DatabaseValue.self) }
        }
    }

    @Test("a literal binds the same row in the parameters' order, in another order and with prefixes")
    func orders() throws {
        let db = try database()
        let sql = "INSERT INTO t (a, b, c) VALUES (:a, @b, $c)"
        try db.execute(sql, arguments: ["a": 1, "b": "two", "c": nil])
        try db.execute(sql, arguments: ["c": nil, "a": 1, "b": "two"])
        try db.execute(sql, arguments: [":a": 1, "@b": "two", "$c": nil])
        try db.execute(sql, arguments: ["$c": nil, "b": "two", ":a": 1])
        let row: [DatabaseValue] = [.integer(1), .text("two"), .null]
        #expect(try rows(db) == Array(repeating: row, count: 4))
    }

    @Test("a literal that does not match throws the dictionary's reasons and runs nothing")
    func mismatches() throws {
        let db = try database()
        let sql = "INSERT INTO t (a, b, c) VALUES (:a, :b, :c)"
        let missing = #expect(throws: DatabaseError.self) { try db.execute(sql, arguments: ["a": 1, "b": 2]) }
        #expect(missing?.reason == .missingArgumentNames([":c"]))
        let unknown = #expect(throws: DatabaseError.self) {
            try db.execute(sql, arguments: ["a": 1, "b": 2, "d": 4])
        }
        #expect(unknown?.reason == .unknownArgumentNames(["d"]))
        let extra = #expect(throws: DatabaseError.self) {
            try db.execute(sql, arguments: ["a": 1, "b": 2, "c": 3, "d": 4])
        }
        #expect(extra?.reason == .unknownArgumentNames(["d"]))
        let twice = #expect(throws: DatabaseError.self) {
            try db.execute(sql, arguments: ["a": 1, "b": 2, ":a": 3])
        }
        #expect(twice?.reason == .duplicateArgumentName("a"))
        let positional = #expect(throws: DatabaseError.self) {
            try db.execute("INSERT INTO t (a, b, c) VALUES (?, ?, ?)", arguments: ["a": 1, "b": 2, "c": 3])
        }
        #expect(positional?.reason == .positionalParameter(index: 1))
        #expect(try rows(db).isEmpty)
    }

    @Test("a key written twice keeps its last value, as in a dictionary")
    func repeatedKey() throws {
        let db = try database()
        let arguments: StatementArguments = ["a": 1, "b": 2, "a": 3, "c": 4]
        #expect(arguments.count == 3)
        #expect(arguments == StatementArguments(["a": 3, "b": 2, "c": 4]))
        try db.execute("INSERT INTO t (a, b, c) VALUES (:a, :b, :c)", arguments: arguments)
        #expect(try rows(db) == [[.integer(3), .integer(2), .integer(4)]])
    }

    @Test("literals compare and hash by content, whatever their order")
    func equality() {
        let written: StatementArguments = ["a": 1, "b": "two"]
        let reordered: StatementArguments = ["b": "two", "a": 1]
        let dictionary = StatementArguments(["a": 1, "b": "two"] as [String: (any DatabaseValueConvertible)?])
        #expect(written == reordered)
        #expect(written == dictionary)
        #expect(written.hashValue == reordered.hashValue)
        #expect(written.hashValue == dictionary.hashValue)
        #expect(Set([written, reordered, dictionary]).count == 1)
        #expect(written != ["a": 1, "b": "three"])
        #expect(written.description == "[a: 1, b: 'two']")
        #expect(reordered.description == written.description)
    }

    @Test("a date in a literal follows the connection's date storage, in order and out of order")
    func dates() throws {
        var configuration = Database.Configuration()
        configuration.dateStorage = .iso8601
        let db = try Database(configuration: configuration)
        try db.execute("CREATE TABLE t (id, d)")
        let date = Date(timeIntervalSince1970: 86_400)
        try db.execute("INSERT INTO t (id, d) VALUES (:id, :d)", arguments: ["id": 1, "d": date])
        try db.execute("INSERT INTO t (id, d) VALUES (:id, :d)", arguments: ["d": date, "id": 2])
        let matching = try db.queryValue(
            "SELECT count(*) FROM t WHERE d = strftime('%Y-%m-%dT%H:%M:%fZ', 86400, 'unixepoch')", as: Int.self)
        #expect(matching == 2)
    }
}
