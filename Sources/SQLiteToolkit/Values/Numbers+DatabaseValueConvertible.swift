import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// Integers, floating point and Bool: every conversion of each, for statements and for custom functions. Each
// reads the value first and asks for its storage class only when the value could be NULL (0), so most reads make
// one call into SQLite, and nothing is boxed.

// MARK: - Integers

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

// MARK: - Floating point

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

// MARK: - Bool

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
