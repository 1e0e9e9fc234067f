import CSQLiteToolkit

// The C calls of the schema-and-maintenance baseline (incremental BLOB I/O, online backup) on SQLiteToolkit's amalgamation.

extension RawC {
    /// `sqltk_sqlite3_blob_open`.
    @inlinable public static func blobOpen(
        _ connection: OpaquePointer?, _ schema: UnsafePointer<CChar>?, _ table: UnsafePointer<CChar>?,
        _ column: UnsafePointer<CChar>?, _ row: Int64, _ flags: Int32, _ blob: UnsafeMutablePointer<OpaquePointer?>?
    ) -> Int32 { sqltk_sqlite3_blob_open(connection, schema, table, column, row, flags, blob) }
    /// `sqltk_sqlite3_blob_read`.
    @inlinable public static func blobRead(
        _ blob: OpaquePointer?, _ buffer: UnsafeMutableRawPointer?, _ bytes: Int32, _ offset: Int32
    ) -> Int32 { sqltk_sqlite3_blob_read(blob, buffer, bytes, offset) }
    /// `sqltk_sqlite3_blob_write`.
    @inlinable public static func blobWrite(
        _ blob: OpaquePointer?, _ buffer: UnsafeRawPointer?, _ bytes: Int32, _ offset: Int32
    ) -> Int32 { sqltk_sqlite3_blob_write(blob, buffer, bytes, offset) }
    /// `sqltk_sqlite3_blob_close`.
    @inlinable @discardableResult public static func blobClose(_ blob: OpaquePointer?) -> Int32 {
        sqltk_sqlite3_blob_close(blob)
    }
    /// `sqltk_sqlite3_backup_init`.
    @inlinable public static func backupInit(
        _ destination: OpaquePointer?, _ destinationName: UnsafePointer<CChar>?, _ source: OpaquePointer?,
        _ sourceName: UnsafePointer<CChar>?
    ) -> OpaquePointer? { sqltk_sqlite3_backup_init(destination, destinationName, source, sourceName) }
    /// `sqltk_sqlite3_backup_step`.
    @inlinable public static func backupStep(_ backup: OpaquePointer?, _ pages: Int32) -> Int32 {
        sqltk_sqlite3_backup_step(backup, pages)
    }
    /// `sqltk_sqlite3_backup_finish`.
    @inlinable @discardableResult public static func backupFinish(_ backup: OpaquePointer?) -> Int32 {
        sqltk_sqlite3_backup_finish(backup)
    }
}
