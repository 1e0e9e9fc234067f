import BenchmarkCore
import CBaseline
import CSQLiteToolkit

// The baseline (CBaseline's CBaselineWorkloads, written once for both SQLite builds) on SQLiteToolkit's
// amalgamation. BindingsBenchmarks runs its micro-benchmark loop through the generated wrappers instead.

/// SQLiteToolkit's amalgamation: every call of the baseline forwards to its `sqltk_sqlite3_*` function.
public enum RawC: SQLiteCAPI {
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
    /// `SQLITE_TRANSIENT`.
    @inlinable public static var transient: SQLiteDestructor { sqltk_transient() }

    /// `sqltk_sqlite3_open_v2`.
    @inlinable public static func open(
        _ filename: UnsafePointer<CChar>?, _ connection: UnsafeMutablePointer<OpaquePointer?>?, _ flags: Int32,
        _ vfs: UnsafePointer<CChar>?
    ) -> Int32 { sqltk_sqlite3_open_v2(filename, connection, flags, vfs) }
    /// `sqltk_sqlite3_close`.
    @inlinable @discardableResult public static func close(_ connection: OpaquePointer?) -> Int32 {
        sqltk_sqlite3_close(connection)
    }
    /// `sqltk_sqlite3_errmsg`.
    @inlinable public static func errorMessage(_ connection: OpaquePointer?) -> UnsafePointer<CChar>? {
        sqltk_sqlite3_errmsg(connection)
    }
    /// `sqltk_sqlite3_exec` without a callback or error message.
    @inlinable public static func exec(_ connection: OpaquePointer?, _ sql: UnsafePointer<CChar>?) -> Int32 {
        sqltk_sqlite3_exec(connection, sql, nil, nil, nil)
    }
    /// `sqltk_sqlite3_prepare_v3`.
    @inlinable public static func prepare(
        _ connection: OpaquePointer?, _ sql: UnsafePointer<CChar>?, _ bytes: Int32, _ flags: UInt32,
        _ statement: UnsafeMutablePointer<OpaquePointer?>?, _ tail: UnsafeMutablePointer<UnsafePointer<CChar>?>?
    ) -> Int32 { sqltk_sqlite3_prepare_v3(connection, sql, bytes, flags, statement, tail) }
    /// `sqltk_sqlite3_finalize`.
    @inlinable @discardableResult public static func finalize(_ statement: OpaquePointer?) -> Int32 {
        sqltk_sqlite3_finalize(statement)
    }
    /// `sqltk_sqlite3_step`.
    @inlinable public static func step(_ statement: OpaquePointer?) -> Int32 { sqltk_sqlite3_step(statement) }
    /// `sqltk_sqlite3_reset`.
    @inlinable @discardableResult public static func reset(_ statement: OpaquePointer?) -> Int32 {
        sqltk_sqlite3_reset(statement)
    }
    /// `sqltk_sqlite3_bind_int64`.
    @inlinable @discardableResult public static func bindInt64(
        _ statement: OpaquePointer?, _ index: Int32, _ value: Int64
    ) -> Int32 { sqltk_sqlite3_bind_int64(statement, index, value) }
    /// `sqltk_sqlite3_bind_text`.
    @inlinable public static func bindText(
        _ statement: OpaquePointer?, _ index: Int32, _ text: UnsafePointer<CChar>?, _ bytes: Int32,
        _ destructor: SQLiteDestructor?
    ) -> Int32 { sqltk_sqlite3_bind_text(statement, index, text, bytes, destructor) }
    /// `sqltk_sqlite3_bind_blob`.
    @inlinable public static func bindBlob(
        _ statement: OpaquePointer?, _ index: Int32, _ blob: UnsafeRawPointer?, _ bytes: Int32,
        _ destructor: SQLiteDestructor?
    ) -> Int32 { sqltk_sqlite3_bind_blob(statement, index, blob, bytes, destructor) }
    /// `sqltk_sqlite3_column_count`.
    @inlinable public static func columnCount(_ statement: OpaquePointer?) -> Int32 {
        sqltk_sqlite3_column_count(statement)
    }
    /// `sqltk_sqlite3_column_name`.
    @inlinable public static func columnName(_ statement: OpaquePointer?, _ index: Int32) -> UnsafePointer<CChar>? {
        sqltk_sqlite3_column_name(statement, index)
    }
    /// `sqltk_sqlite3_column_int64`.
    @inlinable public static func columnInt64(_ statement: OpaquePointer?, _ index: Int32) -> Int64 {
        sqltk_sqlite3_column_int64(statement, index)
    }
    /// `sqltk_sqlite3_column_text`.
    @inlinable public static func columnText(_ statement: OpaquePointer?, _ index: Int32) -> UnsafePointer<UInt8>? {
        sqltk_sqlite3_column_text(statement, index)
    }
    /// `sqltk_sqlite3_column_blob`.
    @inlinable public static func columnBlob(_ statement: OpaquePointer?, _ index: Int32) -> UnsafeRawPointer? {
        sqltk_sqlite3_column_blob(statement, index)
    }
    /// `sqltk_sqlite3_column_bytes`.
    @inlinable public static func columnBytes(_ statement: OpaquePointer?, _ index: Int32) -> Int32 {
        sqltk_sqlite3_column_bytes(statement, index)
    }
}

/// Raw C calls on SQLiteToolkit's amalgamation (`sqltk_sqlite3_*`): the baseline of every ratio.
public struct RawCImplementation: BenchmarkImplementation {
    /// Makes the implementation.
    public init() {}

    /// `c`.
    public var name: String { "c" }
    /// The column title.
    public var title: String { "C, our SQLite" }
    /// Every workload on SQLite alone (not the pool's writes, nor the encryption workloads); the pool's reads on a
    /// connection per thread.
    public var workloads: [Workload] {
        Workload.allCases.filter { !$0.needsFile || $0 == .poolRead || $0 == .poolReadAsync }
    }

    /// The version through `SELECT sqlite_version()`.
    public func sqliteVersion() throws -> String {
        try CBaselineWorkloads<RawC>.sqliteVersion()
    }

    /// Opens the database and sets up `workload`.
    public func prepare(_ workload: Workload, size: WorkloadSize, location: DatabaseLocation) throws -> PreparedRun {
        if workload.needsSessionExtension {
            return try prepareChangesetWorkload(workload, size: size, location: location)
        }
        if workload.isFunction { return try prepareFunction(workload, size: size, location: location) }
        return try CBaselineWorkloads<RawC>.prepare(workload, size: size, location: location)
    }
}
