import Dispatch
import Foundation
import SQLiteToolkit
import Testing

/// The waits here have no deadline of their own: on two cores, other suites' synchronous waits can hold the threads
/// that deliver a value for many seconds. The suite's time limit bounds them instead.
@Suite("Observed queries and snapshots", .timeLimit(.minutes(3)))
struct ObservedQueryTests {
    private func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("observed-\(UUID().uuidString).sqlite").path
    }

    private func removeDatabase(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    private static let counterSchema = "CREATE TABLE counter (id INTEGER PRIMARY KEY, value INT NOT NULL)"

    /// Collects values from `stream` until `done` says to stop, or `count` values.
    private func collect<Value: Sendable>(
        _ stream: AsyncThrowingStream<Value, any Error>, until done: (Value) -> Bool
    ) async throws -> [Value] {
        var values: [Value] = []
        for try await value in stream {
            values.append(value)
            if done(value) { break }
        }
        return values
    }

    @Test("a queue's observed query yields at once, then once per commit that touches its table, in order")
    func queueObservation() async throws {
        let queue = try DatabaseQueue()
        try await queue.write { db in
            try db.execute(Self.counterSchema)
            try db.execute("CREATE TABLE other (x)")
            try db.execute("INSERT INTO counter (id, value) VALUES (1, 0)")
        }
        // Every value kept: the consumer may fall behind the writes, and each value is checked.
        let stream = queue.observe(tables: ["counter"], bufferingPolicy: .unbounded) { db in
            try db.queryValue("SELECT value FROM counter", as: Int.self) ?? -1
        }
        var iterator = stream.makeAsyncIterator()
        // The first value, before any write below, so that each of them is seen.
        #expect(try await iterator.next() == 0)
        let collecting = Task { [iterator] in
            var iterator = iterator
            var values: [Int] = []
            while let value = try await iterator.next() {
                values.append(value)
                if value == 5 { break }
            }
            return values
        }
        for _ in 1...5 {
            try await queue.write { db in
                try db.execute("INSERT INTO other VALUES (1)")  // not watched
                try db.execute("UPDATE counter SET value = value + 1")
            }
            try await queue.write { db in try db.execute("INSERT INTO other VALUES (2)") }
        }
        // One value per commit that touched the counter: no commit skipped, none seen twice, and none for the
        // commits that touched only the other table.
        #expect(try await collecting.value == [1, 2, 3, 4, 5])
    }

    @Test("removingDuplicates leaves out a value equal to the previous one")
    func removingDuplicates() async throws {
        let queue = try DatabaseQueue()
        try await queue.write { db in
            try db.execute("CREATE TABLE player (name TEXT)")
        }
        let stream = queue.observe(tables: ["player"], removingDuplicates: true, bufferingPolicy: .unbounded) { db in
            try db.queryValue("SELECT count(*) FROM player WHERE name = 'Arthur'", as: Int.self) ?? 0
        }
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        for name in ["Ford", "Arthur", "Zaphod", "Trillian", "Arthur"] {
            try await queue.write { db in try db.execute("INSERT INTO player (name) VALUES (?)", name) }
        }
        #expect(try await iterator.next() == 1)
        #expect(try await iterator.next() == 2)
    }

    @Test("a read that throws ends the sequence with its error")
    func failingRead() async throws {
        let queue = try DatabaseQueue()
        let stream = queue.observe(tables: nil) { db in
            try db.queryValue("SELECT x FROM missing", as: Int.self)
        }
        await #expect(throws: DatabaseError.self) {
            for try await _ in stream {}
        }
    }

    @Test("closing the queue ends the sequence without error")
    func queueCloseEnds() async throws {
        let queue = try DatabaseQueue()
        try await queue.write { db in try db.execute("CREATE TABLE t (x)") }
        let stream = queue.observe(tables: ["t"]) { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) }
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        queue.close()
        #expect(try await iterator.next() == nil)
    }

    @Test("cancelling the task that iterates ends the observation and releases its closure")
    func cancellationReleases() async throws {
        final class Tracked: Sendable {
            let count: Locked<Int>
            init(_ count: Locked<Int>) { self.count = count }
            deinit { count.withLock { $0 += 1 } }
        }
        let released = Locked(0)
        let path = temporaryPath()
        defer { removeDatabase(path) }
        let pool = try DatabasePool(path: path)
        let queue = try DatabaseQueue()
        typealias Observe =
            @Sendable (@escaping @Sendable (Database) throws -> Int?) -> AsyncThrowingStream<
                Int?, any Error
            >
        let cases: [(any DatabaseWriter, Observe)] = [
            (pool, { pool.observe(tables: ["t"], $0) }), (queue, { queue.observe(tables: ["t"], $0) }),
        ]
        for (writer, observe) in cases {
            try await writer.write { db in try db.execute("CREATE TABLE t (x)") }
            let firstValue = Locked(false)
            let task = Task {
                let tracked = Tracked(released)
                let stream = observe { db in
                    _ = tracked
                    return try db.queryValue("SELECT count(*) FROM t", as: Int.self)
                }
                for try await _ in stream { firstValue.withLock { $0 = true } }
            }
            try await sleepUntil { firstValue.withLock { $0 } }
            let before = released.withLock { $0 }
            task.cancel()
            _ = try? await task.value
            try await sleepUntil { released.withLock { $0 } == before + 1 }
            #expect(released.withLock { $0 } == before + 1)
            // The observer is gone: a write still works and nothing is delivered to it.
            try await writer.write { db in try db.execute("INSERT INTO t VALUES (1)") }
        }
    }

    @Test(
        "many writers and many observers on a pool: each observer sees every commit once, in order",
        .timeLimit(.minutes(2)))
    func poolObserversSeeEveryCommit() async throws {
        let path = temporaryPath()
        defer { removeDatabase(path) }
        let pool = try DatabasePool(path: path, maximumReaderCount: 3)
        try await pool.write { db in
            try db.execute(Self.counterSchema)
            try db.execute("INSERT INTO counter (id, value) VALUES (1, 0)")
        }
        let writers = 4
        let increments = 50
        let total = writers * increments
        let observers = (0..<4).map { _ in
            pool.observe(tables: ["counter"], bufferingPolicy: .unbounded) { db in
                try db.queryValue("SELECT value FROM counter", as: Int.self) ?? -1
            }
        }
        let collecting = observers.map { stream in Task { try await collect(stream) { $0 == total } } }
        try await Task.sleep(nanoseconds: 5_000_000)
        await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<writers {
                group.addTask {
                    for _ in 0..<increments {
                        try await pool.write { db in try db.execute("UPDATE counter SET value = value + 1") }
                    }
                }
            }
            // Readers beside the writers, so that some commits find no idle reader and read on the writer.
            group.addTask {
                for _ in 0..<100 {
                    _ = try await pool.read { db in try db.queryValue("SELECT value FROM counter", as: Int.self) }
                }
            }
        }
        for task in collecting {
            let values = try await task.value
            #expect(values.last == total)
            let first = try #require(values.first)
            #expect(values == Array(first...total), "each commit once and in order, after the first value")
        }
    }

    @Test("a barrier write's commit is observed too (read on the writer, since no reader may start)")
    func barrierWriteObserved() async throws {
        let path = temporaryPath()
        defer { removeDatabase(path) }
        let pool = try DatabasePool(path: path)
        try await pool.write { db in try db.execute("CREATE TABLE t (x)") }
        let stream = pool.observe(tables: ["t"]) { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) }
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        try await pool.barrierWrite { db in try db.execute("INSERT INTO t VALUES (1)") }
        #expect(try await iterator.next() == 1)
        pool.close()
        #expect(try await iterator.next() == nil)
    }

    @Test("a snapshot's reads all see the state it recorded, while the writer commits")
    func snapshotReads() async throws {
        let path = temporaryPath()
        defer { removeDatabase(path) }
        let pool = try DatabasePool(path: path)
        try await pool.write { db in
            try db.execute("CREATE TABLE t (x)")
            try db.execute("INSERT INTO t VALUES (1), (2)")
        }
        let snapshot = try pool.makeSnapshot()
        try await pool.write { db in try db.execute("INSERT INTO t VALUES (3)") }
        #expect(try await snapshot.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 2)
        try await pool.write { db in try db.execute("DELETE FROM t") }
        // A checkpoint cannot overwrite what the snapshot needs.
        try pool.checkpoint(.passive)
        #expect(try await snapshot.read { db in try db.queryValue("SELECT sum(x) FROM t", as: Int.self) } == 3)
        #expect(try await pool.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 0)
        snapshot.close()
        #expect(!snapshot.isOpen)
        let error = #expect(throws: DatabaseError.self) { try snapshot.read { _ in } }
        #expect(error?.reason == .accessAfterClose)
        snapshot.close()  // twice: nothing
    }

    @Test("on a closed queue or pool, observing ends at once with accessAfterClose, and no snapshot is made")
    func closedQueueAndPool() async throws {
        let path = temporaryPath()
        defer { removeDatabase(path) }
        let pool = try DatabasePool(path: path)
        let queue = try DatabaseQueue()
        pool.close()
        queue.close()
        let streams = [
            pool.observe(tables: nil) { db in try db.queryValue("SELECT 1", as: Int.self) },
            queue.observe(tables: nil) { db in try db.queryValue("SELECT 1", as: Int.self) },
        ]
        for stream in streams {
            var iterator = stream.makeAsyncIterator()
            let error = await #expect(throws: DatabaseError.self) { _ = try await iterator.next() }
            #expect(error?.reason == .accessAfterClose)
        }
        let error = #expect(throws: DatabaseError.self) { try pool.makeSnapshot() }
        #expect(error?.reason == .accessAfterClose)
    }
}

/// Waits until `condition` holds, sleeping a millisecond between checks, so that the thread is free for the work that
/// makes it hold (a `Task.yield()` loop keeps a cooperative thread busy). Bounded by the test's time limit.
func sleepUntil(_ condition: () -> Bool) async throws {
    while !condition() { try await Task.sleep(nanoseconds: 1_000_000) }
}
