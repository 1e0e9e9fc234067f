import Foundation
import Testing

@testable import SQLiteToolkit

/// Closes, reopens and accesses arriving together on one queue or pool: each case is an interleaving made certain by
/// handshakes (a probe of the other side's state, never a sleep), with a deadline so that a deadlock fails the test
/// instead of hanging it.
@Suite("Lifecycle: close, reopen and accesses at once", .timeLimit(.minutes(3)))
struct LifecycleTests {
    /// How long a step that should return at once may take before the test calls it a deadlock.
    static let deadlock = 20.0

    @Test("a close inside a pool read, while another thread's close waits for that read, returns, as does the other")
    func twoClosersOfAPool() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path)
            let inside = DispatchSemaphore(value: 0)
            let outsideClosed = DispatchSemaphore(value: 0)
            let reader = runOnThreadInBackground {
                try pool.read { _ in
                    inside.signal()
                    // The other close has started (the pool reads as closed) and waits for this read.
                    _ = spinUntil { !(pool.isOpen) }
                    pool.close()
                }
            }
            #expect(wait(inside))
            let closer = runOnThreadInBackground {
                pool.close()
                outsideClosed.signal()
            }
            #expect(wait(reader.done, seconds: Self.deadlock), "the close inside the read never returned")
            #expect(wait(closer.done, seconds: Self.deadlock), "the close outside never returned")
            #expect(wait(outsideClosed))
            #expect(!pool.isOpen)
            #expect(throws: DatabaseError.self) { try pool.read { _ in } }
            #expect(pool.readers.inUseCount == 0)
        }
    }

    @Test("a close inside a pool write, while another thread's close waits for that write, returns")
    func twoClosersOfAPoolWriter() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path)
            let inside = DispatchSemaphore(value: 0)
            let writer = runOnThreadInBackground {
                try pool.write { db in
                    inside.signal()
                    _ = spinUntil { !(pool.isOpen) }
                    pool.close()
                    try db.execute("CREATE TABLE t(x)")
                }
            }
            #expect(wait(inside))
            let closer = runOnThreadInBackground { pool.close() }
            #expect(wait(writer.done, seconds: Self.deadlock))
            #expect(wait(closer.done, seconds: Self.deadlock))
            // The write committed before its connection closed.
            try pool.reopen()
            #expect(try pool.read { db in try db.tableExists("t") })
        }
    }

    @Test("a reopen waiting for a write that closed its pool, beside a second close inside that write, returns")
    func reopenBesideACloseInsideAWrite() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path)
            let closedInside = DispatchSemaphore(value: 0)
            let reopenStarted = Locked(false)
            let writer = runOnThreadInBackground {
                try pool.writeWithoutTransaction { _ in
                    pool.close()
                    closedInside.signal()
                    // The reopen waits for this close to end, which this write's end does.
                    _ = spinUntil { !(!reopenStarted.current || pool.lifecycleWaitingCount == 0) }
                    pool.close()
                }
            }
            #expect(wait(closedInside))
            let reopener = runOnThreadInBackground {
                reopenStarted.withLock { $0 = true }
                try pool.reopen()
            }
            #expect(wait(writer.done, seconds: Self.deadlock))
            #expect(wait(reopener.done, seconds: Self.deadlock))
            #expect(try reopener.result()?.get() != nil)
            // The second close was ordered before the reopen that waited for its access: the pool is open.
            #expect(pool.isOpen)
            #expect(try pool.read { db in try db.queryValue("SELECT 1", as: Int.self) } == 1)
        }
    }

    @Test("two threads closing a queue while an access runs both return once it ends, and the queue is closed")
    func twoClosersOfAQueue() throws {
        let queue = try DatabaseQueue()
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let access = runOnThreadInBackground {
            try queue.inDatabase { _ in
                inside.signal()
                _ = release.wait(timeout: .now() + 20)
                queue.close()
            }
        }
        #expect(wait(inside))
        let first = runOnThreadInBackground { queue.close() }
        let second = runOnThreadInBackground { queue.close() }
        #expect(spinUntil { !(queue.isOpen) })
        release.signal()
        #expect(wait(access.done, seconds: Self.deadlock))
        #expect(wait(first.done, seconds: Self.deadlock))
        #expect(wait(second.done, seconds: Self.deadlock))
        #expect(!queue.isOpen)
        #expect(throws: DatabaseError.self) { try queue.inDatabase { _ in } }
    }

    /// The lost wake-up: a reopen and an access both waited in the connection's condition variable, and the one
    /// wake-up at the end of the access in progress could go to the reopen, which found the queue open and returned
    /// without passing it on. Now a reopen of an open queue does not wait at all, and the end of an access wakes
    /// every waiter.
    @Test("an access waiting beside a reopen() of the open queue gets the connection when the running access ends")
    func noLostWakeUpBesideReopen() throws {
        let queue = try DatabaseQueue()
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = runOnThreadInBackground {
            try queue.inDatabase { _ in
                inside.signal()
                _ = release.wait(timeout: .now() + 20)
            }
        }
        #expect(wait(inside))
        let waiter = runOnThreadInBackground {
            try queue.inDatabase { db in try db.queryValue("SELECT 7", as: Int.self) }
        }
        #expect(spinUntil { !(queue.serialized.waitingAccessCount == 0) })
        // Returns at once: the queue is open.
        let reopener = runOnThreadInBackground { try queue.reopen() }
        #expect(wait(reopener.done, seconds: Self.deadlock), "reopen() of an open queue waited for an access")
        release.signal()
        #expect(wait(holder.done, seconds: Self.deadlock))
        #expect(wait(waiter.done, seconds: Self.deadlock), "the waiting access was never woken")
        #expect(try waiter.result()?.get() == 7)
    }

    @Test("a reopen() waiting for an access that closed the queue from inside opens it once that access ends")
    func reopenAfterCloseInsideAccess() throws {
        let queue = try DatabaseQueue()
        let closedInside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = runOnThreadInBackground {
            try queue.inDatabase { _ in
                queue.close()
                closedInside.signal()
                _ = release.wait(timeout: .now() + 20)
            }
        }
        #expect(wait(closedInside))
        let reopener = runOnThreadInBackground { try queue.reopen() }
        // The close is under way until the access ends: the reopen waits for it.
        #expect(spinUntil { !(queue.serialized.lifecycleWaitingCount == 0) })
        #expect(!queue.isOpen)
        release.signal()
        #expect(wait(holder.done, seconds: Self.deadlock))
        #expect(wait(reopener.done, seconds: Self.deadlock))
        #expect(queue.isOpen)
        #expect(try queue.inDatabase { db in try db.queryValue("SELECT 1", as: Int.self) } == 1)
    }

    @Test("accesses waiting for the connection when the queue closes throw accessAfterClose instead of running")
    func waitingAccessesThrowOnClose() throws {
        let queue = try DatabaseQueue()
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = runOnThreadInBackground {
            try queue.inDatabase { _ in
                inside.signal()
                _ = release.wait(timeout: .now() + 20)
            }
        }
        #expect(wait(inside))
        let waiters = (0..<3).map { _ in runOnThreadInBackground { try queue.inDatabase { _ in 1 } } }
        #expect(spinUntil { !(queue.serialized.waitingAccessCount < 3) })
        let closer = runOnThreadInBackground { queue.close() }
        #expect(spinUntil { !(queue.isOpen) })
        release.signal()
        #expect(wait(holder.done, seconds: Self.deadlock))
        #expect(wait(closer.done, seconds: Self.deadlock))
        for waiter in waiters {
            #expect(wait(waiter.done, seconds: Self.deadlock))
            let error = try #require(throws: DatabaseError.self) { try waiter.result()?.get() }
            #expect(error.reason == .accessAfterClose)
        }
    }

    @Test("closing a pool closes its live snapshots: their reads throw, and no connection of theirs stays open")
    func closeClosesSnapshots() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path)
            try pool.write { db in try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
            let snapshot = try pool.makeSnapshot()
            #expect(try snapshot.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 1)
            pool.close()
            #expect(!snapshot.isOpen)
            // The file's own view: with every connection of the pool closed, another connection can truncate the WAL,
            // which a snapshot's open read transaction would forbid.
            let other = try Database(path: path)
            defer { other.close() }
            // The first column is 1 when a reader kept the checkpoint from finishing.
            #expect(try other.queryValue("PRAGMA wal_checkpoint(TRUNCATE)", as: Int.self) == 0)
            try pool.reopen()
            let error = try #require(throws: DatabaseError.self) { try snapshot.read { _ in } }
            #expect(error.reason == .accessAfterClose)
            // A new snapshot after the reopen works.
            let fresh = try pool.makeSnapshot()
            #expect(try fresh.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 1)
        }
    }

    /// Found by the lifecycle stress test: SQLite refuses a snapshot of a WAL that holds no frame, with a bare
    /// `SQLITE_ERROR` whose message is "not an error".
    @Test("a snapshot of a pool whose WAL is empty (just opened, reopened, or truncated) is taken and reads")
    func snapshotOfEmptyWAL() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path)
            let fresh = try pool.makeSnapshot()
            #expect(try fresh.read { db in try db.tableExists("t") } == false)
            try pool.write { db in try db.execute("CREATE TABLE t(x)") }
            // The snapshot still sees the database before the table.
            #expect(try fresh.read { db in try db.tableExists("t") } == false)
            fresh.close()
            pool.close()
            try pool.reopen()
            let reopened = try pool.makeSnapshot()
            #expect(try reopened.read { db in try db.tableExists("t") })
            reopened.close()
            try pool.checkpoint(.truncate)
            let truncated = try pool.makeSnapshot()
            try pool.write { db in try db.execute("INSERT INTO t VALUES (1)") }
            #expect(try truncated.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 0)
            let version = try pool.read { db in try db.queryValue("PRAGMA user_version", as: Int.self) }
            #expect(version == 0)
        }
    }

    @Test("a reader that a read held through close() and reopen() is retired at the read's end, not given back")
    func readerHeldThroughReopenIsRetired() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path)
            let inside = DispatchSemaphore(value: 0)
            let reopened = DispatchSemaphore(value: 0)
            let reader = runOnThreadInBackground {
                try pool.read { _ in
                    inside.signal()
                    pool.close()
                    _ = reopened.wait(timeout: .now() + 20)
                }
            }
            #expect(wait(inside))
            #expect(spinUntil { !(pool.isOpen) })
            // The lifecycle has ended its close (which did not wait for the read it was called in), so a reopen runs.
            try pool.reopen()
            reopened.signal()
            #expect(wait(reader.done, seconds: Self.deadlock))
            #expect(pool.readers.inUseCount == 0)
            #expect(pool.readerCount == 0)
            #expect(try pool.read { db in try db.queryValue("SELECT 1", as: Int.self) } == 1)
        }
    }
}

