import Foundation
import SQLiteToolkit
import Testing

/// The samples of the Concurrency article (Sources/SQLiteToolkit/SQLiteToolkit.docc/Concurrency.md), line for
/// line: `DocsSampleTests` checks that every line of the article's samples appears here.
@Suite("Docs: Concurrency")
struct DocsConcurrencyTests {
    @Test("a queue with a set-up hook, a write and a read, in async code")
    func queue() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let queue = try DatabaseQueue(path: path) { db in
                // The set-up hook: runs on every new connection before its first use (key, pragmas, functions).
                try db.execute("PRAGMA cache_size = -8000")
            }
            try await queue.inDatabase { db in
                try db.execute("CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INT)")
            }
            try await queue.write { db in
                try db.execute("INSERT INTO player (name, score) VALUES (?, ?)", "Arthur", 100)
            }
            let count = try await queue.read { db in try db.queryValue("SELECT count(*) FROM player", as: Int.self) }
            #expect(count == 1)
            #expect(try await queue.read { db in try db.queryValue("PRAGMA cache_size", as: Int.self) } == -8000)
            queue.close()
        }
    }

    @Test("the same queue sample in blocking code: the calls without await")
    func queueBlocking() throws {
        try TemporaryFile.withDatabasePath { path in
            let queue = try DatabaseQueue(path: path) { db in
                try db.execute("PRAGMA cache_size = -8000")
            }
            try queue.inDatabase { db in
                try db.execute("CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INT)")
            }
            try queue.write { db in
                try db.execute("INSERT INTO player (name, score) VALUES (?, ?)", "Arthur", 100)
            }
            let count = try queue.read { db in try db.queryValue("SELECT count(*) FROM player", as: Int.self) }
            #expect(count == 1)
            #expect(try queue.read { db in try db.queryValue("PRAGMA cache_size", as: Int.self) } == -8000)
            queue.close()
        }
    }

    @Test("in async code the same calls are awaited")
    func asyncAccess() async throws {
        let queue = try DatabaseQueue()
        try await queue.write { db in
            try db.execute("CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INT)")
            try db.execute("INSERT INTO player (name, score) VALUES (?, ?)", "Arthur", 100)
        }
        let names = try await queue.read { db in
            try db.query("SELECT name FROM player").map { try $0.value(at: 0) as String }
        }
        #expect(names == ["Arthur"])
    }

    @Test("writers that opt in to the write gate take turns across processes")
    func writeGate() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let setUp = try Database(path: path)
            try setUp.execute("CREATE TABLE counter (value INTEGER NOT NULL)")
            try setUp.execute("INSERT INTO counter (value) VALUES (0)")
            setUp.close()
            var configuration = Database.Configuration()
            configuration.usesWriteGate = true  // every writer of the file should set it
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try await queue.write { db in
                try db.execute("UPDATE counter SET value = value + 1")
            }
            #expect(try await queue.read { db in try db.queryValue("SELECT value FROM counter", as: Int.self) } == 1)
            #expect(TemporaryFile.exists(path + "-writegate"))
            queue.close()
        }
    }
}
