import Foundation
import Testing

@testable import SQLiteToolkit

@Suite("Suspension of a pool", .serialized, .timeLimit(.minutes(2)))
struct PoolSuspensionTests {
    func makePool(_ path: String, started: Locked<Bool> = Locked(false)) throws -> DatabasePool {
        let pool = try DatabasePool(path: path, setUp: suspensionSetUp(marking: started))
        try pool.write { db in
            try db.execute("CREATE TABLE t (x)")
            try db.execute("INSERT INTO t VALUES (1), (2)")
        }
        return pool
    }

    @Test("a second process sees the locks of an open read and a snapshot, and none once suspend() returns")
    func locksGoAway() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try makePool(path)
            defer { pool.close() }
            let snapshot = try pool.makeSnapshot()
            let during = try pool.read { db in
                let rows = try db.query("SELECT x FROM t")
                _ = try rows.next()
                return try LockProbe.locks(on: path)
            }
            // The -shm file's DMS byte (128), held while the connection is open, and a read mark (120 + 3 + n),
            // held during the read transaction.
            #expect(during.contains { $0.hasPrefix("lock shm read 128 1 ") }, "\(during)")
            #expect(
                during.contains { $0.hasPrefix("lock shm read 12") && !$0.hasPrefix("lock shm read 128") }, "\(during)")
            try pool.suspend()
            #expect(try LockProbe.locks(on: path) == [])
            #expect(pool.readerCount == 0)
            // Suspended, the pool makes no snapshot, whose connection would hold a lock.
            let refused = #expect(throws: DatabaseError.self) { try pool.makeSnapshot() }
            #expect(refused?.reason == .suspended)
            try pool.resume()
            #expect(try pool.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 2)
            try pool.write { db in try db.execute("INSERT INTO t VALUES (3)") }
            // The snapshot could not outlive its connection.
            #expect(!snapshot.isOpen)
            let closed = #expect(throws: DatabaseError.self) { try snapshot.read { _ in } }
            #expect(closed?.reason == .accessAfterClose)
        }
    }

    /// A snapshot whose close signals `closing`, then waits for `proceed` before closing its connection.
    static func snapshotHeldInClose(
        of pool: DatabasePool, closing: DispatchSemaphore, proceed: DispatchSemaphore
    ) throws -> DatabaseSnapshot {
        let snapshot = try pool.makeSnapshot()
        snapshot.setCloseInProgressHook {
            closing.signal()
            _ = proceed.wait(timeout: .now() + 20)
        }
        return snapshot
    }

    @Test(
        "suspend() waits for a snapshot whose close (or deinit) on another thread holds its connection still open",
        arguments: [false, true])
    func waitsForSnapshotBeingClosed(byDeinit: Bool) throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try makePool(path)
            defer { pool.close() }
            let closing = DispatchSemaphore(value: 0)
            let proceed = DispatchSemaphore(value: 0)
            // The box holds the only reference, so that dropping it on the closing thread deinitializes the
            // snapshot: its weak reference in the pool is then already `nil` while its connection is still open.
            let box = Locked<DatabaseSnapshot?>(
                try Self.snapshotHeldInClose(of: pool, closing: closing, proceed: proceed))
            let closer = runOnThreadInBackground {
                if byDeinit {
                    box.withLock { $0 = nil }
                } else {
                    box.current?.close()
                }
            }
            try #require(wait(closing))
            let suspender = runOnThreadInBackground { () -> [String] in
                try pool.suspend()
                return try LockProbe.locks(on: path)
            }
            // The close is held with its connection open: suspend() must not return meanwhile. (It returned at once
            // when it skipped a snapshot being closed elsewhere; then its probe saw that connection's lock.)
            let returnedWhileClosing = wait(suspender.done, seconds: 1)
            proceed.signal()
            #expect(!returnedWhileClosing, "suspend() returned while a snapshot's connection was open")
            try #require(wait(closer.done))
            try #require(returnedWhileClosing || wait(suspender.done))
            #expect(try suspender.result()?.get() == [])
            try pool.resume()
        }
    }

    @Test("suspend() closes a reader that a read on the fast path took and gave back just as the reads had ended")
    func retiresReaderTakenOnFastPath() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try makePool(path)
            defer { pool.close() }
            // One reader, idle, its connection open (and cached by this thread).
            #expect(try pool.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 2)
            let givenBack = Locked<BackgroundRun<Void>?>(nil)
            pool.readers.setReadsEndedHook { readers in
                // What a read on the fast path does between the suspension's check and its retiring of the idle
                // readers: idle to in use without the lock, then, seeing `slowPathOnly`, back to idle.
                guard let reader = readers.first, reader.tryTake() else { return }
                givenBack.withLock {
                    $0 = runOnThreadInBackground {
                        // Taking the lock first: the give-back comes after the suspension's attempt to retire the
                        // reader, whichever way that goes, once the suspension waits or returns.
                        _ = pool.readers.count
                        pool.readers.giveBack(reader)
                    }
                }
            }
            try pool.suspend()
            #expect(givenBack.current != nil, "the hook took no reader")
            // The reader's connection is closed: a reader the fast path held a moment is retired too.
            #expect(try LockProbe.locks(on: path) == [])
            #expect(pool.readerCount == 0)
            if let run = givenBack.current { #expect(wait(run.done)) }
            try pool.resume()
            #expect(try pool.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 2)
        }
    }

    @Test("reads and writes during a suspension throw .suspended; suspend and resume twice are harmless")
    func accessesFail() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try makePool(path)
            defer { pool.close() }
            try pool.resume()
            try pool.suspend()
            try pool.suspend()
            #expect(pool.isSuspended)
            let read = #expect(throws: DatabaseError.self) { try pool.read { _ in } }
            #expect(read?.reason == .suspended)
            let write = #expect(throws: DatabaseError.self) { try pool.write { _ in } }
            #expect(write?.reason == .suspended)
            try pool.resume()
            try pool.resume()
            #expect(!pool.isSuspended)
            #expect(try pool.read { db in try db.queryValue("SELECT mark(7)", as: Int.self) } == 7)
            #expect(try pool.write { db in try db.queryValue("SELECT mark(8)", as: Int.self) } == 8)
        }
    }

    @Test("suspend() during a long read interrupts it: the read throws .suspended")
    func interruptsRead() throws {
        try TemporaryFile.withDatabasePath { path in
            let started = Locked(false)
            let pool = try makePool(path, started: started)
            defer { pool.close() }
            let run = runOnThreadInBackground {
                try pool.read { db in try db.queryValue(longMarkedQuery, as: Int.self) }
            }
            #expect(spinUntil { started.current })
            try pool.suspend()
            try #require(wait(run.done))
            let error = #expect(throws: DatabaseError.self) { try run.result()?.get() }
            #expect(error?.reason == .suspended)
            #expect(try LockProbe.locks(on: path) == [])
            try pool.resume()
        }
    }

    @Test("suspend() during a write transaction rolls it back: nothing is committed")
    func rollsBackWrite() throws {
        try TemporaryFile.withDatabasePath { path in
            let started = Locked(false)
            let pool = try makePool(path, started: started)
            defer { pool.close() }
            let run = runOnThreadInBackground {
                try pool.write { db in
                    try db.execute("INSERT INTO t VALUES (99)")
                    return try db.queryValue(longMarkedQuery, as: Int.self)
                }
            }
            #expect(spinUntil { started.current })
            try pool.suspend()
            try #require(wait(run.done))
            let error = #expect(throws: DatabaseError.self) { try run.result()?.get() }
            #expect(error?.reason == .suspended)
            #expect(try LockProbe.locks(on: path) == [])
            try pool.resume()
            #expect(try pool.read { db in try db.queryValue("SELECT count(*) FROM t WHERE x = 99", as: Int.self) } == 0)
        }
    }

    @Test("close() during a suspension returns, ends it, and reopen() opens the pool")
    func closeWhileSuspended() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try makePool(path)
            try pool.suspend()
            let closed = runOnThread(timeout: 20) { pool.close() }
            #expect(closed != nil)
            #expect(!pool.isSuspended)
            try pool.reopen()
            #expect(try pool.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 2)
            pool.close()
        }
    }

    @Test("two threads suspending at once both return with no lock held")
    func concurrentSuspends() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try makePool(path)
            defer { pool.close() }
            _ = try pool.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) }
            let failures = Locked(0)
            concurrently(2) { _ in
                do { try pool.suspend() } catch { failures.withLock { $0 += 1 } }
            }
            #expect(failures.current == 0)
            #expect(try LockProbe.locks(on: path) == [])
            try pool.resume()
            #expect(try pool.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 2)
        }
    }

    @Test("with accesses: .wait, a write waits: resume() lets it run, close() makes it throw; a read runs after resume")
    func waitingAccesses() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try makePool(path)
            try pool.suspend(accesses: .wait)
            let write = runOnThreadInBackground { try pool.write { db in try db.execute("INSERT INTO t VALUES (3)") } }
            let read = runOnThreadInBackground {
                try pool.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) }
            }
            #expect(spinUntil { pool.writer.waitingAccessCount == 1 })
            try pool.resume()
            try #require(wait(write.done))
            try #require(wait(read.done))
            #expect(throws: Never.self) { try write.result()?.get() }
            #expect([2, 3].contains(try read.result()?.get()))

            try pool.suspend(accesses: .wait)
            let closed = runOnThreadInBackground { try pool.write { _ in } }
            #expect(spinUntil { pool.writer.waitingAccessCount == 1 })
            pool.close()
            try #require(wait(closed.done))
            let error = #expect(throws: DatabaseError.self) { try closed.result()?.get() }
            #expect(error?.reason == .accessAfterClose)
        }
    }

    @Test("an observed query's stream survives a suspension and sees the commits after resume()")
    func observationSurvives() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try makePool(path)
            defer { pool.close() }
            let stream = pool.observe(tables: ["t"], bufferingPolicy: .unbounded) { db in
                try db.queryValue("SELECT count(*) FROM t", as: Int.self) ?? -1
            }
            var iterator = stream.makeAsyncIterator()
            #expect(try await iterator.next() == 2)
            try await pool.suspend()
            try await pool.resume()
            try await pool.write { db in try db.execute("INSERT INTO t VALUES (3)") }
            #expect(try await iterator.next() == 3)
        }
    }
}

