import Foundation
import SQLiteToolkit
import Testing

/// Code written once against the protocols, run on a queue and on a pool.
private func addPlayer(named name: String, to database: some DatabaseWriter) throws {
    try database.write { db in try db.execute("INSERT INTO player (name) VALUES (?)", name) }
}

private func playerNames(in database: some DatabaseReader) throws -> [String] {
    try database.read { db in
        try db.query("SELECT name FROM player ORDER BY name").map { try $0.value(at: 0, as: String.self) }
    }
}

private func asyncPlayerCount(in database: some DatabaseReader) async throws -> Int {
    try await database.read { db in try db.queryRequiredValue("SELECT count(*) FROM player", as: Int.self) }
}

@Suite("DatabaseReader and DatabaseWriter", .timeLimit(.minutes(1)))
struct DatabaseReaderWriterTests {
    /// Runs the same protocol-typed code on `database`, which starts with an empty `player` table.
    private func exercise(_ database: any DatabaseWriter) async throws {
        try await database.writeWithoutTransaction { db in
            try db.execute("CREATE TABLE IF NOT EXISTS player (name TEXT NOT NULL)")
        }
        try addPlayer(named: "Barbara", to: database)
        try await database.write { db in try db.execute("INSERT INTO player (name) VALUES ('Arthur')") }
        #expect(try playerNames(in: database) == ["Arthur", "Barbara"])
        #expect(try await asyncPlayerCount(in: database) == 2)
        // The write runs in a transaction: a throw rolls it back, through the protocol as through the type.
        await #expect(throws: DatabaseError.self) {
            try await database.write { db in
                try db.execute("INSERT INTO player (name) VALUES ('Cecil')")
                try db.execute("INSERT INTO player (name) VALUES (NULL)")
            }
        }
        #expect(try playerNames(in: database) == ["Arthur", "Barbara"])
        // writeWithoutTransaction opens none: the access may run its own.
        try await database.writeWithoutTransaction { db in
            try db.execute("BEGIN")
            try db.execute("DELETE FROM player WHERE name = 'Arthur'")
            try db.execute("COMMIT")
        }
        #expect(try playerNames(in: database) == ["Barbara"])
        #expect(database.isOpen)
        database.close()
        #expect(!database.isOpen)
        #expect(throws: DatabaseError.self) { try playerNames(in: database) }
    }

    @Test("a queue works through the protocols")
    func queue() async throws {
        try await exercise(try DatabaseQueue())
    }

    @Test("a pool works through the protocols")
    func pool() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            try await exercise(try DatabasePool(path: path))
        }
    }

    @Test("a read inside a write through the protocols is a re-entry, on a queue and on a pool")
    func reentry() throws {
        try TemporaryFile.withDatabasePath { path in
            let databases: [any DatabaseWriter] = [try DatabaseQueue(), try DatabasePool(path: path)]
            for database in databases {
                let error = #expect(throws: DatabaseError.self) {
                    try database.write { _ in try database.read { _ in 1 } }
                }
                #expect(error?.reason == .reentrantAccess)
                database.close()
            }
        }
    }
}
