import BenchmarkCore
import Foundation
import SQLiteToolkit

// The concurrency workloads: a DatabaseQueue's read access (blocking and async) per point lookup, and a
// DatabasePool's reads on one and two threads and writes with and without concurrent reads.

extension ToolkitImplementation {
    /// The run of a concurrency workload, or `nil` for the other workloads.
    func prepareConcurrency(_ workload: Workload, size: WorkloadSize, location: DatabaseLocation) throws
        -> PreparedRun?
    {
        switch workload {
        case .queueRead, .queueReadAsync:
            return try prepareQueueRead(isAsync: workload == .queueReadAsync, size: size, location: location)
        case .poolRead:
            return try preparePoolRead(threads: size.threads, size: size, location: location)
        case .poolReadAsync:
            return try preparePoolReadAsync(size: size, location: location)
        case .poolWrite, .poolWriteWithReads:
            return try preparePoolWrite(
                readers: workload == .poolWrite ? 0 : Self.readingThreads, size: size, location: location)
        default:
            return nil
        }
    }

    private func prepareQueueRead(isAsync: Bool, size: WorkloadSize, location: DatabaseLocation) throws -> PreparedRun {
        let queue = try makeQueue(size: size, location: location)
        let rows = size.rows
        let lookups = size.lookups
        let close = { queue.close() }
        if isAsync {
            return PreparedRun(
                body: { try waitForTask { try await Self.queueReadsAsync(queue, lookups: lookups, rows: rows) } },
                close: close)
        }
        return PreparedRun(body: { try Self.queueReads(queue, lookups: lookups, rows: rows) }, close: close)
    }

    /// A queue on `location` holding the rows the lookups read.
    private func makeQueue(size: WorkloadSize, location: DatabaseLocation) throws -> DatabaseQueue {
        let pragmas = location.storage.pragmas
        let queue = try DatabaseQueue(path: location.path) { db in
            for pragma in pragmas { try db.execute(pragma) }
        }
        try queue.inDatabase { db in try populateIntegers(db, rows: size.rows) }
        return queue
    }

    /// `lookups` blocking read accesses of `queue`, one point lookup each.
    private static func queueReads(_ queue: DatabaseQueue, lookups: Int, rows: Int) throws -> Int64 {
        var sum: Int64 = 0
        for lookup in 0..<lookups {
            let id = BenchmarkData.lookupID(lookup, rows: rows)
            sum &+= try queue.read { db in try db.queryValue(BenchmarkData.selectByID, id, as: Int64.self) ?? 0 }
        }
        return sum
    }

    /// ``queueReads(_:lookups:rows:)`` with the async accesses.
    private static func queueReadsAsync(_ queue: DatabaseQueue, lookups: Int, rows: Int) async throws -> Int64 {
        var sum: Int64 = 0
        for lookup in 0..<lookups {
            let id = BenchmarkData.lookupID(lookup, rows: rows)
            sum &+= try await queue.read { db in try db.queryValue(BenchmarkData.selectByID, id, as: Int64.self) ?? 0 }
        }
        return sum
    }

    /// The body of read access number `access`: 20 point lookups.
    private static func lookups(_ db: Database, access: Int, rows: Int) throws -> Int64 {
        var sum: Int64 = 0
        for index in 0..<BenchmarkData.lookupsPerPoolAccess {
            let id = BenchmarkData.poolLookupID(access: access, index: index, rows: rows)
            sum &+= try db.queryValue(BenchmarkData.selectByID, id, as: Int64.self) ?? 0
        }
        return sum
    }

    private func preparePoolReadAsync(size: WorkloadSize, location: DatabaseLocation) throws -> PreparedRun {
        let pool = try makePool(size: size, location: location)
        try pool.read { _ in }
        let rows = size.rows
        let accesses = size.lookups
        return PreparedRun(
            body: { try waitForTask { try await Self.poolReadsAsync(pool, accesses: accesses, rows: rows) } },
            close: { pool.close() }
        )
    }

