import Foundation
import SQLiteBindings

// Reading the arguments of custom SQL functions, and setting their results, with the same conversions as `Row`:
// each standard type reads the value first and asks for its type only when the value could be NULL (0, empty),
// so most reads make one call into SQLite, and nothing is boxed.

extension DatabaseValueConvertible {
    /// Reads a ``DatabaseValue`` and converts it with ``fromDatabaseValue(_:)``.
    @inlinable
    public static func read(from value: ValueHandle) throws -> Self {
        let databaseValue = DatabaseValue.read(from: value)
        if case .null = databaseValue { return try readNullArgument() }
        guard let converted = fromDatabaseValue(databaseValue) else {
            throw DatabaseError.mismatch("cannot read a \(databaseValue.datatype) argument as \(Self.self)")
        }
        return converted
    }
}

extension DatabaseValueConvertible {
    /// ``DatabaseValueConvertible/readNull()``, out of line: the error it throws is built outside the argument
    /// reads, which stay small enough to inline into a function's closure.
    @usableFromInline @inline(never)
    static func readNullArgument() throws -> Self {
        try readNull()
    }

    /// The error of an integer argument that does not fit `Self`, out of line for the same reason.
    @usableFromInline @inline(never)
    static func integerArgumentMismatch() -> any Error {
        DatabaseError.mismatch("an integer argument does not fit \(Self.self)")
    }
}

extension DatabaseValue {
    /// Reads a function argument in its storage class: `x''` is an empty blob, NULL is `.null`.
    @inlinable
    public static func read(from value: ValueHandle) -> DatabaseValue {
        switch value.valueType() {
        case .integer: return .integer(value.valueInt64())
        case .float: return .real(value.valueDouble())
        case .text: return .text(value.valueString() ?? "")
        case .blob: return .blob(Data(value.valueDataNoCopy()))
        default: return .null
        }
    }

    /// Makes `context`'s result this value, in its storage class.
    @inlinable
    func setResult(of context: FunctionContext) {
        switch self {
        case .null: context.resultNull()
        case .integer(let value): context.resultInt64(value)
        case .real(let value): context.resultDouble(value)
        case .text(let value): context.resultString(value)
        case .blob(let value): value.withUnsafeBytes { context.resultData($0) }
        }
    }
}

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

extension Double {
    /// Reads the argument as a double, with SQLite's conversions.
    @inlinable
    public static func read(from value: ValueHandle) throws -> Double {
        let number = value.valueDouble()
        if number == 0, value.valueType() == .null { return try readNullArgument() }
        return number
    }
}

extension Float {
    /// Reads the argument as a double, narrowed to `Float`.
    @inlinable
    public static func read(from value: ValueHandle) throws -> Float {
        Float(try Double.read(from: value))
    }
}

extension Bool {
    /// Reads the argument as an integer: non-zero is `true`.
    @inlinable
    public static func read(from value: ValueHandle) throws -> Bool {
        let integer = value.valueInt64()
        if integer == 0, value.valueType() == .null { return try readNullArgument() }
        return integer != 0
    }
}

