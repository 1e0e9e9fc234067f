import Foundation
import SQLiteToolkit
import Testing

/// The samples of the article "Observing changes" (ObservingChanges.md), line for line.
@Suite("Docs: Observing changes", .timeLimit(.minutes(3)))
struct DocsObservingChangesTests {
    @Test("transaction observers: one delivery per commit, with tables and rows")
    func transactionObservers() throws {
        let db = try Database()
        try db.execute("CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        var log: [String] = []

        let observer = try db.addTransactionObserver(tables: ["player"]) { changes in
            for change in changes.rowChanges {
                log.append("\(change.kind) \(change.table) \(change.rowID)")
            }
        }
        try db.transaction { db in
            try db.execute("INSERT INTO player (id, name) VALUES (1, 'Arthur')")
            try db.execute("INSERT INTO player (id, name) VALUES (2, 'Ford')")
        }
        // log == ["insert player 1", "insert player 2"]: one delivery, after the commit
        db.removeTransactionObserver(observer)

        #expect(log == ["insert player 1", "insert player 2"])
    }

    @Test("an observed query on a queue")
    func queueObservation() async throws {
        let queue = try DatabaseQueue()
        try await queue.write { db in try db.execute("CREATE TABLE player (name TEXT NOT NULL)") }
        let seen = Locked<[Int]>([])
        let task = Task {
            let counts = queue.observe(tables: ["player"]) { db in
                try db.queryValue("SELECT count(*) FROM player", as: Int.self) ?? 0
            }
            for try await count in counts {
                print("players:", count)
                seen.withLock { $0.append(count) }
                if count == 1 { break }
            }
        }
        // No deadline but the suite's: on two cores other suites can hold the threads that deliver the value.
        try await sleepUntil { !seen.withLock { $0 }.isEmpty }
        try await queue.write { db in try db.execute("INSERT INTO player (name) VALUES ('Arthur')") }
        try await task.value
        #expect(seen.withLock { $0 } == [0, 1])
    }

    @Test("an observed query on a pool, removing duplicates")
    func poolObservation() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("docs-observe-\(UUID()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let pool = try DatabasePool(path: path)
        try await pool.write { db in try db.execute("CREATE TABLE player (name TEXT NOT NULL, score INT)") }
        let names = pool.observe(tables: ["player"], removingDuplicates: true) { db in
            try db.query("SELECT name FROM player ORDER BY name").map { try $0.value(at: 0, as: String.self) }
        }
        var iterator = names.makeAsyncIterator()
        #expect(try await iterator.next() == [])
        // One value at a time: the stream keeps only the newest value its consumer has not taken.
        try await pool.write { db in try db.execute("INSERT INTO player (name, score) VALUES ('Arthur', 1)") }
        #expect(try await iterator.next() == ["Arthur"])
        try await pool.write { db in try db.execute("UPDATE player SET score = 2") }  // same names: no value
        try await pool.write { db in try db.execute("INSERT INTO player (name, score) VALUES ('Ford', 1)") }
        #expect(try await iterator.next() == ["Arthur", "Ford"])
    }

    @Test("a snapshot for reads that must agree, in async code")
    func snapshot() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("docs-snapshot-\(UUID()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let pool = try DatabasePool(path: path)
        try await pool.write { db in
            try db.execute("CREATE TABLE player (name TEXT NOT NULL)")
            try db.execute("INSERT INTO player (name) VALUES ('Arthur')")
        }

        let snapshot = try pool.makeSnapshot()
        try await pool.write { db in try db.execute("INSERT INTO player (name) VALUES ('Ford')") }
        let count = try await snapshot.read { db in try db.queryValue("SELECT count(*) FROM player", as: Int.self) }
        let names = try await snapshot.read { db in
            try db.query("SELECT name FROM player").map { try $0.value(at: 0, as: String.self) }
        }
        // count == 1 and names == ["Arthur"]: both reads see the state of makeSnapshot()
        snapshot.close()

        #expect(count == 1)
        #expect(names == ["Arthur"])
    }

    @Test("the same snapshot reads in blocking code: the sample without await")
    func snapshotBlocking() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("docs-snapshot-\(UUID()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let pool = try DatabasePool(path: path)
        try pool.write { db in
            try db.execute("CREATE TABLE player (name TEXT NOT NULL)")
            try db.execute("INSERT INTO player (name) VALUES ('Arthur')")
        }

        let snapshot = try pool.makeSnapshot()
        try pool.write { db in try db.execute("INSERT INTO player (name) VALUES ('Ford')") }
        let count = try snapshot.read { db in try db.queryValue("SELECT count(*) FROM player", as: Int.self) }
        let names = try snapshot.read { db in
            try db.query("SELECT name FROM player").map { try $0.value(at: 0, as: String.self) }
        }
        snapshot.close()

        #expect(count == 1)
        #expect(names == ["Arthur"])
    }
}
