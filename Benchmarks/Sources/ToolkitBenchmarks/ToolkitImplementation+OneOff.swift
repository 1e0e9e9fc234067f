import BenchmarkCore
import SQLiteToolkit

extension ToolkitImplementation {
    /// The one-off workload as ad-hoc SQL runs through the toolkit: `queryValue` and `execute`, through the
    /// connection's statement cache with its default capacity.
    func prepareOneOffStatements(_ db: Database, size: WorkloadSize) throws -> PreparedRun {
        for sql in BenchmarkData.oneOffSetup { try db.execute(sql) }
        let statements = BenchmarkData.oneOffStatements(size.lookups)
        return PreparedRun(
            body: {
                var sum: Int64 = 0
                for statement in statements {
                    for _ in 0..<statement.runs {
                        if statement.returnsValue {
                            sum &+= try db.queryValue(statement.sql, as: Int64.self) ?? 0
                        } else {
                            try db.execute(statement.sql)
                        }
                    }
                }
                return sum
            },
            verify: { sum in sum &+ (try db.queryValue(BenchmarkData.checksumOneOff, as: Int64.self) ?? 0) },
            close: { db.close() }
        )
    }
}
