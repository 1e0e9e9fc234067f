import BenchmarkCore
import GRDB

extension GRDBImplementation {
    /// The one-off workload through GRDB's own statement cache (`cachedStatement(sql:)`), in one access without a
    /// transaction, so each statement commits on its own, as in the other implementations.
    func prepareOneOffStatements(_ queue: DatabaseQueue, size: WorkloadSize) throws -> PreparedRun {
        try queue.write { db in
            for sql in BenchmarkData.oneOffSetup { try db.execute(sql: sql) }
        }
        let statements = BenchmarkData.oneOffStatements(size.lookups)
        return PreparedRun(
            body: {
                try queue.writeWithoutTransaction { db in
                    var sum: Int64 = 0
                    for statement in statements {
                        let cached = try db.cachedStatement(sql: statement.sql)
                        for _ in 0..<statement.runs {
                            if statement.returnsValue {
                                sum &+= try Int64.fetchOne(cached) ?? 0
                            } else {
                                try cached.execute()
                            }
                        }
                    }
                    return sum
                }
            },
            verify: { sum in
                sum &+ (try queue.read { db in try Int64.fetchOne(db, sql: BenchmarkData.checksumOneOff) } ?? 0)
            },
            close: { _ = try? queue.close() }
        )
    }
}