    /// `accesses` async read accesses of `pool`, 20 point lookups each.
    private static func poolReadsAsync(_ pool: DatabasePool, accesses: Int, rows: Int) async throws -> Int64 {
        var sum: Int64 = 0
        for access in 0..<accesses {
            sum &+= try await pool.read { db in try lookups(db, access: access, rows: rows) }
        }
        return sum
    }

    /// Read access number `access`: 20 point lookups.
    private static func readAccess(_ pool: DatabasePool, _ access: Int, rows: Int) throws -> Int64 {
        try pool.read { db in try lookups(db, access: access, rows: rows) }
    }

    /// The threads that keep reading in `pool-write-with-reads`: 2, or `SQLTK_BENCH_POOL_READERS` (for example 1, to
    /// see what reads cost the writer when the threads do not outnumber the cores).
    private static let readingThreads =
        ProcessInfo.processInfo.environment["SQLTK_BENCH_POOL_READERS"].flatMap { Int($0) }.map { max(1, $0) } ?? 2

    /// Statements every pool connection runs after the storage's pragmas, from `SQLTK_BENCH_POOL_PRAGMAS`
    /// (separated by `;`): for comparing settings (`PRAGMA mmap_size = 0`, `PRAGMA cache_size = ...`) without a
    /// rebuild. Empty by default, so the workloads measure the pool as users get it.
    private static let extraPoolPragmas: [String] =
        (ProcessInfo.processInfo.environment["SQLTK_BENCH_POOL_PRAGMAS"] ?? "")
        .split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }

    /// Whether the writes of `pool-write` and `pool-write-with-reads` go through the cross-process write gate
    /// (`Configuration.usesWriteGate`): `SQLTK_BENCH_WRITE_GATE=1`, for what the gate costs a single writer.
    private static let usesWriteGate = ProcessInfo.processInfo.environment["SQLTK_BENCH_WRITE_GATE"] == "1"

    /// A pool of at least `readers` readers (the default 5 otherwise), the table of integers written.
    private func makePool(
        size: WorkloadSize, location: DatabaseLocation, readers: Int = 0, usesWriteGate: Bool = false
    ) throws -> DatabasePool {
        let pragmas = location.storage.pragmas + Self.extraPoolPragmas
        var configuration = Database.Configuration()
        configuration.usesWriteGate = usesWriteGate
        let pool = try DatabasePool(
            path: location.path, configuration: configuration,
            maximumReaderCount: max(DatabasePool.defaultMaximumReaderCount, readers)
        ) { db in
            for pragma in pragmas { try db.execute(pragma) }
        }
        try pool.writeWithoutTransaction { db in try populateIntegers(db, rows: size.rows) }
        return pool
    }

    private func preparePoolRead(threads: Int, size: WorkloadSize, location: DatabaseLocation) throws -> PreparedRun {
        // One reader per thread at least, so that no thread waits for a reader: the workload measures the read
        // path, not the reader limit.
        let pool = try makePool(size: size, location: location, readers: threads)
        let rows = size.rows
        let accesses = size.lookups
        // Open a reader per thread before timing, as a running app would have them: each warm-up read waits inside
        // for the others, so `threads` readers are in use at once.
        let warm = Rendezvous(count: threads)
        runOnThreads(threads) { _ in
            _ = try? pool.read { _ in warm.arriveAndWait() }
        }
        return PreparedRun(
            body: {
                try sumOnThreads(threads, accesses: accesses) { access, _ in
                    try Self.readAccess(pool, access, rows: rows)
                }
            },
            close: { pool.close() }
        )
    }

    private func preparePoolWrite(readers: Int, size: WorkloadSize, location: DatabaseLocation) throws -> PreparedRun {
        let pool = try makePool(size: size, location: location, usesWriteGate: Self.usesWriteGate)
        try pool.write { db in try db.execute("CREATE TABLE w (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)") }
        let rows = size.rows
        let accesses = size.lookups
        return PreparedRun(
            body: {
                let stop = StopFlag()
                let readErrors = SharedSum()
                let finished = DispatchSemaphore(value: 0)
                for reader in 0..<readers {
                    Thread {
                        var access = reader
                        while !stop.isSet {
                            do {
                                _ = try Self.readAccess(pool, access, rows: rows)
                            } catch {
                                readErrors.fail(error)
                                break
                            }
                            access &+= readers
                        }
                        finished.signal()
                    }.start()
                }
                let clock = WriterClock()
                let written = Result {
                    for access in 0..<accesses {
                        try pool.write { db in try db.execute("INSERT INTO w (v) VALUES (?)", access) }
                    }
                }
                clock.report(readers: readers)
                stop.set()
                for _ in 0..<readers { finished.wait() }
                try written.get()
                _ = try readErrors.get()
                return Int64(accesses)
            },
            verify: { _ in
                try pool.read { db in try db.queryValue("SELECT count(*) + total(v) FROM w", as: Int64.self) } ?? 0
            },
            close: { pool.close() }
        )
    }
}

