import Foundation
import Testing

@testable import SQLiteToolkit

/// Interleavings of accesses, closes, reopens, set-up hooks, snapshots and cancellations chosen to break the
/// lifecycle discipline: each is made certain by a handshake or a probe of the other side's state, with a deadline so
/// that a deadlock fails the test instead of hanging it (the stuck thread is left behind, on a pool of its own).
///
/// Serialized: several cases block their thread while they wait for another, and the async ones need a thread of
/// Swift's cooperative pool (two on a 2-core machine) to start their tasks; run side by side under the thread
/// sanitizer, the blocked ones kept an async case's task from starting for 20 s.
@Suite(
    "Lifecycle, adversarial: set-up hooks, second closers, cancelled waits, snapshots", .serialized,
    .timeLimit(.minutes(5)))
struct LifecycleAdversarialTests {
    /// How long a step that should return at once may take before the test calls it a deadlock.
    static let deadlock = 5.0

    // MARK: - A second closer

    @Test("a close() outside any access returns only once the access that closed the queue from inside has ended")
    func secondCloserWaitsForTheAccess() throws {
        let queue = try DatabaseQueue()
        let closedInside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let accessEnded = Locked(false)
        let access = runOnThreadInBackground {
            try queue.inDatabase { db in
                queue.close()
                closedInside.signal()
                _ = release.wait(timeout: .now() + 20)
                // The connection is still open: the close inside the access left it to this access's end.
                try db.execute("CREATE TABLE late(x)")
                // The last thing the access does: the connection closes when the closure has returned.
                accessEnded.withLock { $0 = true }
            }
        }
        #expect(wait(closedInside))
        let closer = runOnThreadInBackground {
            queue.close()
            return accessEnded.current
        }
        // A close() that returns early does so at once; a correct one waits for the release below.
        let returnedEarly = wait(closer.done, seconds: 1)
        release.signal()
        #expect(wait(access.done, seconds: Self.deadlock))
        if !returnedEarly { #expect(wait(closer.done, seconds: Self.deadlock)) }
        #expect(try access.result()?.get() != nil)
        #expect(try closer.result()?.get() == true, "close() returned while an access still ran on the open connection")
    }

    // MARK: - Cancelled waits

    @Test("a cancelled async barrier write stops keeping new reads waiting")
    func cancelledBarrierReleasesReads() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path, maximumReaderCount: 2, readerTimeout: 1)
            let release = try await holdReader(of: pool)
            let ran = Locked(false)
            let barrier = Task { try await pool.barrierWrite { _ in ran.withLock { $0 = true } } }
            #expect(await waitUntil { barrierWaits(pool) })
            barrier.cancel()
            let result = await barrier.result
            #expect(throws: CancellationError.self) { try result.get() }
            // One reader of two is free, and the only barrier write was cancelled.
            let read = runOnThreadInBackground { try pool.read { db in try db.queryValue("SELECT 1", as: Int.self) } }
            try await waitOffCooperativePool(read.done)
            #expect(throws: Never.self, "a read waited for a cancelled barrier write") { try read.result()?.get() }
            release.signal()
            #expect(await waitUntil { pool.readers.inUseCount == 0 })
            #expect(!ran.current, "the cancelled barrier write ran")
        }
    }

    @Test("a barrier write and a close both waiting for one read both return once it ends")
    func barrierWriteBesideClose() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path, maximumReaderCount: 2)
            let release = try await holdReader(of: pool)
            let barrier = runOnThreadInBackground { try pool.barrierWrite { _ in 1 } }
            #expect(await waitUntil { barrierWaits(pool) })
            let closer = runOnThreadInBackground { pool.close() }
            #expect(await waitUntil { !pool.isOpen })
            release.signal()
            try await waitOffCooperativePool(barrier.done)
            try await waitOffCooperativePool(closer.done)
            // The barrier write waited before the close began: it may run or throw accessAfterClose, not hang.
            if case .failure(let error) = barrier.result() {
                #expect((error as? DatabaseError)?.reason == .accessAfterClose)
            }
            #expect(!pool.isOpen)
            #expect(pool.readers.inUseCount == 0)
            try pool.reopen()
            #expect(try await pool.barrierWrite { _ in 2 } == 2)
        }
    }

    @Test("a write started while close() waits for a read throws accessAfterClose")
    func writeDuringCloseThrows() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path)
            try await pool.write { db in try db.execute("CREATE TABLE t(x)") }
            let release = try await holdReader(of: pool)
            let closer = runOnThreadInBackground { pool.close() }
            #expect(await waitUntil { !pool.isOpen })
            let write = runOnThreadInBackground { try pool.write { db in try db.execute("INSERT INTO t VALUES (1)") } }
            try await waitOffCooperativePool(write.done)
            let error = try #require(throws: DatabaseError.self, "a write ran while the pool was closing") {
                try write.result()?.get()
            }
            #expect(error.reason == .accessAfterClose)
            release.signal()
            try await waitOffCooperativePool(closer.done)
        }
    }

    @Test("async writes cancelled at random moments either commit and return, or neither, and none hangs")
    func cancellationRacingCompletion() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path)
            let queue = try DatabaseQueue()
            try await pool.write { db in try db.execute("CREATE TABLE t(x)") }
            try await queue.write { db in try db.execute("CREATE TABLE t(x)") }
            var poolAcknowledged = 0
            var queueAcknowledged = 0
            for round in 0..<150 {
                let insert: @Sendable (Database) throws -> Void = { db in
                    try db.execute("INSERT INTO t VALUES (?)", round)
                }
                let poolTask = Task { try await pool.write(insert) }
                let queueTask = Task { try await queue.write(insert) }
                // From before the access starts to after it ended.
                for _ in 0..<(round % 20) { await Task.yield() }
                poolTask.cancel()
                queueTask.cancel()
                if case .success = await poolTask.result { poolAcknowledged += 1 }
                if case .success = await queueTask.result { queueAcknowledged += 1 }
            }
            let poolRows = try await pool.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) }
            let queueRows = try await queue.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) }
            #expect(poolRows == poolAcknowledged)
            #expect(queueRows == queueAcknowledged)
            #expect(pool.readers.inUseCount == 0)
            #expect(pool.writer.waitingAccessCount == 0)
        }
    }

    /// The risk: the connection goes to no waiter in particular (checkIn() broadcasts and gives the lock back), so a
    /// thread that keeps accessing could take it again before any woken waiter runs; the reader checkout has a line
    /// for this, the queue and the pool's writer have none.
    @Test("an access waiting for a queue's connection gets it while another thread keeps taking it")
    func queueWaiterNotStarved() throws {
        let queue = try DatabaseQueue()
        let stop = Locked(false)
        let hogging = DispatchSemaphore(value: 0)
        let hog = runOnThreadInBackground {
            var count = 0
            let deadline = DispatchTime.now() + 6
            while !stop.current && DispatchTime.now() < deadline {
                try queue.inDatabase { db in
                    if count == 0 { hogging.signal() }
                    _ = try db.queryValue("SELECT 1", as: Int.self)
                }
                count += 1
            }
            return count
        }
        #expect(wait(hogging))
        let started = DispatchTime.now()
        let waiter = runOnThreadInBackground { try queue.inDatabase { _ in DispatchTime.now() } }
        #expect(wait(waiter.done, seconds: Self.deadlock))
        stop.withLock { $0 = true }
        #expect(wait(hog.done, seconds: Self.deadlock))
        let ranAt = try #require(try waiter.result()?.get())
        let waited = Double(ranAt.uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        #expect(waited < 1, "the waiting access got the connection after \(waited) s")
    }

    /// The risk: beginBarrier() counts a barrier write from before it waits for the writer, and reads wait while any
    /// barrier write is counted, so two threads writing barriers back to back could keep the count above 0 and starve
    /// a read (every reader idle) until its reader timeout. Measured here: the read waits 0.1 to 0.5 s, not 1.
    @Test("a read gets a reader while two threads write barriers back to back")
    func readNotStarvedByBarrierWrites() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path, readerTimeout: 1)
            let stop = Locked(false)
            let writers = (0..<2).map { _ in
                runOnThreadInBackground {
                    let deadline = DispatchTime.now() + 6
                    while !stop.current && DispatchTime.now() < deadline { try pool.barrierWrite { _ in } }
                }
            }
            // Both write barriers now, or soon: the read below starts among them.
            while pool.takeIdleReaderWithoutWaiting().map({ pool.checkIn($0) }) != nil { yieldThread() }
            let read = runOnThreadInBackground { try pool.read { db in try db.queryValue("SELECT 1", as: Int.self) } }
            #expect(wait(read.done, seconds: Self.deadlock))
            stop.withLock { $0 = true }
            for writer in writers { #expect(wait(writer.done, seconds: Self.deadlock)) }
            #expect(throws: Never.self, "the read starved behind barrier writes") { try read.result()?.get() }
        }
    }

    @Test("async reads at the reader limit cancelled at random moments leave no reader checked out and none in line")
    func cancelledReaderWaitsAtRandom() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path, maximumReaderCount: 1, readerTimeout: 20)
            for round in 0..<40 {
                let release = try await holdReader(of: pool)
                let reads = (0..<3).map { index in
                    Task {
                        try await pool.read { db in try db.queryValue("SELECT ?", round * 10 + index, as: Int.self) }
                    }
                }
                for _ in 0..<(round % 5) { await Task.yield() }
                for (index, read) in reads.enumerated() where (round + index) % 2 == 0 { read.cancel() }
                if round % 3 == 0 { release.signal() }
                for (index, read) in reads.enumerated() where (round + index) % 2 == 0 {
                    // A cancelled read ends without the held reader, whether it waited in line or behind.
                    _ = await read.result
                }
                release.signal()
                for (index, read) in reads.enumerated() {
                    switch await read.result {
                    case .success(let value): #expect(value == round * 10 + index)
                    case .failure(let error): #expect(error is CancellationError, "\(error)")
                    }
                }
                #expect(await waitUntil { pool.readers.inUseCount == 0 && pool.readers.waitingReadCount == 0 })
            }
        }
    }

    @Test("a read second in line at the reader limit times out at its own deadline")
    func readerTimeoutBehindAnotherWaiter() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path, maximumReaderCount: 1, readerTimeout: 0.5)
            let release = try await holdReader(of: pool)
            let started = DispatchTime.now()
            let first = runOnThreadInBackground { try pool.read { _ in 1 } }
            let second = runOnThreadInBackground { try pool.read { _ in 2 } }
            try await waitOffCooperativePool(first.done)
            try await waitOffCooperativePool(second.done)
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            for run in [first, second] {
                let error = try #require(throws: DatabaseError.self) { try run.result()?.get() }
                #expect(error.reason == .readerTimeout)
            }
            #expect(elapsed >= 0.45 && elapsed < 5, "the reads timed out after \(elapsed) s")
            #expect(pool.readers.waitingReadCount == 0)
            release.signal()
        }
    }

    // MARK: - Idle readers, snapshots

    @Test("closeIdleReaders() racing reads on several threads never fails a read nor leaves a reader checked out")
    func closeIdleReadersRacingReads() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path, maximumReaderCount: 3)
            try pool.write { db in try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
            let failures = Locked<[String]>([])
            let stop = Locked(false)
            let deadline = DispatchTime.now() + 1.5
            concurrently(4) { index in
                if index == 0 {
                    while DispatchTime.now() < deadline { pool.closeIdleReaders() }
                    stop.withLock { $0 = true }
                    return
                }
                while !stop.current {
                    do {
                        let count = try pool.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) }
                        if count != 1 { failures.withLock { $0.append("count \(String(describing: count))") } }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
            #expect(failures.current.isEmpty, "\(failures.current.prefix(3))")
            #expect(pool.readers.inUseCount == 0)
            #expect(pool.readerCount <= 3)
        }
    }

    @Test("snapshots made while another thread closes and reopens the pool are all closed by the last close")
    func snapshotsRacingClose() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path)
            try pool.write { db in try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
            let snapshots = Locked<[DatabaseSnapshot]>([])
            let unexpected = Locked<[String]>([])
            let stop = Locked(false)
            concurrently(3) { index in
                if index == 0 {
                    for _ in 0..<30 {
                        pool.close()
                        try? pool.reopen()
                    }
                    stop.withLock { $0 = true }
                    return
                }
                while !stop.current {
                    do {
                        let snapshot = try pool.makeSnapshot()
                        // Half are kept, half dropped at the end of this iteration: their deinit races closeAll().
                        if snapshots.withLock({ $0.count }) % 2 == 0 || Bool.random() {
                            snapshots.withLock { $0.append(snapshot) }
                        }
                        _ = try snapshot.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) }
                    } catch let error as DatabaseError where error.reason == .accessAfterClose {
                        // The pool or the snapshot closed meanwhile.
                    } catch {
                        unexpected.withLock { $0.append("\(error)") }
                    }
                }
            }
            pool.close()
            #expect(unexpected.current.isEmpty, "\(unexpected.current.prefix(3))")
            #expect(snapshots.current.allSatisfy { !$0.isOpen })
            // No snapshot's connection keeps a read transaction: another connection truncates the WAL.
            let other = try Database(path: path)
            defer { other.close() }
            #expect(try other.queryValue("PRAGMA wal_checkpoint(TRUNCATE)", as: Int.self) == 0)
        }
    }

    @Test("makeSnapshot() inside a pool read works whether the WAL holds frames or not")
    func snapshotInsideReadOfEmptyWAL() throws {
        try TemporaryFile.withDatabasePath { path in
            try createTableOutsideWAL(path)
            let pool = try DatabasePool(path: path)
            try #require(walSize(path) == 0)
            #expect(throws: Never.self, "makeSnapshot() inside a read of an empty WAL") {
                let snapshot = try pool.read { _ in try pool.makeSnapshot() }
                snapshot.close()
            }
            try pool.write { db in try db.execute("INSERT INTO t VALUES (1)") }
            let withFrames = try pool.read { _ in try pool.makeSnapshot() }
            withFrames.close()
        }
    }

    /// SQLite cannot take a snapshot of a WAL that holds no frame, and a read-only pool cannot write the frame that
    /// would allow one: the error says so, instead of naming a write the caller never asked for.
    @Test("a read-only pool over an empty WAL refuses a snapshot with an error that says why")
    func readOnlySnapshotOfEmptyWAL() throws {
        try TemporaryFile.withDatabasePath { path in
            try createTableOutsideWAL(path)
            let pool = try DatabasePool(path: path)
            try #require(walSize(path) == 0)
            var configuration = Database.Configuration()
            configuration.isReadOnly = true
            let readOnly = try DatabasePool(path: path, configuration: configuration)
            let error = try #require(throws: DatabaseError.self) { try readOnly.makeSnapshot() }
            #expect(error.code == .readonly)
            #expect(error.message.contains("no snapshot of a WAL that holds no frame"))
            // After a write, the same pool takes one.
            try pool.write { db in try db.execute("INSERT INTO t VALUES (1)") }
            let snapshot = try readOnly.makeSnapshot()
            #expect(try snapshot.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 1)
            snapshot.close()
            readOnly.close()
            pool.close()
        }
    }

    @Test(
        "the commit that makes an empty WAL snapshot-able reaches the pool's observation at most as an outside change")
    func snapshotOfEmptyWALNotifiesNoObserver() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            try createTableOutsideWAL(path)
            let pool = try DatabasePool(path: path)
            try #require(walSize(path) == 0)
            let values = pool.observe(tables: nil) { db in
                try db.queryValue("SELECT count(*) FROM t", as: Int.self)
            }
            var iterator = values.makeAsyncIterator()
            #expect(try await iterator.next() == 0)
            let snapshot = try pool.makeSnapshot()
            #expect(walSize(path) > 0, "the snapshot of an empty WAL committed no frame")
            try await pool.write { db in try db.execute("INSERT INTO t VALUES (1)") }
            // The snapshot's frame that changes nothing is committed on a connection of its own: the writer's watch
            // for other connections' commits cannot tell it from another process's, so the query may run once more
            // and yield 0 again (a look that finds a change never skips one); never another value, and the insert's
            // value comes next.
            var next = try await iterator.next()
            if next == 0 { next = try await iterator.next() }
            #expect(next == 1)
            snapshot.close()
        }
    }

    // MARK: - The lock's timed wait, and the completion of an access that runs elsewhere

    @Test("a timed wait of the lock lasts until its deadline, across whole seconds, and a broadcast ends it early")
    func lockTimedWait() throws {
        let lock = Lock()
        let start = DispatchTime.now()
        let deadline = MonotonicDeadline(secondsFromNow: 1.3)
        lock.lock()
        // Loop over spurious wake-ups, as every caller does.
        while lock.wait(until: deadline) {}
        lock.unlock()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        #expect(elapsed >= 1.29 && elapsed < 4, "waited \(elapsed) s for a 1.3 s deadline")
        #expect(MonotonicDeadline(secondsFromNow: .infinity).uptimeNanoseconds == UInt64.max)
        #expect(MonotonicDeadline(secondsFromNow: .nan).hasPassed)
        #expect(MonotonicDeadline(secondsFromNow: -5).hasPassed)

        let woken = Locked(false)
        let waiter = runOnThreadInBackground {
            lock.lock()
            defer { lock.unlock() }
            let far = MonotonicDeadline(secondsFromNow: 1e12)
            while !woken.current {
                if !lock.wait(until: far) { return false }
            }
            return true
        }
        while true {
            lock.lock()
            woken.withLock { $0 = true }
            lock.broadcast()
            lock.unlock()
            if wait(waiter.done, seconds: 0.05) { break }
        }
        #expect(try waiter.result()?.get() == true)
    }

    @Test("an access's completion before its continuation exists resumes it once, and a second outcome is ignored")
    func completionBeforeContinuation() async throws {
        let body = EscapedBody<Int> { _ in 1 }
        let completion = AccessCompletion<Int>(releasing: body)
        completion.complete(.failure(CancellationError()))
        completion.complete(.success(2))
        await #expect(throws: CancellationError.self) {
            try await withCheckedThrowingContinuation { continuation in
                #expect(!completion.setContinuation(continuation))
            }
        }
        completion.complete(.success(3))
    }
}

/// Whether a barrier write keeps new reads waiting (or reads wait in line): no reader can be taken without waiting,
/// while fewer than the maximum are in use. Takes, and gives back at once, a reader when one can be taken.
private func barrierWaits(_ pool: DatabasePool) -> Bool {
    guard let reader = pool.takeIdleReaderWithoutWaiting() else { return true }
    pool.checkIn(reader)
    return false
}

/// Makes table `t` in a new database file at `path`, in the rollback journal mode, so that a pool opened on it then
/// starts with an empty WAL.
private func createTableOutsideWAL(_ path: String) throws {
    let db = try Database(path: path)
    defer { db.close() }
    try db.execute("CREATE TABLE t(x)")
}

/// The size of the WAL file beside `path`; 0 when there is none.
private func walSize(_ path: String) -> Int {
    let attributes = try? FileManager.default.attributesOfItem(atPath: path + "-wal")
    return (attributes?[.size] as? NSNumber)?.intValue ?? 0
}
