import Foundation
import SQLiteBindings

extension Bool: DatabaseValueConvertible {
    /// `true` is 1, `false` is 0.
    public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }

    /// Any non-zero number is `true`.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Bool? {
        switch value {
        case .integer(let value): value != 0
        case .real(let value): value.rounded(.towardZero) != 0  // as SQLite converts a real to an integer
        default: nil
        }
    }

    /// Binds 1 or 0.
    @inlinable
    public func bind(to statement: StatementHandle, at index: Int32) throws {
        try check(bind: statement.bindInt64(index, self ? 1 : 0), at: index, of: statement)
    }

    /// Binds through the handle, in one witness call from generic code.
    @inlinable
    public func bind(to statement: Statement, at index: Int32) throws {
        try bind(to: statement.handle, at: index)
    }

    /// Reads the column as an integer: non-zero is `true` (text is converted as SQLite does).
    @inlinable
    public static func read(from statement: StatementHandle, at index: Int32) throws -> Bool {
        let value = statement.columnInt64(index)
        if value == 0, statement.columnType(index) == .null { return try readNull() }
        return value != 0
    }
}

extension Bool {
    /// Makes the value a function's result: 1 or 0.
    @inlinable
    public func setResult(of context: FunctionContext, dateStorage: Database.DateStorage) throws {
        context.resultInt64(self ? 1 : 0)
    }

    /// Reads the argument as an integer: non-zero is `true`.
    @inlinable
    public static func read(from value: ValueHandle) throws -> Bool {
        let integer = value.valueInt64()
        if integer == 0, value.valueType() == .null { return try readNullArgument() }
        return integer != 0
    }
}
