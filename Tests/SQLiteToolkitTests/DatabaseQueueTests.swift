import Foundation
import SQLiteToolkit
import Testing

@Suite("Database queue", .timeLimit(.minutes(2)))
struct DatabaseQueueTests {
    private func counterQueue(path: String? = nil) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute("CREATE TABLE IF NOT EXISTS counter (id INTEGER PRIMARY KEY, value INTEGER NOT NULL)")
            try db.execute("INSERT OR IGNORE INTO counter (id, value) VALUES (1, 0)")
        }
        return queue
    }

    private func counter(_ db: Database) throws -> Int {
        try db.queryValue("SELECT value FROM counter WHERE id = 1", as: Int.self) ?? -1
    }

    /// The counter through the blocking entry point (in async code, `queue.read` picks the async one).
    private func blockingCounter(_ queue: DatabaseQueue) throws -> Int {
        try queue.read { db in try counter(db) }
    }

    @Test("accesses from many threads run one at a time: read-modify-write increments are never lost")
    func orderingUnderContention() throws {
        let queue = try counterQueue()
        let inside = Locked(0)
        let overlaps = Locked(0)
        concurrently(8) { _ in
            for _ in 0..<100 {
                try? queue.write { db in
                    inside.withLock { value in
                        value += 1
                        if value > 1 { overlaps.withLock { $0 += 1 } }
                    }
                    defer { inside.withLock { $0 -= 1 } }
                    // Read, then write the value read plus one: two overlapping accesses would lose an increment.
                    let value = try counter(db)
                    try db.execute("UPDATE counter SET value = ? WHERE id = 1", value + 1)
                }
            }
        }
        #expect(try queue.read { db in try counter(db) } == 800)
        #expect(overlaps.current == 0)
    }

    @Test("an access inside an access to the same queue throws the re-entry error at once instead of hanging")
    func reentryThrows() throws {
        let queue = try counterQueue()
        let outcome = runOnThread(timeout: 20) { () throws -> [DatabaseError.Reason?] in
            try queue.inDatabase { _ in
                var reasons: [DatabaseError.Reason?] = []
                for nested in [
                    { try queue.inDatabase { _ in } },
                    { try queue.read { _ in } },
                    { try queue.write { _ in } },
                    { try queue.savepoint { _ in } },
                    { try queue.reopen() },
                ] as [() throws -> Void] {
                    do {
                        try nested()
                        reasons.append(nil)
                    } catch let error as DatabaseError {
                        reasons.append(error.reason)
                    }
                }
                return reasons
            }
        }
        let result = try #require(outcome, "a nested access must throw, not wait for itself")
        #expect(try result.get() == Array(repeating: .reentrantAccess, count: 5))
        // The queue is still usable and open.
        #expect(queue.isOpen)
        #expect(try queue.read { db in try counter(db) } == 0)
    }

    @Test("accesses to two different queues may nest, in either order")
    func nestedQueues() throws {
        let first = try counterQueue()
        let second = try counterQueue()
        let outcome = runOnThread(timeout: 20) { () throws -> Int in
            try first.write { db1 in
                try db1.execute("UPDATE counter SET value = 1")
                try second.write { db2 in try db2.execute("UPDATE counter SET value = 2") }
            }
            return try second.read { _ in try first.read { db1 in try counter(db1) } }
        }
        let result = try #require(outcome, "nesting two queues must not deadlock")
        #expect(try result.get() == 1)
        #expect(try second.read { db in try counter(db) } == 2)
    }

    @Test("async accesses from many tasks all run, one at a time")
    func asyncFromManyTasks() async throws {
        let queue = try counterQueue()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await queue.write { db in
                        let value = try db.queryValue("SELECT value FROM counter WHERE id = 1", as: Int.self) ?? 0
                        try db.execute("UPDATE counter SET value = ? WHERE id = 1", value + 1)
                    }
                }
            }
            try await group.waitForAll()
        }
        let value = try await queue.read { db in try db.queryValue("SELECT value FROM counter", as: Int.self) }
        #expect(value == 50)
        // The async and blocking entry points share the one connection.
        #expect(try blockingCounter(queue) == 50)
    }

    @Test("cancelling the awaiting task interrupts the running statement; the queue stays usable")
    func cancellationInterrupts() async throws {
        let queue = try counterQueue()
        let started = Locked(false)
        let task = Task {
            try await queue.inDatabase { db in try countToABillion(db, signalling: started) }
        }
        let error = try await cancelOnceStarted(task, started)
        #expect(error.isInterrupted)
        #expect(try await queue.read { db in try counter(db) } == 0)
    }

    @Test("an access whose task was cancelled before it started does not run")
    func cancelledBeforeStart() async throws {
        let queue = try counterQueue()
        let ran = Locked(false)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await queue.write { db in
                ran.withLock { $0 = true }
                try db.execute("UPDATE counter SET value = 99")
            }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(!ran.current)
        #expect(try blockingCounter(queue) == 0)
    }

    @Test("the set-up hook runs on the new connection, and again on reopen")
    func setUpHook() throws {
        try TemporaryFile.withDatabasePath { path in
            let calls = Locked(0)
            let queue = try DatabaseQueue(path: path) { db in
                calls.withLock { $0 += 1 }
                try db.execute("PRAGMA user_version = 7")
            }
            #expect(calls.current == 1)
            #expect(try queue.read { db in try db.queryValue("PRAGMA user_version", as: Int.self) } == 7)
            queue.close()
            try queue.reopen()
            #expect(calls.current == 2)
            queue.close()
        }
    }

    @Test("a set-up hook that throws makes creation throw")
    func setUpHookThrows() throws {
        struct HookFailure: Error {}
        #expect(throws: HookFailure.self) { try DatabaseQueue { _ in throw HookFailure() } }
    }

    @Test("a queue on a path that cannot be opened throws at creation")
    func opensEagerly() throws {
        let error = try #require(throws: DatabaseError.self) {
            try DatabaseQueue(path: "/nonexistent-\(UUID().uuidString)/db.sqlite")
        }
        #expect(error.code == .cantopen)
    }

    @Test("a transaction left open at the end of an access is rolled back and the access throws")
    func transactionLeftOpen() throws {
        let queue = try counterQueue()
        let error = try #require(throws: DatabaseError.self) {
            try queue.inDatabase { db in
                try db.beginTransaction()
                try db.execute("UPDATE counter SET value = 5")
            }
        }
        #expect(error.reason == .transactionLeftOpen)
        #expect(try queue.inDatabase { db in db.isInTransaction } == false)
        #expect(try queue.read { db in try counter(db) } == 0)
    }

    @Test("a cursor kept past its access throws when read later")
    func cursorCannotEscape() throws {
        let queue = try counterQueue()
        var escaped: Rows?
        try queue.inDatabase { db in
            escaped = try db.query("SELECT value FROM counter")
        }
        let cursor = try #require(escaped)
        #expect(!cursor.isOpen)
        let error = try #require(throws: DatabaseError.self) { try cursor.next() }
        #expect(error.reason == .cursorOutlivedAccess)
        #expect(try queue.inDatabase { db in db.openCursors } == 0)
    }

    @Test("transactions commit on return, roll back on throw and on an explicit rollback; savepoints nest")
    func transactionVerbs() throws {
        struct Failure: Error {}
        let queue = try counterQueue()
        try queue.transaction(.exclusive) { db in try db.execute("UPDATE counter SET value = 1") }
        #expect(throws: Failure.self) {
            try queue.write { db in
                try db.execute("UPDATE counter SET value = 2")
                throw Failure()
            }
        }
        try queue.inTransaction { db in
            try db.execute("UPDATE counter SET value = 3")
            return .rollback
        }
        try queue.write { db in
            try db.execute("UPDATE counter SET value = value + 10")
            try? db.savepoint { db in
                try db.execute("UPDATE counter SET value = value + 100")
                throw Failure()
            }
        }
        try queue.savepoint { db in try db.execute("UPDATE counter SET value = value + 1000") }
        #expect(try queue.read { db in try counter(db) } == 1011)
    }

    @Test("close waits for the access in progress; later accesses throw until reopen, which keeps the data")
    func closeAndReopen() throws {
        try TemporaryFile.withDatabasePath { path in
            let queue = try counterQueue(path: path)
            let inside = DispatchSemaphore(value: 0)
            let finished = Locked(false)
            let writer = Thread {
                try? queue.write { db in
                    inside.signal()
                    Thread.sleep(forTimeInterval: 0.2)
                    try db.execute("UPDATE counter SET value = 42")
                    finished.withLock { $0 = true }
                }
            }
            writer.start()
            #expect(wait(inside))
            queue.close()
            // close() returned: the access it waited for had finished.
            #expect(finished.current)
            #expect(!queue.isOpen)
            let error = try #require(throws: DatabaseError.self) { try queue.read { db in try counter(db) } }
            #expect(error.reason == .accessAfterClose)
            queue.close()  // closing twice does nothing
            try queue.reopen()
            #expect(queue.isOpen)
            #expect(try queue.read { db in try counter(db) } == 42)
            queue.close()
        }
    }

    @Test("closing under load: every access either completes or throws the closed error")
    func closingUnderLoad() throws {
        let queue = try counterQueue()
        let completed = Locked(0)
        let refused = Locked(0)
        let other = Locked<[String]>([])
        let closed = DispatchSemaphore(value: 0)
        let closer = Thread {
            // Close while the writers are busy: once some of their accesses have run.
            let deadline = Date(timeIntervalSinceNow: 30)
            while completed.current < 50 && Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
            queue.close()
            closed.signal()
        }
        closer.start()
        concurrently(4) { _ in
            for _ in 0..<200 {
                do {
                    try queue.write { db in try db.execute("UPDATE counter SET value = value + 1") }
                    completed.withLock { $0 += 1 }
                } catch let error as DatabaseError where error.reason == .accessAfterClose {
                    refused.withLock { $0 += 1 }
                } catch {
                    other.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(wait(closed))
        #expect(other.current == [])
        #expect(completed.current + refused.current == 800)
        #expect(!queue.isOpen)
        try queue.reopen()
        // In memory: the reopened database is a new, empty one.
        #expect(throws: DatabaseError.self) { try queue.read { db in try counter(db) } }
    }
}