@Suite("Lock audit")
struct LockAuditTests {
    @Test("a statement stepped and not reset is listed with its SQL, key literals hidden; drained, it is not")
    func listsSteppingStatements() throws {
        let db = try Database()
        defer { db.close() }
        try db.execute("CREATE TABLE t (x)")
        try db.execute("INSERT INTO t VALUES (1), (2)")
        #expect(try db.steppingStatements() == [])
        let statement = try db.prepare("SELECT x, 'file:a.db?key=secret' FROM t")
        let rows = try statement.query()
        _ = try rows.next()
        let stepping = try db.steppingStatements()
        #expect(stepping.count == 1)
        #expect(stepping.first?.sql.hasPrefix("SELECT x,") == true)
        #expect(stepping.first?.sql.contains("secret") == false)
        #expect(stepping.first?.isReadOnly == true)
        while try rows.next() != nil {}
        #expect(try db.steppingStatements() == [])
    }

    @Test("a closed connection's audit throws .connectionClosed")
    func closed() throws {
        let db = try Database()
        db.close()
        let error = #expect(throws: DatabaseError.self) { try db.steppingStatements() }
        #expect(error?.reason == .connectionClosed)
    }
}

@Suite("Suspension of a pool: observation runs", .serialized, .timeLimit(.minutes(2)))
struct PoolSuspensionObservationTests {
    @Test("an observed query's run that a suspension interrupts ends its stream with SQLITE_INTERRUPT, no hang")
    func interruptedRun() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let started = Locked(false)
            let slow = Locked(false)
            let pool = try DatabasePool(path: path, setUp: suspensionSetUp(marking: started))
            defer { pool.close() }
            try await pool.write { db in try db.execute("CREATE TABLE t (x)") }
            let stream = pool.observe(tables: ["t"], bufferingPolicy: .unbounded) { db in
                if slow.current { return try db.queryValue(longMarkedQuery, as: Int.self) ?? -1 }
                return try db.queryValue("SELECT count(*) FROM t", as: Int.self) ?? -1
            }
            var iterator = stream.makeAsyncIterator()
            #expect(try await iterator.next() == 0)
            slow.withLock { $0 = true }
            try await pool.write { db in try db.execute("INSERT INTO t VALUES (1)") }
            #expect(await waitUntil { started.current })
            try await pool.suspend()
            try await pool.resume()
            let error = await #expect(throws: DatabaseError.self) { _ = try await iterator.next() }
            #expect(error?.code == .interrupt)
        }
    }

    @Test(
        "an observed query started during a suspension ends with .suspended (.fail), or starts after resume() (.wait)")
    func startedDuringSuspension() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path)
            defer { pool.close() }
            try await pool.write { db in try db.execute("CREATE TABLE t (x)") }
            try await pool.suspend()
            let refused = pool.observe(tables: ["t"]) { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self)
            }
            var refusedIterator = refused.makeAsyncIterator()
            let error = await #expect(throws: DatabaseError.self) { _ = try await refusedIterator.next() }
            #expect(error?.reason == .suspended)
            try await pool.resume()

            try await pool.suspend(accesses: .wait)
            let waiting = pool.observe(tables: ["t"]) { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self)
            }
            #expect(await waitUntil { pool.writer.waitingAccessCount == 1 })
            try await pool.resume()
            var waitingIterator = waiting.makeAsyncIterator()
            #expect(try await waitingIterator.next() == 0)
        }
    }
}
