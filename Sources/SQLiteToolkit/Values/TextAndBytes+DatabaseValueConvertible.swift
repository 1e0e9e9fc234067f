import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// Text and bytes: every conversion of `String`, `Data` and `[UInt8]`, for statements and for custom functions.

// MARK: - Text

extension String: DatabaseValueConvertible {
    /// The value as `.text`.
    public var databaseValue: DatabaseValue { .text(self) }

    /// The text; numbers are not converted here (``read(from:at:)`` converts them as SQLite does).
    public static func fromDatabaseValue(_ value: DatabaseValue) -> String? {
        if case .text(let text) = value { return text }
        return nil
    }

    /// Binds the text; SQLite copies it.
    @inlinable
    public func bind(to statement: StatementHandle, at index: Int32) throws {
        try check(bind: statement.bindText(index, self), at: index, of: statement)
    }

    /// Binds through the handle, in one witness call from generic code.
    @inlinable
    public func bind(to statement: Statement, at index: Int32) throws {
        try bind(to: statement.handle, at: index)
    }

    /// Reads the column as text, with SQLite's conversions (5 reads as `"5"`; a BLOB's bytes read as UTF-8).
    /// Bytes that are not valid UTF-8 throw ``DatabaseError/Reason/invalidUTF8(column:byteOffset:)``.
    @inlinable
    public static func read(from statement: StatementHandle, at index: Int32) throws -> String {
        // A BLOB is decoded from its bytes, as `sqlite3_column_text` would give them: that call converts the
        // column in place, after which SQLite reports it as TEXT to every later read of the same row.
        if statement.columnType(index) == .blob { return try decodeBlob(statement, at: index) }
        guard let text = try StrictUTF8.read(statement, at: index) else { return try readNull() }
        return text
    }

    /// The bytes of a BLOB column as UTF-8 text, out of line: the common read of text stays small.
    @usableFromInline
    static func decodeBlob(_ statement: StatementHandle, at index: Int32) throws -> String {
        let bytes = statement.columnBlobNoCopy(index)
        guard let text = StrictUTF8.decode(bytes) else {
            throw StrictUTF8.error(bytes, column: statement.columnName(index))
        }
        return text
    }
}

extension String {
    /// Makes the text a function's result.
    @inlinable
    public func setResult(of context: FunctionContext, dateStorage: Database.DateStorage) throws {
        context.resultString(self)
    }

    /// Reads the argument as text, with SQLite's conversions (5 reads as `"5"`). Bytes that are not valid UTF-8
    /// throw ``DatabaseError/Reason/invalidUTF8(column:byteOffset:)``.
    @inlinable
    public static func read(from value: ValueHandle) throws -> String {
        guard let text = try StrictUTF8.read(value) else { return try readNullArgument() }
        return text
    }
}

// MARK: - Bytes

/// `Data` and `[UInt8]` bind and return their bytes the same way: SQLite copies them, and an empty value is an empty
/// blob, not NULL.
extension DatabaseValueConvertible where Self: ContiguousBytes {
    /// Binds the bytes; SQLite copies them. An empty value binds an empty blob, not NULL.
    @inlinable
    public func bind(to statement: StatementHandle, at index: Int32) throws {
        let code = withUnsafeBytes { statement.bindBlob(index, $0) }
        try check(bind: code, at: index, of: statement)
    }

    /// Binds through the handle, in one witness call from generic code.
    @inlinable
    public func bind(to statement: Statement, at index: Int32) throws {
        try bind(to: statement.handle, at: index)
    }

    /// Makes the bytes a function's result, a blob.
    @inlinable
    public func setResult(of context: FunctionContext, dateStorage: Database.DateStorage) throws {
        withUnsafeBytes { context.resultData($0) }
    }
}

extension Data: DatabaseValueConvertible {
    /// The value as `.blob`.
    public var databaseValue: DatabaseValue { .blob(self) }

    /// The bytes of a blob, or the UTF-8 of text.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Data? {
        switch value {
        case .blob(let data): data
        case .text(let text): Data(text.utf8)
        default: nil
        }
    }

    /// Reads the column as bytes (text gives its UTF-8).
    @inlinable
    public static func read(from statement: StatementHandle, at index: Int32) throws -> Data {
        let bytes = statement.columnBlobNoCopy(index)
        if bytes.isEmpty, statement.columnType(index) == .null { return try readNull() }
        return Data(bytes)
    }
}

extension [UInt8]: DatabaseValueConvertible {
    /// The value as `.blob`.
    public var databaseValue: DatabaseValue { .blob(Data(self)) }

    /// The bytes of a blob, or the UTF-8 of text.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> [UInt8]? {
        Data.fromDatabaseValue(value).map { Array($0) }
    }

    /// Reads the column as bytes (text gives its UTF-8).
    @inlinable
    public static func read(from statement: StatementHandle, at index: Int32) throws -> [UInt8] {
        let bytes = statement.columnBlobNoCopy(index)
        if bytes.isEmpty, statement.columnType(index) == .null { return try readNull() }
        return Array(bytes)
    }
}

extension Data {
    /// Reads the argument as bytes (text gives its UTF-8); `x''` reads as empty data, NULL throws.
    @inlinable
    public static func read(from value: ValueHandle) throws -> Data {
        let bytes = value.valueDataNoCopy()
        if bytes.isEmpty, value.valueType() == .null { return try readNullArgument() }
        return Data(bytes)
    }
}

extension [UInt8] {
    /// Reads the argument as bytes (text gives its UTF-8); `x''` reads as an empty array, NULL throws.
    @inlinable
    public static func read(from value: ValueHandle) throws -> [UInt8] {
        let bytes = value.valueDataNoCopy()
        if bytes.isEmpty, value.valueType() == .null { return try readNullArgument() }
        return Array(bytes)
    }
}