extension String {
    /// Reads the argument as text, with SQLite's conversions (5 reads as `"5"`). Bytes that are not valid UTF-8
    /// throw ``DatabaseError/Reason/invalidUTF8(column:byteOffset:)``.
    @inlinable
    public static func read(from value: ValueHandle) throws -> String {
        guard let text = try StrictUTF8.read(value) else { return try readNullArgument() }
        return text
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

extension Optional where Wrapped: DatabaseValueConvertible {
    /// Reads `nil` for NULL, else the wrapped value.
    @inlinable
    public static func read(from value: ValueHandle) throws -> Wrapped? {
        if value.valueType() == .null { return nil }
        return try Wrapped.read(from: value)
    }
}

/// Reads the arguments of the toolkit's typed functions: `Date` follows the connection's date storage, every other
/// type reads with ``DatabaseValueConvertible/read(from:)-(ValueHandle)``.
@usableFromInline
enum FunctionArgument {
    /// Reads `value` as `Value`; a `Date` (or `Date?`) reads from any form, numbers in the unit of `dates`. The type
    /// checks fold away where the function is specialized.
    @inlinable
    static func read<Value: DatabaseValueConvertible>(
        _ type: Value.Type, from value: ValueHandle, dates: Database.DateStorage
    ) throws -> Value {
        if Value.self == Date.self {
            return unsafeBitCast(try DateStorageCoding.read(from: value, as: dates), to: Value.self)
        }
        if Value.self == Date?.self {
            let date = value.valueType() == .null ? nil : try DateStorageCoding.read(from: value, as: dates)
            return unsafeBitCast(date, to: Value.self)
        }
        return try Value.read(from: value)
    }
}

/// Sets the results of the toolkit's typed functions and aggregates.
@usableFromInline
enum FunctionResult {
    /// Makes `value` the result of `context`, as it would be bound on a connection that stores dates as `dates`
    /// (`nil` is NULL). The standard types set it with one call into SQLite, without a ``DatabaseValue``: the type
    /// checks fold away where the function is specialized. Throws when the value cannot be stored (a `Date` the
    /// connection's ISO-8601 form cannot hold).
    @inlinable
    static func set<Value: DatabaseValueConvertible>(
        _ value: Value, of context: FunctionContext, dates: Database.DateStorage
    ) throws {
        if setStandard(value, of: context) { return }
        if let optional = exactly(value, Int64?.self) { return setOptional(optional, of: context) }
        if let optional = exactly(value, Int?.self) { return setOptional(optional, of: context) }
        if let optional = exactly(value, Double?.self) { return setOptional(optional, of: context) }
        if let optional = exactly(value, String?.self) { return setOptional(optional, of: context) }
        if let optional = exactly(value, Data?.self) { return setOptional(optional, of: context) }
        if let optional = exactly(value, Bool?.self) { return setOptional(optional, of: context) }
        if let date = exactly(value, Date.self) { return try setDate(date, of: context, dates: dates) }
        if let date = exactly(value, Date?.self) {
            guard let date else { return context.resultNull() }
            return try setDate(date, of: context, dates: dates)
        }
        if let date = exactly(value, ISO8601Date.self) { return try setDate(date.date, of: context, dates: .iso8601) }
        value.databaseValue.setResult(of: context)
    }

    /// Sets the result for a value of a standard type other than `Date`; `false` for any other type.
    @inlinable @inline(__always)
    static func setStandard<Value>(_ value: Value, of context: FunctionContext) -> Bool {
        if let value = exactly(value, Int64.self) {
            context.resultInt64(value)
        } else if let value = exactly(value, Int.self) {
            context.resultInt64(Int64(value))
        } else if let value = exactly(value, Double.self) {
            context.resultDouble(value)
        } else if let value = exactly(value, String.self) {
            context.resultString(value)
        } else if let value = exactly(value, Data.self) {
            value.withUnsafeBytes { context.resultData($0) }
        } else if let value = exactly(value, Bool.self) {
            context.resultInt64(value ? 1 : 0)
        } else {
            return false
        }
        return true
    }

    /// Sets the result for an optional of a standard type: NULL for `nil`.
    @inlinable @inline(__always)
    static func setOptional<Wrapped>(_ value: Wrapped?, of context: FunctionContext) {
        guard let value else { return context.resultNull() }
        _ = setStandard(value, of: context)
    }

    /// `value` as a `Known` when `Value` is that type, else `nil`.
    @inlinable @inline(__always)
    static func exactly<Value, Known>(_ value: Value, _ known: Known.Type) -> Known? {
        guard Value.self == Known.self else { return nil }
        return unsafeBitCast(value, to: Known.self)
    }

    /// Sets a date as the connection stores it; throws for a date its ISO-8601 form cannot hold.
    @usableFromInline
    static func setDate(_ date: Date, of context: FunctionContext, dates: Database.DateStorage) throws {
        switch dates {
        case .unixSeconds:
            context.resultDouble(date.timeIntervalSince1970)
        case .julianDay:
            context.resultDouble(
                date.timeIntervalSince1970 / DateStorageCoding.secondsPerDay + DateStorageCoding.julianDayOfUnixEpoch)
        case .iso8601:
            let wrapped = ISO8601Date(date)
            guard wrapped.isRepresentable else { throw DateStorageCoding.unrepresentableError }
            wrapped.databaseValue.setResult(of: context)
        }
    }
}

extension DateStorageCoding {
    /// Reads a function argument as a date: numbers (and numeric text) in the unit of `storage`, other text as
    /// ISO-8601 or as SQLite's `YYYY-MM-DD HH:MM:SS[.SSS]` (UTC), as column reads do.
    @usableFromInline
    static func read(from value: ValueHandle, as storage: Database.DateStorage) throws -> Date {
        switch value.valueType() {
        case .integer:
            return date(fromNumber: Double(value.valueInt64()), as: storage)
        case .float:
            return date(fromNumber: value.valueDouble(), as: storage)
        case .text:
            let text = value.valueString() ?? ""
            if let number = DateParsing.unixSeconds(from: text) { return date(fromNumber: number, as: storage) }
            if let date = DateParsing.date(from: text) { return date }
            throw DatabaseError.mismatch("cannot read a text argument as Date")
        case .null:
            return try Date.readNull()
        default:
            throw DatabaseError.mismatch("cannot read a blob argument as Date")
        }
    }
}
