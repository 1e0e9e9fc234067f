/// One way of running the workloads: raw C, SQLiteToolkit, GRDB, ...
///
/// An implementation lives in a target of its own that imports exactly one SQLite module.
public protocol BenchmarkImplementation {
    /// A short name for filters and JSON (`c`, `toolkit`, `grdb`, `system-c`, `bindings`).
    var name: String { get }
    /// The column title in the report.
    var title: String { get }
    /// The workloads it implements.
    var workloads: [Workload] { get }
    /// The version of the SQLite library it runs on, as `SELECT sqlite_version()` reports it through that library.
    func sqliteVersion() throws -> String
    /// Opens a fresh database at `location`, sets it up for `workload` (schema, data to read, statements), and
    /// returns the run. Nothing done here is timed.
    func prepare(_ workload: Workload, size: WorkloadSize, location: DatabaseLocation) throws -> PreparedRun
}

/// Where one repetition's database lives: `:memory:`, or a file in a folder the harness removes afterwards.
public struct DatabaseLocation: Sendable {
    /// The storage mode, which decides the pragmas.
    public var storage: Storage
    /// The path to pass to the open call: `:memory:` or a file that does not exist yet.
    public var path: String

    /// A location.
    public init(storage: Storage, path: String) {
        self.storage = storage
        self.path = path
    }
}

/// A workload ready to run on its own database.
///
/// Only ``body`` is timed. ``verify`` runs afterwards and turns the body's result into the checksum compared across
/// implementations (for a read, the sum it computed; for an insert, a query over what was written).
public struct PreparedRun {
    /// The timed work. Returns a value that depends on all of the work done.
    public var body: () throws -> Int64
    /// Computes the checksum from the body's result, untimed.
    public var verify: (Int64) throws -> Int64
    /// Closes the database; untimed.
    public var close: () -> Void

    /// A run; `verify` defaults to the body's own result.
    public init(
        body: @escaping () throws -> Int64,
        verify: @escaping (Int64) throws -> Int64 = { $0 },
        close: @escaping () -> Void
    ) {
        self.body = body
        self.verify = verify
        self.close = close
    }
}

/// An error of an implementation: a result code and message from the library it runs on.
public struct BenchmarkError: Error, CustomStringConvertible {
    /// What failed.
    public var description: String

    /// An error saying what failed.
    public init(_ description: String) {
        self.description = description
    }
}
