import BenchmarkCore
import CBaseline
import GRDBSQLite

// The baseline (CBaseline's CBaselineWorkloads, the same code as RawCBenchmarks) on the system SQLite, so the
// report can tell the cost of the SQLite build from the cost of the wrapper.

/// The system SQLite (through GRDB's GRDBSQLite module): every call of the baseline forwards to its `sqlite3_*` function.
public enum SystemC: SQLiteCAPI {
    /// `SQLITE_OK`.
    @inlinable public static var ok: Int32 { SQLITE_OK }
    /// `SQLITE_ROW`.
    @inlinable public static var row: Int32 { SQLITE_ROW }
    /// `SQLITE_DONE`.
    @inlinable public static var done: Int32 { SQLITE_DONE }
    /// `SQLITE_OPEN_READWRITE`.
    @inlinable public static var openReadWrite: Int32 { SQLITE_OPEN_READWRITE }
    /// `SQLITE_OPEN_CREATE`.
    @inlinable public static var openCreate: Int32 { SQLITE_OPEN_CREATE }
    /// `SQLITE_OPEN_NOMUTEX`.
    @inlinable public static var openNoMutex: Int32 { SQLITE_OPEN_NOMUTEX }
    /// `SQLITE_PREPARE_PERSISTENT`.
    @inlinable public static var preparePersistent: UInt32 { UInt32(SQLITE_PREPARE_PERSISTENT) }
    /// `SQLITE_TRANSIENT`, a macro Swift cannot import.
    @inlinable public static var transient: SQLiteDestructor { unsafeBitCast(-1, to: SQLiteDestructor.self) }

    /// `sqlite3_open_v2`.
    @inlinable public static func open(
        _ filename: UnsafePointer<CChar>?, _ connection: UnsafeMutablePointer<OpaquePointer?>?, _ flags: Int32,
        _ vfs: UnsafePointer<CChar>?
    ) -> Int32 { sqlite3_open_v2(filename, connection, flags, vfs) }
    /// `sqlite3_close`.
    @inlinable @discardableResult public static func close(_ connection: OpaquePointer?) -> Int32 {
        sqlite3_close(connection)
    }
    /// `sqlite3_errmsg`.
    @inlinable public static func errorMessage(_ connection: OpaquePointer?) -> UnsafePointer<CChar>? {
        sqlite3_errmsg(connection)
    }
    /// `sqlite3_exec` without a callback or error message.
    @inlinable public static func exec(_ connection: OpaquePointer?, _ sql: UnsafePointer<CChar>?) -> Int32 {
        sqlite3_exec(connection, sql, nil, nil, nil)
    }
    /// `sqlite3_prepare_v3`.
    @inlinable public static func prepare(
        _ connection: OpaquePointer?, _ sql: UnsafePointer<CChar>?, _ bytes: Int32, _ flags: UInt32,
        _ statement: UnsafeMutablePointer<OpaquePointer?>?, _ tail: UnsafeMutablePointer<UnsafePointer<CChar>?>?
    ) -> Int32 { sqlite3_prepare_v3(connection, sql, bytes, flags, statement, tail) }
    /// `sqlite3_finalize`.
    @inlinable @discardableResult public static func finalize(_ statement: OpaquePointer?) -> Int32 {
        sqlite3_finalize(statement)
    }
    /// `sqlite3_step`.
    @inlinable public static func step(_ statement: OpaquePointer?) -> Int32 { sqlite3_step(statement) }
    /// `sqlite3_reset`.
    @inlinable @discardableResult public static func reset(_ statement: OpaquePointer?) -> Int32 {
        sqlite3_reset(statement)
    }
    /// `sqlite3_bind_int64`.
    @inlinable @discardableResult public static func bindInt64(
        _ statement: OpaquePointer?, _ index: Int32, _ value: Int64
    ) -> Int32 { sqlite3_bind_int64(statement, index, value) }
    /// `sqlite3_bind_text`.
    @inlinable public static func bindText(
        _ statement: OpaquePointer?, _ index: Int32, _ text: UnsafePointer<CChar>?, _ bytes: Int32,
        _ destructor: SQLiteDestructor?
    ) -> Int32 { sqlite3_bind_text(statement, index, text, bytes, destructor) }
    /// `sqlite3_bind_blob`.
    @inlinable public static func bindBlob(
        _ statement: OpaquePointer?, _ index: Int32, _ blob: UnsafeRawPointer?, _ bytes: Int32,
        _ destructor: SQLiteDestructor?
    ) -> Int32 { sqlite3_bind_blob(statement, index, blob, bytes, destructor) }
    /// `sqlite3_column_count`.
    @inlinable public static func columnCount(_ statement: OpaquePointer?) -> Int32 { sqlite3_column_count(statement) }
    /// `sqlite3_column_name`.
    @inlinable public static func columnName(_ statement: OpaquePointer?, _ index: Int32) -> UnsafePointer<CChar>? {
        sqlite3_column_name(statement, index)
    }
    /// `sqlite3_column_int64`.
    @inlinable public static func columnInt64(_ statement: OpaquePointer?, _ index: Int32) -> Int64 {
        sqlite3_column_int64(statement, index)
    }
    /// `sqlite3_column_text`.
    @inlinable public static func columnText(_ statement: OpaquePointer?, _ index: Int32) -> UnsafePointer<UInt8>? {
        sqlite3_column_text(statement, index)
    }
    /// `sqlite3_column_blob`.
    @inlinable public static func columnBlob(_ statement: OpaquePointer?, _ index: Int32) -> UnsafeRawPointer? {
        sqlite3_column_blob(statement, index)
    }
    /// `sqlite3_column_bytes`.
    @inlinable public static func columnBytes(_ statement: OpaquePointer?, _ index: Int32) -> Int32 {
        sqlite3_column_bytes(statement, index)
    }
}

/// Raw C calls on the system SQLite (`sqlite3_*`, Debian's libsqlite3).
public struct SystemCImplementation: BenchmarkImplementation {
    /// Makes the implementation.
    public init() {}

    /// `system-c`.
    public var name: String { "system-c" }
    /// The column title.
    public var title: String { "C, system SQLite" }
    /// Every workload.
    public var workloads: [Workload] { Workload.allCases.filter { !$0.needsFile } }

    /// The version through `SELECT sqlite_version()`.
    public func sqliteVersion() throws -> String {
        try CBaselineWorkloads<SystemC>.sqliteVersion()
    }

    /// Opens the database and sets up `workload`.
    public func prepare(_ workload: Workload, size: WorkloadSize, location: DatabaseLocation) throws -> PreparedRun {
        try CBaselineWorkloads<SystemC>.prepare(workload, size: size, location: location)
    }
}
