import Foundation
import GRDB

/// The `id-lookup` benchmark through GRDB: `ids.contains(Column("id"))`, which GRDB writes as `IN (?, ?, …)`.
public final class GRDBIDLookup {
    private let queue: DatabaseQueue

    /// Opens an in-memory database with `rows` rows `item (id, name)`.
    public init(rows: Int) throws {
        queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
            let insert = try db.makeStatement(sql: "INSERT INTO item (id, name) VALUES (?, ?)")
            for id in 1...rows { try insert.execute(arguments: [id, "item \(id)"]) }
        }
    }

    /// The names of the rows whose id is in `ids`.
    public func lookup(_ ids: [Int64]) throws -> Int {
        try queue.read { db in
            try String.fetchAll(db, Table("item").select(Column("name")).filter(ids.contains(Column("id")))).count
        }
    }
}
