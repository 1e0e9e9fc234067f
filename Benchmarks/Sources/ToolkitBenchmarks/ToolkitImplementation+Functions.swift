import BenchmarkCore
import SQLiteToolkit

// The function workloads through SQLiteToolkit: the high-level forms (a typed closure, a `DatabaseAggregate`
// type) and the low-level ones (the function context and raw values; the state closure of SQLiteBindings for the
// aggregate); the scalar ones read through a prepared statement, the aggregates with `db.queryValue`.

/// `sumsq` as a `DatabaseAggregate`.
struct SumOfSquares: DatabaseAggregate {
    var sum: Int64 = 0

    mutating func step(_ arguments: FunctionValues) throws {
        let value = try arguments.value(at: 0, as: Int64.self)
        sum &+= value &* value
    }

    func finalize() -> Int64 { sum }
}

extension ToolkitImplementation {
    /// Registers the workload's function on `db`, fills the table, and returns the run.
    func prepareFunction(_ workload: Workload, size: WorkloadSize, db: Database) throws -> PreparedRun {
        try db.execute(BenchmarkData.createFunctionTable)
        try db.execute(BenchmarkData.populateFunctionTable(rows: size.iterations))
        switch workload {
        case .scalarFunction:
            try db.createFunction("f", options: .deterministic) { (x: Int64) in BenchmarkData.scalarFunction(x) }
        case .scalarFunctionLowLevel:
            try db.createFunction("f", argumentCount: 1, options: .deterministic) { context, arguments in
                context.resultInt64(BenchmarkData.scalarFunction(arguments[0].valueInt64()))
            }
        case .aggregateFunction:
            try db.createAggregate("sumsq", argumentCount: 1, options: .deterministic, SumOfSquares.self)
        default:
            guard let handle = db.handle else { throw BenchmarkError("closed") }
            let code = handle.createAggregateFunction(
                name: "sumsq", argumentCount: 1, flags: [.utf8, .deterministic], initialState: { Int64(0) },
                step: { sum, arguments in
                    let value = arguments[0].valueInt64()
                    sum &+= value &* value
                },
                final: { context, sum in context.resultInt64(sum) })
            guard code == .ok else { throw BenchmarkError("createAggregateFunction: \(code)") }
        }
        guard workload == .scalarFunction || workload == .scalarFunctionLowLevel else {
            return PreparedRun(
                body: { try db.queryValue(BenchmarkData.selectAggregateFunction, as: Int64.self) ?? 0 },
                close: { db.close() }
            )
        }
        // The scalar cases read their rows as the read workloads do: through a prepared statement's `step()`.
        let select = try db.prepare(BenchmarkData.selectScalarFunction)
        return PreparedRun(
            body: {
                var sum: Int64 = 0
                while try select.step() { sum &+= try select.currentRow.value(at: 0, as: Int64.self) }
                try select.reset()
                return sum
            },
            close: { db.close() }
        )
    }
}
