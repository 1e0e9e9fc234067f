import SQLiteBindings

/// The current row of a cursor. Valid until the cursor moves on; copy what you keep.
///
/// Reads follow SQLite's conversions (text `'5'` reads as the integer 5, 5 reads as the text `"5"`, text that is
/// not a number reads as 0). Reading NULL as a non-optional type throws; read `Int?` to get `nil`. Reading a row
/// after its database was closed throws `SQLITE_MISUSE`.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/column_blob.html>
public struct Row {
    /// The statement whose current row this is.
    public let statement: Statement

    @usableFromInline
    init(statement: Statement) {
        self.statement = statement
    }

    /// The number of columns.
    public var count: Int { Int(statement.columnCount) }

    /// The value of column `index` (0-based) as `T`.
    @inlinable
    public func value<T: DatabaseValueConvertible>(at index: Int, as type: T.Type = T.self) throws -> T {
        // One comparison checks both the index and that the connection is still open.
        try read(T.self, at: try statement.columnIndexIfReadable(index))
    }

    /// The value of the leftmost column named `name` (case-insensitive) as `T`.
    @inlinable @inline(__always)
    public func value<T: DatabaseValueConvertible>(
        named name: String,
        as type: T.Type = T.self
    ) throws -> T {
        // The name lookup also checks that the connection is still open.
        try read(T.self, at: try statement.columnIndex(named: name))
    }

    @inlinable
    func read<T: DatabaseValueConvertible>(_ type: T.Type, at index: Int32) throws -> T {
        do {
            return try T.read(from: statement, at: index)
        } catch {
            throw readError(error, at: index)
        }
    }

    /// Adds the SQL to a failed read and, when the connection opted in to values in errors, the value, truncated.
    @usableFromInline
    func readError(_ error: any Error, at index: Int32) -> any Error {
        guard var error = error as? DatabaseError else { return error }
        if error.sql == nil { error.sql = statement.sql }
        if error.code == .mismatch, !statement.isFinalized, statement.database.configuration.includesArgumentsInErrors {
            let value = DatabaseValue.read(from: statement.handle, at: index)
            error.message += " (value: \(value.truncatedDescription()))"
        }
        return error
    }

    /// The bytes of column `index` without copying, valid only until the cursor moves on or the column is read
    /// again as another type. Empty for NULL and for an empty blob. Text is given as UTF-8 whatever the database's
    /// encoding (`sqlite3_column_text`, which leaves a UTF-8 database's bytes as they are stored); a blob as its
    /// bytes.
    @inlinable
    public func withUnsafeBytes<R>(
        at index: Int,
        _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R {
        try statement.checkUsable()
        return try body(columnBytes(try statement.columnIndex(index)))
    }

    /// The bytes of the leftmost column named `name` (case-insensitive) without copying, valid only until the
    /// cursor moves on or the column is read again as another type. Empty for NULL and for an empty blob. Text is
    /// given as UTF-8, as ``withUnsafeBytes(at:_:)`` gives it.
    @inlinable
    public func withUnsafeBytes<R>(
        named name: String,
        _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R {
        try statement.checkUsable()
        return try body(columnBytes(try statement.columnIndex(named: name)))
    }

    /// A column's bytes: `sqlite3_column_blob` would give a UTF-16 database's text as UTF-16, so text is read with
    /// `sqlite3_column_text`, which converts it to UTF-8 (and leaves a UTF-8 database's bytes, even bytes that are
    /// not UTF-8, as they are). Blobs and numbers keep `sqlite3_column_blob`: `sqlite3_column_text` would read a
    /// blob of a UTF-16 database as UTF-16 text and convert it.
    @inlinable
    func columnBytes(_ index: Int32) -> UnsafeRawBufferPointer {
        let handle = statement.handle
        return handle.columnType(index) == .text ? handle.columnTextNoCopy(index) : handle.columnBlobNoCopy(index)
    }

    /// The storage class of column `index` (`sqlite3_column_type`), read without converting the value: with
    /// ``withUnsafeBytes(at:_:)`` (which gives a text column's UTF-8 bytes) and typed reads, the way through rows
    /// that boxes no value. `.null` for an index out of range or once the database is closed.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/column_blob.html>
    public func datatype(at index: Int) -> Datatype {
        guard index >= 0, index < count, !statement.isFinalized else { return .null }
        return statement.handle.columnType(Int32(index))
    }

    /// The value of column `index` in its storage class; `.null` for an index out of range or once the
    /// database is closed.
    public subscript(index: Int) -> DatabaseValue {
        guard index >= 0, index < count, !statement.isFinalized else { return .null }
        return DatabaseValue.read(from: statement.handle, at: Int32(index))
    }

    /// The row as a dictionary from exact column names to values; with duplicate names, the leftmost wins.
    public var dictionary: [String: DatabaseValue] {
        var result: [String: DatabaseValue] = [:]
        for (index, name) in statement.columnNames.enumerated().reversed() {
            result[name] = self[index]
        }
        return result
    }

    /// The row's values in column order.
    public var values: [DatabaseValue] { (0..<count).map { self[$0] } }
}

@available(*, unavailable, message: "a row belongs to its connection's thread")
extension Row: Sendable {}
