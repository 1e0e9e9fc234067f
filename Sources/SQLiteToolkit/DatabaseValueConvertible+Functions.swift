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
        if case .null = databaseValue { return try readNull() }
        guard let converted = fromDatabaseValue(databaseValue) else {
            throw DatabaseError.mismatch("cannot read a \(databaseValue.datatype) argument as \(Self.self)")
        }
        return converted
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
        if integer == 0, value.valueType() == .null { return try readNull() }
        guard let converted = Self(exactly: integer) else {
            throw DatabaseError.mismatch("an integer argument does not fit \(Self.self)")
        }
        return converted
    }
}

extension Double {
    /// Reads the argument as a double, with SQLite's conversions.
    @inlinable
    public static func read(from value: ValueHandle) throws -> Double {
        let number = value.valueDouble()
        if number == 0, value.valueType() == .null { return try readNull() }
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
        if integer == 0, value.valueType() == .null { return try readNull() }
        return integer != 0
    }
}

extension String {
    /// Reads the argument as text, with SQLite's conversions (5 reads as `"5"`).
    @inlinable
    public static func read(from value: ValueHandle) throws -> String {
        guard let text = value.valueString() else { return try readNull() }
        return text
    }
}

extension Data {
    /// Reads the argument as bytes (text gives its UTF-8); `x''` reads as empty data, NULL throws.
    @inlinable
    public static func read(from value: ValueHandle) throws -> Data {
        let bytes = value.valueDataNoCopy()
        if bytes.isEmpty, value.valueType() == .null { return try readNull() }
        return Data(bytes)
    }
}

extension [UInt8] {
    /// Reads the argument as bytes (text gives its UTF-8); `x''` reads as an empty array, NULL throws.
    @inlinable
    public static func read(from value: ValueHandle) throws -> [UInt8] {
        let bytes = value.valueDataNoCopy()
        if bytes.isEmpty, value.valueType() == .null { return try readNull() }
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
