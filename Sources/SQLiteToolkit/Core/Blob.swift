import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A BLOB (or text) value opened for incremental I/O: read and write parts of it at byte offsets without loading
/// it whole. Its size is fixed; reserve space with `zeroblob(n)` before writing.
///
/// ```swift
/// try db.execute("INSERT INTO file (content) VALUES (zeroblob(?))", byteCount)
/// let blob = try db.openBlob(table: "file", column: "content", row: db.lastInsertRowID, writable: true)
/// try blob.write(chunk, at: 0)
/// var buffer = [UInt8](repeating: 0, count: 65_536)
/// try buffer.withUnsafeMutableBytes { try blob.read(into: $0, at: 0) }
/// blob.close()
/// ```
///
/// Every read and write is checked against the size first, so a range past the end throws
/// ``DatabaseError/Reason/blobOutOfBounds(offset:count:blobSize:)`` and never reaches SQLite. When the row is
/// changed or deleted behind the handle (other than through it), reads and writes fail with `SQLITE_ABORT`.
///
/// A blob belongs to its connection: use it on the connection's thread. Closing the connection makes the blob
/// unusable (its calls throw ``DatabaseError/Reason/connectionClosed``); the blob is closed when released.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/blob.html>
public final class Blob {
    // Mutable state is `@exclusivity(unchecked)`, as in `Database`: a blob is confined to its connection's thread,
    // and dynamic exclusivity checks would cost more per chunk than the checks that matter.
    /// The connection the blob was opened on.
    public let database: Database
    /// The SQLite BLOB handle, for calling `SQLiteBindings` directly; `nil` once closed.
    @exclusivity(unchecked) public private(set) var handle: BlobHandle?
    /// The size of the value, in bytes.
    @exclusivity(unchecked) public private(set) var count: Int
    /// The rowid of the row the blob is open on.
    @exclusivity(unchecked) public private(set) var row: Int64
    /// Whether the blob was opened for writing.
    public let isWritable: Bool

    init(database: Database, handle: BlobHandle, row: Int64, isWritable: Bool) {
        self.database = database
        self.handle = handle
        self.count = Int(handle.byteCount())
        self.row = row
        self.isWritable = isWritable
    }

    deinit {
        close()
    }

    /// Closes the blob; closing twice does nothing. Errors of a pending write are reported by SQLite at commit.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/blob_close.html>
    public func close() {
        guard let handle else { return }
        _ = handle.close()
        self.handle = nil
    }

    /// The open handle, or the reason it cannot be used.
    @inline(__always)
    private func openHandle() throws -> BlobHandle {
        guard database.isOpen else {
            throw DatabaseError.misuse("the database of this blob is closed", reason: .connectionClosed)
        }
        guard let handle else {
            throw DatabaseError.misuse("the blob is closed", reason: .blobClosed)
        }
        return handle
    }

    /// Throws unless `offset..<offset+length` lies inside the blob; never overflows.
    @inline(__always)
    private func checkBounds(offset: Int, length: Int) throws {
        guard offset >= 0, length >= 0, offset <= count, length <= count - offset else {
            throw DatabaseError(
                extendedCode: .range,
                message: "the range of \(length) bytes at offset \(offset) is outside the blob of \(count) bytes",
                reason: .blobOutOfBounds(offset: offset, count: length, blobSize: count))
        }
    }

    /// Copies `buffer.count` bytes starting at byte `offset` of the blob into `buffer`.
    ///
    /// - Throws: ``DatabaseError/Reason/blobOutOfBounds(offset:count:blobSize:)`` when the range goes past the
    ///   end; `SQLITE_ABORT` when the row changed since the blob was opened.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/blob_read.html>
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws {
        let handle = try openHandle()
        try checkBounds(offset: offset, length: buffer.count)
        guard buffer.count > 0 else { return }
        // Both fit in Int32: the blob's own size does.
        let code = handle.read(into: buffer.baseAddress, count: Int32(buffer.count), offset: Int32(offset))
        if code != .ok { throw database.error(code, sql: nil) }
    }

    /// Reads `length` bytes starting at byte `offset` (to the end of the blob by default).
    public func read(at offset: Int = 0, count length: Int? = nil) throws -> Data {
        let length = length ?? max(0, count - offset)
        try checkBounds(offset: offset, length: length)
        var data = Data(count: length)
        try data.withUnsafeMutableBytes { try read(into: $0, at: offset) }
        return data
    }

    /// Writes `bytes` into the blob starting at byte `offset`; the blob's size does not change.
    ///
    /// - Throws: ``DatabaseError/Reason/blobOutOfBounds(offset:count:blobSize:)`` when the bytes go past the
    ///   end; `SQLITE_READONLY` for a blob opened read-only; `SQLITE_ABORT` when the row changed since the blob was
    ///   opened.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/blob_write.html>
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
        let handle = try openHandle()
        try checkBounds(offset: offset, length: bytes.count)
        guard bytes.count > 0 else { return }
        let code = handle.write(bytes.baseAddress, count: Int32(bytes.count), offset: Int32(offset))
        if code != .ok { throw database.error(code, sql: nil) }
    }

    /// Writes `bytes` (`Data`, `[UInt8]`, ...) into the blob starting at byte `offset`.
    public func write(_ bytes: some ContiguousBytes, at offset: Int) throws {
        try bytes.withUnsafeBytes { try write($0, at: offset) }
    }

    /// Moves the blob to the same column of another row of the same table, faster than opening it again.
    ///
    /// - Throws: ``DatabaseError`` when the row does not exist or its value is not a BLOB or text; the blob is
    ///   then closed (SQLite leaves the handle aborted), and its later calls throw
    ///   ``DatabaseError/Reason/blobClosed``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/blob_reopen.html>
    public func reopen(row newRow: Int64) throws {
        let handle = try openHandle()
        let code = handle.reopen(row: newRow)
        guard code == .ok else {
            let error = database.error(code, sql: nil)
            close()
            throw error
        }
        row = newRow
        count = Int(handle.byteCount())
    }
}

@available(*, unavailable, message: "a blob belongs to its connection, which is used from one thread at a time")
extension Blob: Sendable {}

extension Database {
    /// Opens the value in the column `column` of the row whose rowid is `row`, in the table `table` of the schema
    /// `schema`, for incremental reads (and writes when `writable`).
    ///
    /// - Throws: ``DatabaseError`` when the table, column or row does not exist, the value is not a BLOB or
    ///   text, the column is indexed or part of a foreign key (for writing), or the table is `WITHOUT ROWID`.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/blob_open.html>
    public func openBlob(
        table: String, column: String, row: Int64, schema: String = "main", writable: Bool = false
    ) throws -> Blob {
        let connection = try connection()
        for name in [table, column, schema] where name.utf8.contains(0) {
            throw DatabaseError.misuse("an identifier cannot hold a NUL character", reason: .invalidIdentifier)
        }
        let (code, handle) = BlobHandle.open(
            connection, schema: schema, table: table, column: column, row: row, writable: writable)
        guard code == .ok, let handle else {
            throw error(code == .ok ? .error : code, sql: nil)
        }
        return Blob(database: self, handle: handle, row: row, isWritable: writable)
    }
}
