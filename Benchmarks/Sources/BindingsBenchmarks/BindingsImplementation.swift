import BenchmarkCore
import SQLiteBindings

// The micro-benchmark of issue 3: the loop of CBaseline's `CBaselineWorkloads.directBindStepColumnReset` (run by
// RawCBenchmarks), written against the generated wrappers of SQLiteBindings instead of the C functions. Same
// statement, same checks, same amalgamation: any difference is the cost of the wrappers.

/// The generated wrappers of SQLiteBindings, for the bind/step/column/reset loop only.
public struct BindingsImplementation: BenchmarkImplementation {
    /// Makes the implementation.
    public init() {}

    /// `bindings`.
    public var name: String { "bindings" }
    /// The column title.
    public var title: String { "SQLiteBindings" }
    /// Only the micro-benchmark.
    public var workloads: [Workload] { [.bindStepColumnReset] }

    /// The version through `SELECT sqlite_version()`.
    public func sqliteVersion() throws -> String {
        let connection = try open(DatabaseLocation(storage: .memory, path: ":memory:"))
        defer { _ = connection.close() }
        let statement = try prepare(connection, "SELECT sqlite_version()")
        defer { _ = statement.finalize() }
        guard statement.step() == .row else { throw BenchmarkError("SELECT sqlite_version() failed") }
        return statement.columnText(0) ?? "?"
    }

    /// Opens the database and prepares `SELECT ?1 + 1`.
    public func prepare(_ workload: Workload, size: WorkloadSize, location: DatabaseLocation) throws -> PreparedRun {
        guard workload == .bindStepColumnReset else { throw BenchmarkError("\(workload) is not implemented") }
        let connection = try open(location)
        let statement: StatementHandle
        do {
            statement = try prepare(connection, BenchmarkData.selectPlusOne)
        } catch {
            _ = connection.close()
            throw error
        }
        let iterations = size.iterations
        return PreparedRun(
            body: { try wrappedBindStepColumnReset(statement, iterations: iterations) },
            close: {
                _ = statement.finalize()
                _ = connection.close()
            }
        )
    }

    private func open(_ location: DatabaseLocation) throws -> ConnectionHandle {
        let (code, connection) = ConnectionHandle.open(
            path: location.path, flags: [.readwrite, .create, .nomutex], vfs: nil)
        guard code == .ok, let connection else {
            _ = connection?.close()
            throw BenchmarkError("open \(location.path): \(code)")
        }
        do {
            for pragma in location.storage.pragmas {
                let statement = try prepare(connection, pragma)
                defer { _ = statement.finalize() }
                var step = statement.step()
                while step == .row { step = statement.step() }
                guard step == .done else { throw BenchmarkError("\(pragma): \(step)") }
            }
        } catch {
            _ = connection.close()
            throw error
        }
        return connection
    }

    private func prepare(_ connection: ConnectionHandle, _ sql: String) throws -> StatementHandle {
        let (code, statement) = connection.prepare(sql: sql, flags: .persistent)
        guard code == .ok, let statement else {
            throw BenchmarkError("\(sql): \(connection.errorMessage() ?? "\(code)")")
        }
        return statement
    }
}

/// The micro-benchmark loop through the generated wrappers.
@inline(never)
func wrappedBindStepColumnReset(_ statement: StatementHandle, iterations: Int) throws -> Int64 {
    var sum: Int64 = 0
    for iteration in 0..<Int64(iterations) {
        guard statement.bindInt64(1, iteration) == .ok else { throw BenchmarkError("bind failed") }
        guard statement.step() == .row else { throw BenchmarkError("step failed") }
        sum &+= statement.columnInt64(0)
        guard statement.reset() == .ok else { throw BenchmarkError("reset failed") }
    }
    return sum
}
