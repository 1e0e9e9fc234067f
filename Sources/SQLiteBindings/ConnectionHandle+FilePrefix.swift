import CSQLiteToolkit

extension ConnectionHandle {
    /// The first `count` bytes (fewer when the file is shorter) of the database file of the schema `schema` (nil
    /// means `main`), read through the file SQLite opened for it, below the page cache and before any codec: `nil`
    /// when the schema has no open file (an in-memory or temporary database), or a read fails.
    ///
    /// Hand-written: it calls the file's own methods (`xFileSize`, `xRead`), which no C function wraps. A read of the
    /// file through a descriptor of the caller's would be simpler, but closing that descriptor releases every POSIX
    /// lock the process holds on the file, those of SQLite's connections included; SQLite keeps its own descriptors
    /// open while a connection of the process holds a lock.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/c_fcntl_begin_atomic_write.html#sqlitefcntlfilepointer>
    public func filePrefix(schema: String?, count: Int) -> [UInt8]? {
        var file: UnsafeMutablePointer<sqltk_sqlite3_file>?
        let code = withUnsafeMutablePointer(to: &file) { pointer in
            fileControl(
                schema: schema, operation: SQLITE_FCNTL_FILE_POINTER, argument: UnsafeMutableRawPointer(pointer))
        }
        guard code == .ok, let file, let methods = file.pointee.pMethods, let fileSize = methods.pointee.xFileSize,
            let read = methods.pointee.xRead, count >= 0
        else { return nil }
        var size: sqltk_sqlite3_int64 = 0
        guard fileSize(file, &size) == SQLITE_OK else { return nil }
        let length = Int(min(sqltk_sqlite3_int64(min(count, Int(Int32.max))), max(size, 0)))
        guard length > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: length)
        let result = bytes.withUnsafeMutableBytes { buffer in read(file, buffer.baseAddress, Int32(length), 0) }
        return result == SQLITE_OK ? bytes : nil
    }
}
