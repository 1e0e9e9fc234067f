import BenchmarkCore
import GRDB

// The function workloads through GRDB: `DatabaseFunction` with a closure over `[DatabaseValue]`, and a
// `DatabaseAggregate` type. GRDB has one form of each, so it runs the same code for the low-level workloads.

/// `sumsq` as GRDB's `DatabaseAggregate`.
struct GRDBSumOfSquares: GRDB.DatabaseAggregate {
    var sum: Int64 = 0

    mutating func step(_ dbValues: [DatabaseValue]) {
        let value = Int64.fromDatabaseValue(dbValues[0]) ?? 0
        sum &+= value &* value
    }

    func finalize() -> (any DatabaseValueConvertible)? { sum }
}

extension GRDBImplementation {
    /// Registers the workload's function on the queue's connection, fills the table, and returns the run.
    func prepareFunction(_ workload: Workload, size: WorkloadSize, queue: DatabaseQueue) throws -> PreparedRun {
        let isScalar = workload == .scalarFunction || workload == .scalarFunctionLowLevel
        try queue.write { db in
            try db.execute(sql: BenchmarkData.createFunctionTable)
            try db.execute(sql: BenchmarkData.populateFunctionTable(rows: size.iterations))
            if isScalar {
                db.add(
                    function: DatabaseFunction("f", argumentCount: 1, pure: true) { values in
                        BenchmarkData.scalarFunction(Int64.fromDatabaseValue(values[0]) ?? 0)
                    })
            } else {
                db.add(
                    function: DatabaseFunction("sumsq", argumentCount: 1, pure: true, aggregate: GRDBSumOfSquares.self))
            }
        }
        return PreparedRun(
            body: {
                try queue.read { db in
                    if isScalar {
                        var sum: Int64 = 0
                        let cursor = try Int64.fetchCursor(db, sql: BenchmarkData.selectScalarFunction)
                        while let value = try cursor.next() { sum &+= value }
                        return sum
                    }
                    return try Int64.fetchOne(db, sql: BenchmarkData.selectAggregateFunction) ?? 0
                }
            },
            close: { _ = try? queue.close() }
        )
    }
}
