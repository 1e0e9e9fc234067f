import Foundation
import SQLiteBindings

/// Integers bind as SQLite integers and read with SQLite's conversions (`'5'` reads as 5, `'abc'` as 0, 1.9 as 1);
/// a value outside the type's range throws instead of wrapping.
extension DatabaseValueConvertible where Self: FixedWidthInteger {
    /// Makes the integer a function's result; one that does not fit SQLite's 64-bit integer goes through
    /// ``databaseValue``.
    @inlinable
    public func setResult(of context: FunctionContext, dateStorage: Database.DateStorage) throws {
        guard let value = Int64(exactly: self) else { return databaseValue.setResult(of: context) }
        context.resultInt64(value)
    }

    /// The value as `.integer`; `UInt64` and `UInt` above `Int64.max` cannot be represented (see ``bind(to:at:)``).
    public var databaseValue: DatabaseValue { Int64(exactly: self).map { .integer($0) } ?? .real(Double(self)) }

    /// The integer, when `.integer` fits the type.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Self? {
        if case .integer(let integer) = value { return Self(exactly: integer) }
        return nil
    }

    /// Binds the integer; throws `SQLITE_MISMATCH` for a value above `Int64.max`.
    @inlinable
    public func bind(to statement: StatementHandle, at index: Int32) throws {
        guard let value = Int64(exactly: self) else {
            throw DatabaseError.mismatch(
                "a \(Self.self) above Int64.max does not fit SQLite's 64-bit signed integers", reason: .valueMismatch)
        }
        try check(bind: statement.bindInt64(index, value), at: index, of: statement)
    }

    /// Binds through the handle, in one witness call from generic code.
    @inlinable
    public func bind(to statement: Statement, at index: Int32) throws {
        try bind(to: statement.handle, at: index)
    }

    /// Reads the column as SQLite's 64-bit integer; throws `SQLITE_MISMATCH` when it does not fit the type.
    @inlinable
    public static func read(from statement: StatementHandle, at index: Int32) throws -> Self {
        let value = statement.columnInt64(index)
        if value == 0, statement.columnType(index) == .null { return try readNull() }
        guard let converted = Self(exactly: value) else {
            throw DatabaseError.mismatch(
                "an INTEGER out of \(Self.self)'s range cannot be read", reason: .valueMismatch)
        }
        return converted
    }
}

extension Int: DatabaseValueConvertible {}

extension Int8: DatabaseValueConvertible {}

extension Int16: DatabaseValueConvertible {}

extension Int32: DatabaseValueConvertible {}

extension Int64: DatabaseValueConvertible {}

extension UInt: DatabaseValueConvertible {}

extension UInt8: DatabaseValueConvertible {}

extension UInt16: DatabaseValueConvertible {}

extension UInt32: DatabaseValueConvertible {}

extension UInt64: DatabaseValueConvertible {}

extension DatabaseValueConvertible where Self: FixedWidthInteger {
    /// Reads the argument as SQLite's 64-bit integer; throws `SQLITE_MISMATCH` when it does not fit the type.
    @inlinable
    public static func read(from value: ValueHandle) throws -> Self {
        let integer = value.valueInt64()
        if integer == 0, value.valueType() == .null { return try readNullArgument() }
        guard let converted = Self(exactly: integer) else {
            throw integerArgumentMismatch()
        }
        return converted
    }
}
