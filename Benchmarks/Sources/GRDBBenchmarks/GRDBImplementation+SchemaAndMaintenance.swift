import BenchmarkCore
import GRDB

// The schema-and-maintenance workloads through GRDB.swift: `DatabaseQueue.backup(to:pagesPerStep:)`. GRDB has no
// incremental BLOB API, so the blob workload is not in its list.

extension GRDBImplementation {
    func prepareSchemaAndMaintenance(_ workload: Workload, size: WorkloadSize, queue: DatabaseQueue) throws
        -> PreparedRun
    {
        switch workload {
        case .backupRows:
            try populateIntegers(queue, rows: size.rows)
            let destination = try DatabaseQueue()
            return PreparedRun(
                body: {
                    try queue.backup(to: destination, pagesPerStep: BenchmarkData.backupPagesPerStep)
                    return 0
                },
                verify: { _ in
                    try destination.read { db in try Int64.fetchOne(db, sql: BenchmarkData.checksumIntegers) } ?? 0
                },
                close: {
                    _ = try? destination.close()
                    _ = try? queue.close()
                }
            )
        default:
            throw BenchmarkError("GRDB has no incremental BLOB API: \(workload.rawValue) is not in its workloads")
        }
    }
}
