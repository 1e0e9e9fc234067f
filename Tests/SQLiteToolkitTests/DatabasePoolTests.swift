import Foundation
import SQLiteToolkit
import Testing

@Suite("Database pool", .timeLimit(.minutes(2)))
struct DatabasePoolTests {
    /// Calls `body` with a new pool on a new file holding `item (id INTEGER PRIMARY KEY)`, closes it and removes the
    /// file afterwards.
    private func withPool<T>(
        maximumReaderCount: Int = DatabasePool.defaultMaximumReaderCount,
        readerTimeout: TimeInterval = DatabasePool.defaultReaderTimeout,
        setUp: (@Sendable (Database) throws -> Void)? = nil,
        _ body: (DatabasePool) throws -> T
    ) throws -> T {
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(
                path: path, maximumReaderCount: maximumReaderCount, readerTimeout: readerTimeout, setUp: setUp)
            defer { pool.close() }
            try pool.write { db in try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY)") }
            return try body(pool)
        }
    }

    private func count(_ db: Database) throws -> Int {
        try db.queryValue("SELECT count(*) FROM item", as: Int.self) ?? -1
    }

    @Test(
        "an in-memory pool is refused with a clear error",
        arguments: [":memory:", "", "file::memory:", "file:x?mode=memory"])
    func inMemoryRefused(path: String) throws {
        let error = try #require(throws: DatabaseError.self) { try DatabasePool(path: path) }
        #expect(error.reason == .inMemoryPool)
    }

    @Test("a pool whose file cannot be opened throws at creation")
    func opensEagerly() throws {
        let error = try #require(throws: DatabaseError.self) {
            try DatabasePool(path: "/nonexistent-\(UUID().uuidString)/db.sqlite")
        }
        #expect(error.code == .cantopen)
    }

    @Test("the database is in WAL mode and reads see committed writes")
    func walAndCommittedData() throws {
        try withPool { pool in
            #expect(try pool.read { db in try db.queryValue("PRAGMA journal_mode", as: String.self) } == "wal")
            try pool.write { db in try db.execute("INSERT INTO item DEFAULT VALUES") }
            #expect(try pool.read { db in try count(db) } == 1)
        }
    }

    @Test("a read during a write runs at once and does not see the uncommitted change")
    func readsNeverSeeUncommitted() throws {
        try withPool { pool in
            let written = DispatchSemaphore(value: 0)
            let readDone = DispatchSemaphore(value: 0)
            let writer = Thread {
                try? pool.write { db in
                    try db.execute("INSERT INTO item DEFAULT VALUES")
                    written.signal()
                    _ = wait(readDone)
                }
            }
            writer.start()
            #expect(wait(written))
            #expect(try pool.read { db in try count(db) } == 0)
            readDone.signal()
            // The next write waits for the first; after it, the insert is visible.
            try pool.write { _ in }
            #expect(try pool.read { db in try count(db) } == 1)
        }
    }

    @Test("a read started before a write keeps its snapshot until it ends")
    func snapshotIsKept() throws {
        try withPool { pool in
            let firstRead = DispatchSemaphore(value: 0)
            let writeDone = DispatchSemaphore(value: 0)
            let counts = Locked<[Int]>([])
            let reader = Thread {
                try? pool.read { db in
                    let before = try count(db)
                    firstRead.signal()
                    _ = wait(writeDone)
                    let after = try count(db)
                    counts.withLock { $0 = [before, after] }
                }
                firstRead.signal()
            }
            reader.start()
            #expect(wait(firstRead))
            try pool.write { db in try db.execute("INSERT INTO item DEFAULT VALUES") }
            writeDone.signal()
            // Wait for the reader by taking every reader connection in turn: a barrier waits for reads.
            try pool.barrierWrite { _ in }
            #expect(counts.current == [0, 0])
            #expect(try pool.read { db in try count(db) } == 1)
        }
    }

    @Test("two reads run at the same time")
    func readsRunConcurrently() throws {
        try withPool(maximumReaderCount: 2) { pool in
            let first = DispatchSemaphore(value: 0)
            let second = DispatchSemaphore(value: 0)
            let met = Locked(0)
            concurrently(2) { index in
                try? pool.read { _ in
                    // Each read waits inside for the other: only concurrent reads both get through.
                    (index == 0 ? first : second).signal()
                    if wait(index == 0 ? second : first) { met.withLock { $0 += 1 } }
                }
            }
            #expect(met.current == 2)
            #expect(pool.readerCount == 2)
        }
    }

    @Test("a write inside a read throws; the reader stays usable")
    func writeInReadThrows() throws {
        try withPool { pool in
            let error = try #require(throws: DatabaseError.self) {
                try pool.read { db in try db.execute("INSERT INTO item DEFAULT VALUES") }
            }
            #expect(error.reason == .writeInReadAccess)
            #expect(try pool.read { db in try count(db) } == 0)
        }
    }

    @Test("a nested access to the same pool throws the re-entry error instead of hanging")
    func reentryThrows() throws {
        try withPool { pool in
            let outcome = runOnThread(timeout: 20) { () throws -> [DatabaseError.Reason?] in
                var reasons: [DatabaseError.Reason?] = []
                func record(_ nested: () throws -> Void) {
                    do {
                        try nested()
                        reasons.append(nil)
                    } catch {
                        reasons.append((error as? DatabaseError)?.reason)
                    }
                }
                try pool.read { _ in
                    record { try pool.read { _ in } }
                    record { try pool.write { _ in } }
                    record { try pool.barrierWrite { _ in } }
                }
                try pool.write { _ in
                    record { try pool.read { _ in } }
                    record { try pool.write { _ in } }
                    record { try pool.reopen() }
                }
                return reasons
            }
            let result = try #require(outcome, "a nested access must throw, not wait for itself")
            #expect(try result.get() == Array(repeating: .reentrantAccess, count: 6))
        }
    }

    @Test("accesses to two different pools may nest; an access that threw leaves its thread free to access again")
    func nestedPoolsAndThrowingAccesses() throws {
        struct Failure: Error {}
        try withPool { first in
            try withPool { second in
                let outcome = runOnThread(timeout: 20) { () throws -> [Int] in
                    var failures = 0
                    do { try first.read { _ in throw Failure() } } catch is Failure { failures += 1 }
                    do { try first.write { _ in throw Failure() } } catch is Failure { failures += 1 }
                    try first.write { db in
                        try db.execute("INSERT INTO item DEFAULT VALUES")
                        try second.write { db2 in try db2.execute("INSERT INTO item DEFAULT VALUES") }
                    }
                    return [failures, try second.read { _ in try first.read { db in try count(db) } }]
                }
                let result = try #require(outcome, "nesting two pools must not deadlock")
                #expect(try result.get() == [2, 1])
                #expect(try second.read { db in try count(db) } == 1)
            }
        }
    }

    @Test("when every reader is busy a read waits, then throws after the reader timeout")
    func readerTimeout() throws {
        try withPool(maximumReaderCount: 1, readerTimeout: 0.3) { pool in
            let inside = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let holder = Thread {
                try? pool.read { _ in
                    inside.signal()
                    _ = wait(release)
                }
            }
            holder.start()
            #expect(wait(inside))
            let error = try #require(throws: DatabaseError.self) { try pool.read { db in try count(db) } }
            #expect(error.reason == .readerTimeout)
            #expect(error.isBusy)
            release.signal()
            // Once the reader is free, a waiting read gets it.
            #expect(try pool.read { db in try count(db) } == 0)
        }
    }

    @Test("the number of readers can be read and idle readers closed; the set-up hook runs on every connection")
    func readerCountAndSetUp() throws {
        let setUps = Locked(0)
        let setUp: @Sendable (Database) -> Void = { _ in setUps.withLock { $0 += 1 } }
        try withPool(setUp: setUp) { pool in
            #expect(pool.readerCount == 0)
            #expect(setUps.current == 1)  // the writer
            try pool.read { _ in }
            #expect(pool.readerCount == 1)
            #expect(setUps.current == 2)
            pool.closeIdleReaders()
            #expect(pool.readerCount == 0)
            try pool.read { _ in }
            #expect(setUps.current == 3)
        }
    }

    @Test("a barrier write waits for the reads in progress and runs alone")
    func barrierWaitsForReads() throws {
        // A short reader timeout: a read kept waiting by the barrier says so quickly.
        try withPool(readerTimeout: 0.05) { pool in
            let inside = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let readEnded = DispatchSemaphore(value: 0)
            let events = Locked<[String]>([])
            Thread {
                try? pool.read { _ in
                    inside.signal()
                    _ = release.wait(timeout: .now() + 20)
                    events.withLock { $0.append("read ends") }
                }
                readEnded.signal()
            }.start()
            #expect(wait(inside))
            let barrierEnded = DispatchSemaphore(value: 0)
            Thread {
                try? pool.barrierWrite { db in
                    events.withLock { $0.append("barrier runs") }
                    try db.execute("ALTER TABLE item ADD COLUMN name TEXT")
                }
                barrierEnded.signal()
            }.start()
            // Handshake: a barrier waiting for the read in progress keeps new reads waiting, so one times out. A
            // barrier that did not wait would run, and end, while the read still holds its reader.
            _ = try probeUntilReached(orEnded: barrierEnded) {
                do {
                    try pool.read { _ in }
                    return false
                } catch let error as DatabaseError where error.reason == .readerTimeout {
                    return true
                }
            }
            release.signal()
            #expect(wait(readEnded))
            #expect(wait(barrierEnded))
            #expect(events.current == ["read ends", "barrier runs"])
            #expect(try pool.read { db in try db.query("SELECT * FROM item").statement.columnCount } == 2)
        }
    }

    @Test("checkpoint runs in every mode")
    func checkpoint() throws {
        try withPool { pool in
            try pool.write { db in
                for _ in 0..<100 { try db.execute("INSERT INTO item DEFAULT VALUES") }
            }
            for mode in [CheckpointMode.passive, .full, .restart] {
                let result = try pool.checkpoint(mode)
                #expect(result.checkpointedFrames == result.walFrames)
            }
            let truncated = try pool.checkpoint(.truncate)
            #expect(truncated.walFrames == 0)
            #expect(try pool.read { db in try count(db) } == 100)
        }
    }

    @Test("automatic checkpoints keep the WAL below 1000 pages while no read holds it, also after reopen")
    func automaticCheckpoints() throws {
        try withPool { pool in
            for round in 0..<2 {
                try pool.write { db in try db.execute("CREATE TABLE blob\(round) (b BLOB)") }
                // About 1,500 pages of 4 KiB in 300 commits: without automatic checkpoints the WAL would hold them all.
                for _ in 0..<300 {
                    try pool.write { db in
                        try db.execute(
                            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5) "
                                + "INSERT INTO blob\(round) SELECT randomblob(4000) FROM n")
                    }
                }
                let result = try pool.checkpoint(.passive)
                #expect(result.walFrames < 1000)
                pool.close()
                try pool.reopen()
            }
        }
    }

    @Test("async reads and writes from many tasks")
    func asyncAccesses() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path)
            try await pool.write { db in try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY)") }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        if index.isMultiple(of: 2) {
                            try await pool.write { db in try db.execute("INSERT INTO item DEFAULT VALUES") }
                        } else {
                            let count = try await pool.read { db in
                                try db.queryValue("SELECT count(*) FROM item", as: Int.self)
                            }
                            #expect((0...20).contains(count ?? -1))
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await pool.read { db in try db.queryValue("SELECT count(*) FROM item", as: Int.self) } == 20)
            pool.close()
        }
    }

    @Test("after close, accesses throw the closed error")
    func closed() throws {
        try withPool { pool in
            try pool.read { _ in }
            pool.close()
            #expect(pool.readerCount == 0)
            let error = try #require(throws: DatabaseError.self) { try pool.read { _ in } }
            #expect(error.reason == .accessAfterClose)
            #expect(throws: DatabaseError.self) { try pool.write { _ in } }
            pool.close()
        }
    }

    @Test("reopen opens the pool again with the same path and set-up hook; reads and writes work again")
    func reopen() throws {
        let setUps = Locked(0)
        let setUp: @Sendable (Database) throws -> Void = { db in
            setUps.withLock { $0 += 1 }
            try db.execute("PRAGMA cache_size = -500")
        }
        try withPool(setUp: setUp) { pool in
            try pool.write { db in try db.execute("INSERT INTO item DEFAULT VALUES") }
            try pool.read { _ in }
            #expect(setUps.current == 2)  // the writer and one reader
            pool.close()
            #expect(!pool.isOpen)
            #expect(throws: DatabaseError.self) { try pool.read { _ in } }
            try pool.reopen()
            #expect(pool.isOpen)
            #expect(setUps.current == 3)  // the writer again; readers open when reads need them
            #expect(pool.readerCount == 0)
            #expect(try pool.read { db in try count(db) } == 1)
            #expect(try pool.read { db in try db.queryValue("PRAGMA cache_size", as: Int.self) } == -500)
            #expect(setUps.current == 4)
            try pool.write { db in try db.execute("INSERT INTO item DEFAULT VALUES") }
            #expect(try pool.read { db in try count(db) } == 2)
            #expect(
                try pool.writeWithoutTransaction { db in try db.queryValue("PRAGMA journal_mode", as: String.self) }
                    == "wal")
        }
    }

    @Test("reopen on an open pool does nothing; close and reopen can repeat")
    func reopenWhenOpen() throws {
        let setUps = Locked(0)
        let setUp: @Sendable (Database) -> Void = { _ in setUps.withLock { $0 += 1 } }
        try withPool(setUp: setUp) { pool in
            try pool.reopen()
            #expect(setUps.current == 1)
            for round in 1...3 {
                pool.close()
                try pool.reopen()
                try pool.write { db in try db.execute("INSERT INTO item DEFAULT VALUES") }
                #expect(try pool.read { db in try count(db) } == round)
            }
        }
    }

    @Test("reopen inside an access to the pool throws the re-entry error")
    func reopenReentry() throws {
        try withPool { pool in
            let outcome = runOnThread(timeout: 20) { () throws -> [DatabaseError.Reason?] in
                var reasons: [DatabaseError.Reason?] = []
                func record(_ nested: () throws -> Void) {
                    do {
                        try nested()
                        reasons.append(nil)
                    } catch {
                        reasons.append((error as? DatabaseError)?.reason)
                    }
                }
                try pool.read { _ in record { try pool.reopen() } }
                try pool.write { _ in record { try pool.reopen() } }
                return reasons
            }
            let result = try #require(outcome, "a nested reopen must throw, not wait for itself")
            #expect(try result.get() == [.reentrantAccess, .reentrantAccess])
            #expect(pool.isOpen)
        }
    }

    @Test("a pool whose file became unreadable stays closed when reopen fails")
    func reopenFails() throws {
        try TemporaryFile.withDatabasePath { path in
            let shouldFail = Locked(false)
            struct HookFailure: Error {}
            let pool = try DatabasePool(path: path) { _ in
                if shouldFail.current { throw HookFailure() }
            }
            pool.close()
            shouldFail.withLock { $0 = true }
            #expect(throws: HookFailure.self) { try pool.reopen() }
            #expect(!pool.isOpen)
            let error = try #require(throws: DatabaseError.self) { try pool.read { _ in } }
            #expect(error.reason == .accessAfterClose)
            shouldFail.withLock { $0 = false }
            try pool.reopen()
            #expect(try pool.read { db in try db.queryValue("SELECT 1", as: Int.self) } == 1)
            pool.close()
        }
    }

    @Test("cancelling the task of an async read interrupts its statement; the pool stays usable")
    func asyncReadCancellation() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path)
            let started = Locked(false)
            let task = Task {
                try await pool.read { db in try countToABillion(db, signalling: started) }
            }
            let error = try await cancelOnceStarted(task, started)
            #expect(error.isInterrupted)
            #expect(try await pool.read { db in try db.queryValue("SELECT 1", as: Int.self) } == 1)
            pool.close()
        }
    }

    @Test("an async read waits for a reader when every reader is busy, then runs")
    func asyncReadWaitsForReader() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path, maximumReaderCount: 1)
            let release = try await holdReader(of: pool)
            // Returns once the read found every reader busy and waits for one.
            let waiting = startImmediately { try await pool.read { db in try db.queryValue("SELECT 2", as: Int.self) } }
            release.signal()
            #expect(try await waiting.value == 2)
            #expect(pool.readerCount == 1)
            pool.close()
        }
    }

    @Test("an async read waits at most the reader timeout; one waiting when the pool closes throws the closed error")
    func asyncReadTimeoutAndClose() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path, maximumReaderCount: 1, readerTimeout: 0.3)
            let release = try await holdReader(of: pool)
            let timedOut = await #expect(throws: DatabaseError.self) {
                try await pool.read { db in try db.queryValue("SELECT 1", as: Int.self) }
            }
            #expect(timedOut?.reason == .readerTimeout)
            #expect(timedOut?.isBusy == true)

            // A read waiting for the reader when the pool closes: close waits for the holder, then the waiting read
            // wakes to a closed pool.
            let pool2 = try DatabasePool(path: path, maximumReaderCount: 1)
            let release2 = try await holdReader(of: pool2)
            let waiting = startImmediately {
                try await pool2.read { db in try db.queryValue("SELECT 1", as: Int.self) }
            }
            // close() on a thread of its own: it blocks until the read holding the reader ends.
            let closeEnded = DispatchSemaphore(value: 0)
            Thread {
                pool2.close()
                closeEnded.signal()
            }.start()
            // The pool says it is closed as soon as close() starts, before close() waits for the read in progress.
            #expect(await waitUntil { !pool2.isOpen })
            release2.signal()
            try await waitOffCooperativePool(closeEnded)
            let closed = try await #require(throws: DatabaseError.self) { try await waiting.value }
            #expect(closed.reason == .accessAfterClose)
            release.signal()
            pool.close()
        }
    }

    /// Starts a read on a thread of its own that holds a reader until the returned semaphore is signalled (or 20 s
    /// pass), and returns once the read holds it.
    @Test("an async read whose new reader fails its set-up hook throws that error and leaves no reader behind")
    func asyncReadSetUpFailure() async throws {
        struct HookFailure: Error {}
        try await TemporaryFile.withDatabasePathAsync { path in
            let fail = Locked(false)
            let pool = try DatabasePool(path: path) { _ in
                if fail.current { throw HookFailure() }
            }
            fail.withLock { $0 = true }
            await #expect(throws: HookFailure.self) { try await pool.read { _ in 1 } }
            #expect(pool.readerCount == 0)
            fail.withLock { $0 = false }
            #expect(try await pool.read { db in try db.queryValue("SELECT 1", as: Int.self) } == 1)
            #expect(pool.readerCount == 1)
            pool.close()
        }
    }

    @Test("after close, every write form throws the closed error naming the pool, not a queue")
    func closedWriterNamesThePool() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path)
            pool.close()
            var errors: [DatabaseError] = []
            errors.append(try #require(throws: DatabaseError.self) { try pool.write { _ in } })
            errors.append(try #require(throws: DatabaseError.self) { try pool.writeWithoutTransaction { _ in } })
            errors.append(try #require(throws: DatabaseError.self) { try pool.barrierWrite { _ in } })
            errors.append(try #require(throws: DatabaseError.self) { try pool.checkpoint() })
            errors.append(try await #require(throws: DatabaseError.self) { try await pool.write { _ in } })
            errors.append(
                try await #require(throws: DatabaseError.self) { try await pool.writeWithoutTransaction { _ in } })
            errors.append(try await #require(throws: DatabaseError.self) { try await pool.barrierWrite { _ in } })
            for error in errors {
                #expect(error.reason == .accessAfterClose)
                #expect(error.message == "the database pool is closed")
            }
            // A queue's message still names the queue.
            let queue = try DatabaseQueue()
            queue.close()
            let queueError = try #require(throws: DatabaseError.self) { try queue.write { _ in } }
            #expect(queueError.message == "the database queue is closed")
        }
    }

    @Test(
        "an async write runs on the writer's dispatch queue, not on the awaiting task's thread; nested accesses throw")
    func asyncWriteRunsOnTheWriterQueue() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path)
            try await pool.write { db in try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY)") }
            // A long write must not hold a thread of the cooperative pool (one per core), which the task that would
            // cancel it may need.
            let caller = UInt(bitPattern: Int(bitPattern: pthread_self()))
            let inside = try await pool.write { db in
                try db.execute("INSERT INTO item DEFAULT VALUES")
                return UInt(bitPattern: Int(bitPattern: pthread_self()))
            }
            #expect(inside != caller)
            // The writer's thread is marked as inside an access to the pool while the write runs.
            let nested = try await pool.writeWithoutTransaction { _ in
                let write = #expect(throws: DatabaseError.self) { try pool.write { _ in } }
                let read = #expect(throws: DatabaseError.self) { try pool.read { _ in } }
                return [write?.reason, read?.reason]
            }
            #expect(nested == [.reentrantAccess, .reentrantAccess])
            // A blocking read afterwards works.
            let blockingCount = { () throws -> Int? in
                try pool.read { db in try db.queryValue("SELECT count(*) FROM item", as: Int.self) }
            }
            #expect(try blockingCount() == 1)
            pool.close()
        }
    }

    @Test("an async write waits while another write holds the writer, then runs")
    func asyncWriteWaitsForWriter() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path)
            try await pool.write { db in try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY)") }
            let inside = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let holder = Thread {
                try? pool.write { db in
                    try db.execute("INSERT INTO item DEFAULT VALUES")
                    inside.signal()
                    _ = release.wait(timeout: .now() + 20)
                }
            }
            holder.start()
            try await waitOffCooperativePool(inside)
            // Returns once the write was started, and handed to the writer's queue to wait for the writer.
            let waiting = startImmediately {
                try await pool.write { db in
                    try db.execute("INSERT INTO item DEFAULT VALUES")
                    return try db.queryValue("SELECT count(*) FROM item", as: Int.self)
                }
            }
            release.signal()
            // The waiting write ran after the holder committed: it saw both rows.
            #expect(try await waiting.value == 2)
            pool.close()
        }
    }

    @Test("cancelling the task of an async write interrupts its statement and rolls back; the pool stays usable")
    func asyncWriteCancellation() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path)
            try await pool.write { db in try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY)") }
            let started = Locked(false)
            let task = Task {
                try await pool.write { db in
                    try db.execute("INSERT INTO item DEFAULT VALUES")
                    return try countToABillion(db, signalling: started)
                }
            }
            let error = try await cancelOnceStarted(task, started)
            #expect(error.isInterrupted)
            #expect(try await pool.read { db in try db.queryValue("SELECT count(*) FROM item", as: Int.self) } == 0)
            try await pool.write { db in try db.execute("INSERT INTO item DEFAULT VALUES") }
            #expect(try await pool.read { db in try db.queryValue("SELECT count(*) FROM item", as: Int.self) } == 1)
            pool.close()
        }
    }

    @Test("reader connections use memory-mapped I/O by default; the set-up hook can change it; encrypted pools work")
    func readerMemoryMapping() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path)
            defer { pool.close() }
            try pool.write { db in try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY)") }
            #expect(
                try pool.read { db in try db.queryValue("PRAGMA mmap_size", as: Int.self) }
                    == DatabasePool.readerMemoryMapSize)
        }
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path) { db in try db.execute("PRAGMA mmap_size = 0") }
            defer { pool.close() }
            #expect(try pool.read { db in try db.queryValue("PRAGMA mmap_size", as: Int.self) } == 0)
        }
        // Encrypted: SQLite maps no page of an encrypted file, so reads and writes behave as without the setting;
        // with the key in the configuration, and with the key set by the hook (after the pool's mmap_size).
        let key = DatabaseKey.raw(hex: String(repeating: "3c", count: 32))
        for keyInSetUp in [false, true] {
            try TemporaryFile.withDatabasePath { (path: String) throws -> Void in
                var configuration = Database.Configuration()
                if !keyInSetUp { configuration.key = key }
                var setUp: (@Sendable (Database) throws -> Void)?
                if keyInSetUp {
                    setUp = { db in try db.setKey(key, cipher: nil) }
                }
                let pool = try DatabasePool(path: path, configuration: configuration, setUp: setUp)
                defer { pool.close() }
                try pool.write { db in
                    try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, v TEXT)")
                    for index in 0..<2_000 { try db.execute("INSERT INTO item (v) VALUES (?)", "row \(index)") }
                }
                for round in 0..<3 {
                    try pool.write { db in try db.execute("INSERT INTO item (v) VALUES (?)", "round \(round)") }
                    let count = try pool.read { db in try db.queryValue("SELECT count(*) FROM item", as: Int.self) }
                    #expect(count == 2_001 + round)
                }
                pool.close()
                // Without the key the file is not a database: opening it throws.
                let error = try #require(throws: DatabaseError.self) { try Database(path: path) }
                #expect(error.reason == .notADatabase)
            }
        }
    }
}
