// The part of SQLite's C API the hand-written baseline calls, as static requirements, so the baseline can be
// written once (CBaselineWorkloads) and run on either SQLite build: RawCBenchmarks conforms with the `sqltk_sqlite3_*`
// functions of SQLiteToolkit's amalgamation, SystemCBenchmarks with the system's `sqlite3_*`. This target imports
// no SQLite module.
//
// Conformers forward each requirement in one `@inlinable` line, and the baseline is `@inlinable` generic code, so a
// release build specialises it in the conforming module into direct C calls: the same machine code as the C
// functions called by hand.

/// `sqlite3_destructor_type`, the type of `SQLITE_TRANSIENT` (identical in every SQLite module).
public typealias SQLiteDestructor = @convention(c) (UnsafeMutableRawPointer?) -> Void

/// The C calls and constants of the raw C baseline; every requirement is the C function or macro of the same name.
///
/// `SendableMetatype`: the pool workload calls them from threads of its own, whose closures capture the conforming
/// type (an enum of static forwarders, which holds no state).
public protocol SQLiteCAPI: SendableMetatype {
    /// `SQLITE_OK`.
    static var ok: Int32 { get }
    /// `SQLITE_ROW`.
    static var row: Int32 { get }
    /// `SQLITE_DONE`.
    static var done: Int32 { get }
    /// `SQLITE_OPEN_READWRITE`.
    static var openReadWrite: Int32 { get }
    /// `SQLITE_OPEN_CREATE`.
    static var openCreate: Int32 { get }
    /// `SQLITE_OPEN_NOMUTEX`.
    static var openNoMutex: Int32 { get }
    /// `SQLITE_PREPARE_PERSISTENT`.
    static var preparePersistent: UInt32 { get }
    /// `SQLITE_TRANSIENT`.
    static var transient: SQLiteDestructor { get }

    /// `sqlite3_open_v2`.
    static func open(
        _ filename: UnsafePointer<CChar>?, _ connection: UnsafeMutablePointer<OpaquePointer?>?, _ flags: Int32,
        _ vfs: UnsafePointer<CChar>?
    ) -> Int32
    /// `sqlite3_close`.
    @discardableResult static func close(_ connection: OpaquePointer?) -> Int32
    /// `sqlite3_errmsg`.
    static func errorMessage(_ connection: OpaquePointer?) -> UnsafePointer<CChar>?
    /// `sqlite3_exec` without a callback or error message.
    static func exec(_ connection: OpaquePointer?, _ sql: UnsafePointer<CChar>?) -> Int32
    /// `sqlite3_prepare_v3`.
    static func prepare(
        _ connection: OpaquePointer?, _ sql: UnsafePointer<CChar>?, _ bytes: Int32, _ flags: UInt32,
        _ statement: UnsafeMutablePointer<OpaquePointer?>?, _ tail: UnsafeMutablePointer<UnsafePointer<CChar>?>?
    ) -> Int32
    /// `sqlite3_finalize`.
    @discardableResult static func finalize(_ statement: OpaquePointer?) -> Int32
    /// `sqlite3_step`.
    static func step(_ statement: OpaquePointer?) -> Int32
    /// `sqlite3_reset`.
    @discardableResult static func reset(_ statement: OpaquePointer?) -> Int32
    /// `sqlite3_bind_int64`.
    @discardableResult static func bindInt64(_ statement: OpaquePointer?, _ index: Int32, _ value: Int64) -> Int32
    /// `sqlite3_bind_text`.
    static func bindText(
        _ statement: OpaquePointer?, _ index: Int32, _ text: UnsafePointer<CChar>?, _ bytes: Int32,
        _ destructor: SQLiteDestructor?
    ) -> Int32
    /// `sqlite3_bind_blob`.
    static func bindBlob(
        _ statement: OpaquePointer?, _ index: Int32, _ blob: UnsafeRawPointer?, _ bytes: Int32,
        _ destructor: SQLiteDestructor?
    ) -> Int32
    /// `sqlite3_column_count`.
    static func columnCount(_ statement: OpaquePointer?) -> Int32
    /// `sqlite3_column_name`.
    static func columnName(_ statement: OpaquePointer?, _ index: Int32) -> UnsafePointer<CChar>?
    /// `sqlite3_column_int64`.
    static func columnInt64(_ statement: OpaquePointer?, _ index: Int32) -> Int64
    /// `sqlite3_column_text`.
    static func columnText(_ statement: OpaquePointer?, _ index: Int32) -> UnsafePointer<UInt8>?
    /// `sqlite3_column_blob`.
    static func columnBlob(_ statement: OpaquePointer?, _ index: Int32) -> UnsafeRawPointer?
    /// `sqlite3_column_bytes`.
    static func columnBytes(_ statement: OpaquePointer?, _ index: Int32) -> Int32

    // Schema, several databases and maintenance.
    /// `sqlite3_blob_open`.
    static func blobOpen(
        _ connection: OpaquePointer?, _ schema: UnsafePointer<CChar>?, _ table: UnsafePointer<CChar>?,
        _ column: UnsafePointer<CChar>?, _ row: Int64, _ flags: Int32, _ blob: UnsafeMutablePointer<OpaquePointer?>?
    ) -> Int32
    /// `sqlite3_blob_read`.
    static func blobRead(_ blob: OpaquePointer?, _ buffer: UnsafeMutableRawPointer?, _ bytes: Int32, _ offset: Int32)
        -> Int32
    /// `sqlite3_blob_write`.
    static func blobWrite(_ blob: OpaquePointer?, _ buffer: UnsafeRawPointer?, _ bytes: Int32, _ offset: Int32) -> Int32
    /// `sqlite3_blob_close`.
    @discardableResult static func blobClose(_ blob: OpaquePointer?) -> Int32
    /// `sqlite3_backup_init`.
    static func backupInit(
        _ destination: OpaquePointer?, _ destinationName: UnsafePointer<CChar>?, _ source: OpaquePointer?,
        _ sourceName: UnsafePointer<CChar>?
    ) -> OpaquePointer?
    /// `sqlite3_backup_step`.
    static func backupStep(_ backup: OpaquePointer?, _ pages: Int32) -> Int32
    /// `sqlite3_backup_finish`.
    @discardableResult static func backupFinish(_ backup: OpaquePointer?) -> Int32
}
