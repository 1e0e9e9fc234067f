import BenchmarkCore
import Foundation
import GRDB

// The queue workloads through GRDB's DatabaseQueue: one `read {}` access per point lookup, blocking and async.

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
}