/// With `SQLTK_BENCH_THREAD_CPU` set, prints the writing thread's wall and CPU time to standard error: whether the
/// writer beside the readers did more work per write, or waited for a core or a lock.
private struct WriterClock {
    static let isEnabled = ProcessInfo.processInfo.environment["SQLTK_BENCH_THREAD_CPU"] != nil
    let wall = DispatchTime.now().uptimeNanoseconds
    let cpu = WriterClock.threadCPUNanoseconds()

    static func threadCPUNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    func report(readers: Int) {
        guard Self.isEnabled else { return }
        let wallMilliseconds = Double(DispatchTime.now().uptimeNanoseconds &- wall) / 1e6
        let cpuMilliseconds = Double(Self.threadCPUNanoseconds() &- cpu) / 1e6
        FileHandle.standardError.write(
            Data(
                String(
                    format: "writer beside %d readers: wall %.1f ms, cpu %.1f ms\n", readers, wallMilliseconds,
                    cpuMilliseconds
                ).utf8))
    }
}

extension ToolkitImplementation {
    /// The blocking and the async read access of one queue (as in `queue-read`: one point lookup per access) or one
    /// pool (as in `pool-read`: 20 point lookups per access) on one database, for `async-overhead`, which times the
    /// two alternately: sharing the database, they share its pages in memory. Both bodies run in a task the calling
    /// thread waits for, the blocking accesses called from it as from any async code, so that both run on the
    /// threads of Swift's cooperative pool, and both pay the one hop of starting the task: a pool's blocking reads
    /// on the calling thread took 16 µs each where the same reads in a task took 11 µs (on another reader, bound to
    /// another thread), which would have measured threads and readers rather than the async API. The blocking
    /// run's `close` closes the database, the async run's does nothing.
    public func prepareReadAccessPair(pool usesPool: Bool, size: WorkloadSize, location: DatabaseLocation) throws
        -> (blocking: PreparedRun, async: PreparedRun)
    {
        let rows = size.rows
        let accesses = size.lookups
        if usesPool {
            let pool = try makePool(size: size, location: location)
            try pool.read { _ in }
            let blocking = PreparedRun(
                body: {
                    try waitForTask {
                        var sum: Int64 = 0
                        for access in 0..<accesses { sum &+= try Self.readAccess(pool, access, rows: rows) }
                        return sum
                    }
                },
                close: { pool.close() })
            let async = PreparedRun(
                body: { try waitForTask { try await Self.poolReadsAsync(pool, accesses: accesses, rows: rows) } },
                close: {})
            return (blocking, async)
        }
        let queue = try makeQueue(size: size, location: location)
        let blocking = PreparedRun(
            body: { try waitForTask { try Self.queueReads(queue, lookups: accesses, rows: rows) } },
            close: { queue.close() })
        let async = PreparedRun(
            body: { try waitForTask { try await Self.queueReadsAsync(queue, lookups: accesses, rows: rows) } },
            close: {})
        return (blocking, async)
    }
}
