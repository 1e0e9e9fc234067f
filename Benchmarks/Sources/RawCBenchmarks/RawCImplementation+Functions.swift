import BenchmarkCore
import CSQLiteToolkit

// The function workloads in C: `f` and `sumsq` are `@convention(c)` functions that call SQLite's C API directly
// (the machine code a C file would compile to), registered with `sqlite3_create_function_v2`, and the query loop
// is the baseline's: step, `sqlite3_column_int64`, sum.

/// `f(x) = 2x + 1`.
private let scalarFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, _, arguments in
    guard let arguments else { return }
    sqltk_sqlite3_result_int64(context, BenchmarkData.scalarFunction(sqltk_sqlite3_value_int64(arguments[0])))
}

/// `sumsq` step: adds x² to the 8-byte sum in the aggregate context.
private let sumOfSquaresStep: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, _, arguments in
    guard let arguments,
        let sum = sqltk_sqlite3_aggregate_context(context, Int32(MemoryLayout<Int64>.size))
    else { return }
    let value = sqltk_sqlite3_value_int64(arguments[0])
    sum.assumingMemoryBound(to: Int64.self).pointee &+= value &* value
}

/// `sumsq` final: the sum, 0 when no row was added.
private let sumOfSquaresFinal: @convention(c) (OpaquePointer?) -> Void = { context in
    let sum = sqltk_sqlite3_aggregate_context(context, 0)?.assumingMemoryBound(to: Int64.self).pointee ?? 0
    sqltk_sqlite3_result_int64(context, sum)
}

extension RawCImplementation {
    /// Opens the database, registers the C functions and fills the table.
    func prepareFunction(_ workload: Workload, size: WorkloadSize, location: DatabaseLocation) throws -> PreparedRun {
        var connection: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        guard sqltk_sqlite3_open_v2(location.path, &connection, flags, nil) == SQLITE_OK, let connection else {
            sqltk_sqlite3_close(connection)
            throw BenchmarkError("open \(location.path) failed")
        }
        func execute(_ sql: String) throws {
            guard sqltk_sqlite3_exec(connection, sql, nil, nil, nil) == SQLITE_OK else {
                throw BenchmarkError("\(sql): \(String(cString: sqltk_sqlite3_errmsg(connection)))")
            }
        }
        let flagsUTF8Deterministic = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        var statement: OpaquePointer?
        do {
            for pragma in location.storage.pragmas { try execute(pragma) }
            try execute(BenchmarkData.createFunctionTable)
            try execute(BenchmarkData.populateFunctionTable(rows: size.iterations))
            let isScalar = workload == .scalarFunction || workload == .scalarFunctionLowLevel
            let code =
                isScalar
                ? sqltk_sqlite3_create_function_v2(
                    connection, "f", 1, flagsUTF8Deterministic, nil, scalarFunction, nil, nil, nil)
                : sqltk_sqlite3_create_function_v2(
                    connection, "sumsq", 1, flagsUTF8Deterministic, nil, nil, sumOfSquaresStep, sumOfSquaresFinal,
                    nil)
            guard code == SQLITE_OK else { throw BenchmarkError("sqlite3_create_function_v2: \(code)") }
            let sql = isScalar ? BenchmarkData.selectScalarFunction : BenchmarkData.selectAggregateFunction
            guard sqltk_sqlite3_prepare_v3(connection, sql, -1, 0, &statement, nil) == SQLITE_OK, let select = statement
            else { throw BenchmarkError("\(sql): \(String(cString: sqltk_sqlite3_errmsg(connection)))") }
            return PreparedRun(
                body: {
                    var sum: Int64 = 0
                    var code = sqltk_sqlite3_step(select)
                    while code == SQLITE_ROW {
                        sum &+= sqltk_sqlite3_column_int64(select, 0)
                        code = sqltk_sqlite3_step(select)
                    }
                    sqltk_sqlite3_reset(select)
                    guard code == SQLITE_DONE else { throw BenchmarkError("\(sql): step failed (\(code))") }
                    return sum
                },
                close: {
                    sqltk_sqlite3_finalize(select)
                    sqltk_sqlite3_close(connection)
                }
            )
        } catch {
            sqltk_sqlite3_finalize(statement)
            sqltk_sqlite3_close(connection)
            throw error
        }
    }
}
