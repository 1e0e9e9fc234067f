import Foundation
import Testing

@testable import SQLiteToolkit

/// Accesses that must wait, for a queue's connection or for a pool's reader: in turn, and never longer than their
/// task wants (a cancelled one stops waiting at once, leaving nothing checked out).
@Suite("Waiting for a connection or a reader", .timeLimit(.minutes(3)))
struct WaitingTests {
    /// With one reader, a thread that keeps reading gave its reader back and took it again from its thread's cache
    /// without the lock, ahead of a read waiting at the limit, which then waited until its time-out.
    @Test("a read waiting at the reader limit gets a reader while another thread keeps reading")
    func noStarvationAtTheReaderLimit() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path, maximumReaderCount: 1, readerTimeout: 5)
            let stop = Locked(false)
            let firstRead = DispatchSemaphore(value: 0)
            let hog = runOnThreadInBackground {
                var reads = 0
                while !stop.current && reads < 5_000_000 {
                    try pool.read { db in _ = try db.queryValue("SELECT 1", as: Int.self) }
                    if reads == 0 { firstRead.signal() }
                    reads += 1
                }
                return reads
            }
            #expect(wait(firstRead))
            let waiter = runOnThreadInBackground { try pool.read { db in try db.queryValue("SELECT 2", as: Int.self) } }
            #expect(wait(waiter.done, seconds: 20))
            stop.withLock { $0 = true }
            #expect(wait(hog.done, seconds: 20))
            // Not `readerTimeout`: the waiting read was served while the other thread read on.
            #expect(try waiter.result()?.get() == 2)
            #expect(try hog.result()?.get() ?? 0 > 0)
        }
    }

    @Test("reads waiting at the reader limit are served in the order they arrived")
    func readsAreServedInOrder() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            // A timeout far above the test's waits: on a machine loaded past its cores, lining the four reads up
            // can take longer than 20 s, and a read that gives up first would break the order for that reason.
            let pool = try DatabasePool(path: path, maximumReaderCount: 1, readerTimeout: 300)
            let release = try await holdReader(of: pool)
            let order = Locked<[Int]>([])
            var waiters: [BackgroundRun<Void>] = []
            for index in 0..<4 {
                waiters.append(runOnThreadInBackground { try pool.read { _ in order.withLock { $0.append(index) } } })
                // The next read arrives once this one stands in line.
                #expect(await waitUntil { pool.readers.waitingReadCount >= index + 1 })
            }
            release.signal()
            for waiter in waiters { #expect(wait(waiter.done)) }
            #expect(order.current == [0, 1, 2, 3])
        }
    }

    @Test("a cancelled async read waiting for a reader ends at once with CancellationError, leaving none checked out")
    func cancelledReaderWait() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path, maximumReaderCount: 1, readerTimeout: 20)
            let release = try await holdReader(of: pool)
            let released = Locked(false)
            // Two waiting reads: the first waits in the pool's line, the second behind it on the dispatch queue where
            // reads wait for a reader. Cancelling either ends its wait while the reader is still held.
            let first = Task { try await pool.read { db in try db.queryValue("SELECT 1", as: Int.self) } }
            #expect(await waitUntil { pool.readers.waitingReadCount > 0 })
            let second = Task { try await pool.read { db in try db.queryValue("SELECT 2", as: Int.self) } }
            try await Task.sleep(nanoseconds: 10_000_000)
            for task in [second, first] {
                task.cancel()
                let result = await task.result
                #expect(!released.current, "the cancelled read waited for the reader")
                #expect(throws: CancellationError.self) { try result.get() }
            }
            // The thread that waited in line wakes, and leaves it, on its own time.
            #expect(await waitUntil { pool.readers.waitingReadCount == 0 })
            #expect(pool.readers.inUseCount == 1)
            released.withLock { $0 = true }
            release.signal()
            #expect(await waitUntil { pool.readers.inUseCount == 0 })
            #expect(try await pool.read { db in try db.queryValue("SELECT 3", as: Int.self) } == 3)
            #expect(pool.readers.inUseCount == 0)
        }
    }

    @Test("a cancelled async access waiting for a queue's connection ends at once with CancellationError")
    func cancelledQueueWait() async throws {
        let queue = try DatabaseQueue()
        try await queue.write { db in try db.execute("CREATE TABLE t(x)") }
        let release = try await holdAccess { inside in try queue.inDatabase { _ in inside() } }
        let released = Locked(false)
        // The first waits for the connection on the queue's dispatch queue; the second waits behind it there.
        let first = Task { try await queue.write { db in try db.execute("INSERT INTO t VALUES (1)") } }
        #expect(await waitUntil { queue.serialized.waitingAccessCount > 0 })
        let second = Task { try await queue.write { db in try db.execute("INSERT INTO t VALUES (2)") } }
        try await Task.sleep(nanoseconds: 10_000_000)
        for task in [second, first] {
            task.cancel()
            let result = await task.result
            #expect(!released.current, "the cancelled access waited for the connection")
            #expect(throws: CancellationError.self) { try result.get() }
        }
        released.withLock { $0 = true }
        release.signal()
        // Neither cancelled write ran.
        #expect(try await queue.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 0)
    }

    @Test("a cancelled async pool write waiting for the writer ends at once and never runs")
    func cancelledPoolWriteWait() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path)
            try await pool.write { db in try db.execute("CREATE TABLE t(x)") }
            let release = try await holdAccess { inside in try pool.writeWithoutTransaction { _ in inside() } }
            let write = Task { try await pool.write { db in try db.execute("INSERT INTO t VALUES (1)") } }
            #expect(await waitUntil { pool.writer.waitingAccessCount > 0 })
            write.cancel()
            let result = await write.result
            #expect(throws: CancellationError.self) { try result.get() }
            release.signal()
            #expect(try await pool.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 0)
        }
    }

    /// A write may wait for SQLite's write lock (the busy timeout) or the write gate, and a commit waits for the
    /// disk: it must never hold one of the cooperative pool's threads. Only reads run in place.
    @Test("async writes of a queue run off the awaiting task, on the queue's dispatch queue, like a pool's")
    func asyncQueueWritesRunElsewhere() async throws {
        let queue = try DatabaseQueue()
        @Sendable func ranInTask(_ db: Database) -> Bool { withUnsafeCurrentTask { $0 != nil } }
        #expect(try await queue.write { db in ranInTask(db) } == false)
        #expect(try await queue.inDatabase { db in ranInTask(db) } == false)
        #expect(try await queue.writeWithoutTransaction { db in ranInTask(db) } == false)
        #expect(try await queue.transaction(.deferred) { db in ranInTask(db) } == false)
        #expect(try await queue.savepoint { db in ranInTask(db) } == false)
        let inTransaction = Locked<Bool?>(nil)
        try await queue.inTransaction { db in
            inTransaction.withLock { $0 = ranInTask(db) }
            return .commit
        }
        #expect(inTransaction.current == false)
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path)
            #expect(try await pool.write { db in ranInTask(db) } == false)
            #expect(try await pool.writeWithoutTransaction { db in ranInTask(db) } == false)
        }
    }
}
