import BenchmarkCore
import Foundation
import GRDB

// The queue workloads through GRDB's DatabaseQueue: one `read {}` access per point lookup, blocking and async; and
// the pool's reads through GRDB's DatabasePool.

extension GRDBImplementation {
    func prepareQueueRead(
        _ workload: Workload,
        size: WorkloadSize,
        queue: DatabaseQueue,
        close: @escaping () -> Void
    ) -> PreparedRun {
        let rows = size.rows
        let lookups = size.lookups
        if workload == .queueReadAsync {
            return PreparedRun(
                body: {
                    try waitForTask {
                        var sum: Int64 = 0
                        for lookup in 0..<lookups {
                            let id = BenchmarkData.lookupID(lookup, rows: rows)
                            sum &+= try await queue.read { db in
                                let statement = try db.cachedStatement(sql: BenchmarkData.selectByID)
                                return try Int64.fetchOne(statement, arguments: [id]) ?? 0
                            }
                        }
                        return sum
                    }
                },
                close: close
            )
        }
        return PreparedRun(
            body: {
                var sum: Int64 = 0
                for lookup in 0..<lookups {
                    let id = BenchmarkData.lookupID(lookup, rows: rows)
                    sum &+= try queue.read { db in
                        let statement = try db.cachedStatement(sql: BenchmarkData.selectByID)
                        return try Int64.fetchOne(statement, arguments: [id]) ?? 0
                    }
                }
                return sum
            },
            close: close
        )
    }

    /// `pool-read-N-threads`: `DatabasePool.read {}` accesses of 20 point lookups through a cached statement,
    /// shared by `size.threads` threads, with at least one reader per thread, each opened before timing.
    func preparePoolRead(
        size: WorkloadSize, location: DatabaseLocation, configuration: Configuration, isAsync: Bool
    ) throws -> PreparedRun {
        var configuration = configuration
        let threads = size.threads
        configuration.maximumReaderCount = max(configuration.maximumReaderCount, threads)
        // The memory mapping SQLiteToolkit's pool gives its readers, so the two pools differ in their code only.
        configuration.prepareDatabase { db in try db.execute(sql: BenchmarkData.poolReaderMemoryMap) }
        let pool = try DatabasePool(path: location.path, configuration: configuration)
        do {
            try populateIntegers(pool, rows: size.rows)
        } catch {
            try? pool.close()
            throw error
        }
        let warm = Rendezvous(count: threads)
        runOnThreads(threads) { _ in
            _ = try? pool.read { _ in warm.arriveAndWait() }
        }
        let rows = size.rows
        let accesses = size.lookups
        if isAsync {
            return PreparedRun(
                body: {
                    try waitForTask {
                        var sum: Int64 = 0
                        for access in 0..<accesses {
                            sum &+= try await pool.read { db in try Self.lookups(db, access: access, rows: rows) }
                        }
                        return sum
                    }
                },
                close: { try? pool.close() }
            )
        }
        return PreparedRun(
            body: {
                try sumOnThreads(threads, accesses: accesses) { access, _ in
                    try pool.read { db in try Self.lookups(db, access: access, rows: rows) }
                }
            },
            close: { try? pool.close() }
        )
    }

    /// The body of pool read access number `access`: 20 point lookups through a cached statement.
    private static func lookups(_ db: Database, access: Int, rows: Int) throws -> Int64 {
        let statement = try db.cachedStatement(sql: BenchmarkData.selectByID)
        var sum: Int64 = 0
        for index in 0..<BenchmarkData.lookupsPerPoolAccess {
            let id = BenchmarkData.poolLookupID(access: access, index: index, rows: rows)
            sum &+= try Int64.fetchOne(statement, arguments: [id]) ?? 0
        }
        return sum
    }
}
