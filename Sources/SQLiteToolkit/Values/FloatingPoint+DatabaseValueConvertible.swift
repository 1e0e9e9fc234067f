import Foundation
import SQLiteBindings

extension Double: DatabaseValueConvertible {
    /// The value as `.real`.
    public var databaseValue: DatabaseValue { .real(self) }

    /// The number, from `.real` or `.integer`.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Double? {
        switch value {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }

    /// Binds the number; NaN throws `SQLITE_MISMATCH`, because SQLite would store it as NULL.
    @inlinable
    public func bind(to statement: StatementHandle, at index: Int32) throws {
        guard !isNaN else {
            throw DatabaseError.mismatch("NaN cannot be stored: SQLite would store it as NULL", reason: .valueMismatch)
        }
        try check(bind: statement.bindDouble(index, self), at: index, of: statement)
    }

    /// Binds through the handle, in one witness call from generic code.
    @inlinable
    public func bind(to statement: Statement, at index: Int32) throws {
        try bind(to: statement.handle, at: index)
    }

    /// Reads the column as a double, with SQLite's conversions.
    @inlinable
    public static func read(from statement: StatementHandle, at index: Int32) throws -> Double {
        let value = statement.columnDouble(index)
        if value == 0, statement.columnType(index) == .null { return try readNull() }
        return value
    }
}

extension Float: DatabaseValueConvertible {
    /// The value as `.real`.
    public var databaseValue: DatabaseValue { .real(Double(self)) }

    /// The number, from `.real` or `.integer`.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Float? {
        Double.fromDatabaseValue(value).map(Float.init)
    }

    /// Binds the number as a double; NaN throws `SQLITE_MISMATCH`.
    @inlinable
    public func bind(to statement: StatementHandle, at index: Int32) throws {
        try Double(self).bind(to: statement, at: index)
    }

    /// Binds through the handle, in one witness call from generic code.
    @inlinable
    public func bind(to statement: Statement, at index: Int32) throws {
        try bind(to: statement.handle, at: index)
    }

    /// Reads the column as a double, narrowed to `Float`.
    @inlinable
    public static func read(from statement: StatementHandle, at index: Int32) throws -> Float {
        let value = statement.columnDouble(index)
        if value == 0, statement.columnType(index) == .null { return try readNull() }
        return Float(value)
    }
}

extension Double {
    /// Makes the number a function's result.
    @inlinable
    public func setResult(of context: FunctionContext, dateStorage: Database.DateStorage) throws {
        context.resultDouble(self)
    }

    /// Reads the argument as a double, with SQLite's conversions.
    @inlinable
    public static func read(from value: ValueHandle) throws -> Double {
        let number = value.valueDouble()
        if number == 0, value.valueType() == .null { return try readNullArgument() }
        return number
    }
}

extension Float {
    /// Makes the number, widened to a double, a function's result.
    @inlinable
    public func setResult(of context: FunctionContext, dateStorage: Database.DateStorage) throws {
        context.resultDouble(Double(self))
    }

    /// Reads the argument as a double, narrowed to `Float`.
    @inlinable
    public static func read(from value: ValueHandle) throws -> Float {
        Float(try Double.read(from: value))
    }
}