/// Spins, yielding the thread, until `condition` holds (at most `seconds`): `false` when it never did. For the
/// handshakes of tests that run on a thread of their own or in a synchronous test: bounded, so that a bug fails the
/// test instead of holding a thread of the test runner forever.
func spinUntil(seconds: Double = 20, _ condition: () -> Bool) -> Bool {
    let deadline = DispatchTime.now() + seconds
    while !condition() {
        if DispatchTime.now() >= deadline { return false }
        yieldThread()
    }
    return true
}

/// A closure running on a thread of its own, with a semaphore signalled when it ends and its outcome.
final class BackgroundRun<T: Sendable>: Sendable {
    let done = DispatchSemaphore(value: 0)
    private let outcome = Locked<Result<T, any Error>?>(nil)

    init(_ body: @escaping @Sendable () throws -> T) {
        Thread { [self] in
            let result = Result { try body() }
            outcome.withLock { $0 = result }
            done.signal()
        }.start()
    }

    /// The outcome, once ``done`` was signalled; `nil` before.
    func result() -> Result<T, any Error>? { outcome.current }
}

/// Starts `body` on a thread of its own (see ``BackgroundRun``).
func runOnThreadInBackground<T: Sendable>(_ body: @escaping @Sendable () throws -> T) -> BackgroundRun<T> {
    BackgroundRun(body)
}
