import Foundation
import SQLiteToolkit

/// The `id-lookup` benchmark through SQLiteToolkit: the rows of a list of ids, through `carray()` and through an
/// expanded `IN (?, ?, …)`.
public final class ToolkitIDLookup {
    private let db: Database

    /// Opens an in-memory database with `rows` rows `item (id, name)`.
    public init(rows: Int) throws {
        db = try Database()
        try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        try db.transaction { db in
            let insert = try db.prepare("INSERT INTO item (id, name) VALUES (?, ?)")
            for id in 1...rows { try insert.execute(id, "item \(id)") }
        }
    }

    /// The names of the rows whose id is in `ids`, through `carray()`: one parameter.
    public func carray(_ ids: [Int64]) throws -> Int {
        try db.query("SELECT name FROM item WHERE id IN carray(?)", CArray(ids)).map {
            try $0.value(at: 0, as: String.self)
        }.count
    }

    /// The same through `IN (?, ?, …)`: one parameter per id (at most 32,766).
    public func expandedIn(_ ids: [Int64]) throws -> Int {
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        return try db.query(
            "SELECT name FROM item WHERE id IN (\(marks))", arguments: StatementArguments(ids.map { $0 as Int64? })
        ).map { try $0.value(at: 0, as: String.self) }.count
    }

    /// Closes the database.
    public func close() { db.close() }
}
