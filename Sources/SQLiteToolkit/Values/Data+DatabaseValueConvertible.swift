import Foundation
import SQLiteBindings

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

    /// Binds the bytes; SQLite copies them. An empty `Data` binds an empty blob, not NULL.
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

    /// Binds the bytes; SQLite copies them. An empty array binds an empty blob, not NULL.
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

    /// Reads the column as bytes (text gives its UTF-8).
    @inlinable
    public static func read(from statement: StatementHandle, at index: Int32) throws -> [UInt8] {
        let bytes = statement.columnBlobNoCopy(index)
        if bytes.isEmpty, statement.columnType(index) == .null { return try readNull() }
        return Array(bytes)
    }
}

extension Data {
    /// Makes the bytes a function's result, a blob.
    @inlinable
    public func setResult(of context: FunctionContext, dateStorage: Database.DateStorage) throws {
        withUnsafeBytes { context.resultData($0) }
    }

    /// Reads the argument as bytes (text gives its UTF-8); `x''` reads as empty data, NULL throws.
    @inlinable
    public static func read(from value: ValueHandle) throws -> Data {
        let bytes = value.valueDataNoCopy()
        if bytes.isEmpty, value.valueType() == .null { return try readNullArgument() }
        return Data(bytes)
    }
}

extension [UInt8] {
    /// Makes the bytes a function's result, a blob.
    @inlinable
    public func setResult(of context: FunctionContext, dateStorage: Database.DateStorage) throws {
        withUnsafeBytes { context.resultData($0) }
    }

    /// Reads the argument as bytes (text gives its UTF-8); `x''` reads as an empty array, NULL throws.
    @inlinable
    public static func read(from value: ValueHandle) throws -> [UInt8] {
        let bytes = value.valueDataNoCopy()
        if bytes.isEmpty, value.valueType() == .null { return try readNullArgument() }
        return Array(bytes)
    }
}
