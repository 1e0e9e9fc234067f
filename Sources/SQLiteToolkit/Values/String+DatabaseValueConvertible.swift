import Foundation
import SQLiteBindings

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
    @inlinable
    public static func read(from statement: StatementHandle, at index: Int32) throws -> String {
        // A BLOB is decoded from its bytes, as `sqlite3_column_text` would give them: that call converts the
        // column in place, after which SQLite reports it as TEXT to every later read of the same row.
        if statement.columnType(index) == .blob { return decodeBlob(statement, at: index) }
        guard let text = statement.columnText(index) else { return try readNull() }
        return text
    }

    /// The bytes of a BLOB column as UTF-8 text, out of line: the common read of text stays small.
    @usableFromInline
    static func decodeBlob(_ statement: StatementHandle, at index: Int32) -> String {
        String(decoding: statement.columnBlobNoCopy(index), as: UTF8.self)
    }
}

extension String {
    /// Makes the text a function's result.
    @inlinable
    public func setResult(of context: FunctionContext, dateStorage: Database.DateStorage) throws {
        context.resultString(self)
    }

    /// Reads the argument as text, with SQLite's conversions (5 reads as `"5"`).
    @inlinable
    public static func read(from value: ValueHandle) throws -> String {
        guard let text = value.valueString() else { return try readNullArgument() }
        return text
    }
}
