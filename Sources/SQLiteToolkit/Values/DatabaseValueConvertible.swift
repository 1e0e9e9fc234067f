import Foundation
import SQLiteBindings

/// A type that can be bound as a statement argument and read from a column.
///
/// Conform your own types by saying how they become and come from a ``DatabaseValue``:
///
/// ```swift
/// struct Celsius: DatabaseValueConvertible {
///     var degrees: Double
///     var databaseValue: DatabaseValue { .real(degrees) }
///     static func fromDatabaseValue(_ value: DatabaseValue) -> Celsius? {
///         if case .real(let degrees) = value { return Celsius(degrees: degrees) }
///         return nil
///     }
/// }
/// ```
///
/// The standard types (integers, floating point, `Bool`, `String`, `Data`, `[UInt8]`, `Date`, `UUID`) also
/// implement the two fast paths, ``bind(to:at:)-(StatementHandle,_)`` and ``read(from:at:)-(StatementHandle,_)``, which go straight to SQLite's C API
/// without building a ``DatabaseValue``: generic code specialises to them, so binding and reading box nothing.
public protocol DatabaseValueConvertible {
    /// The value to store.
    var databaseValue: DatabaseValue { get }

    /// Makes a value from what SQLite stored, or `nil` when the stored value cannot represent one. Never called
    /// with `.null` except by `Optional`'s conformance.
    static func fromDatabaseValue(_ value: DatabaseValue) -> Self?

    /// Binds the value to the parameter at `index` (1-based). The default binds ``databaseValue``.
    func bind(to statement: StatementHandle, at index: Int32) throws

    /// Binds the value to the parameter at `index` (1-based) of a statement of the toolkit, which knows its
    /// connection's settings: every bind of the toolkit goes through here. The default calls
    /// ``bind(to:at:)-(StatementHandle,_)``; `Date` overrides it to follow the connection's
    /// ``Database/Configuration/dateStorage``. Implement it only for a type whose stored form depends on the
    /// connection.
    func bind(to statement: Statement, at index: Int32) throws

    /// Reads the value of column `index` (0-based) of the current row; for NULL it returns ``readNull()``. The
    /// default reads a ``DatabaseValue`` and calls ``fromDatabaseValue(_:)``. The standard types read the value
    /// first and ask for the column's type only when the value could be NULL (0, empty), so most reads make one
    /// call into SQLite.
    static func read(from statement: StatementHandle, at index: Int32) throws -> Self

    /// Reads the value of column `index` (0-based) of the current row of a statement of the toolkit: every read of
    /// ``Row`` goes through here. The default calls ``read(from:at:)-(StatementHandle,_)``; `Date` overrides it
    /// to read numbers in the unit of the connection's ``Database/Configuration/dateStorage``.
    static func read(from statement: Statement, at index: Int32) throws -> Self

    /// The value read from NULL. The default throws `SQLITE_MISMATCH`: only `Optional` reads NULL (as `nil`).
    static func readNull() throws -> Self

    /// Reads an argument of a custom SQL function with the same conversions as ``read(from:at:)-(StatementHandle,_)``; for NULL it
    /// returns ``readNull()``. The default reads a ``DatabaseValue`` and calls ``fromDatabaseValue(_:)``.
    static func read(from value: ValueHandle) throws -> Self
}

extension DatabaseValueConvertible {
    /// Binds ``databaseValue``.
    @inlinable
    public func bind(to statement: StatementHandle, at index: Int32) throws {
        try databaseValue.bind(to: statement, at: index)
    }

    /// Binds through the statement's handle: the value's stored form does not depend on the connection.
    @inlinable
    public func bind(to statement: Statement, at index: Int32) throws {
        try bind(to: statement.handle, at: index)
    }

    /// Reads through the statement's handle: the value's reading does not depend on the connection.
    @inlinable
    public static func read(from statement: Statement, at index: Int32) throws -> Self {
        try read(from: statement.handle, at: index)
    }

    /// Reads a ``DatabaseValue`` and converts it with ``fromDatabaseValue(_:)``.
    @inlinable
    public static func read(from statement: StatementHandle, at index: Int32) throws -> Self {
        let value = DatabaseValue.read(from: statement, at: index)
        if case .null = value { return try readNull() }
        guard let converted = fromDatabaseValue(value) else { throw readMismatch(value, as: Self.self) }
        return converted
    }
}

extension DatabaseValueConvertible {
    /// Throws `SQLITE_MISMATCH`: a non-optional type cannot hold NULL.
    @inlinable
    public static func readNull() throws -> Self {
        throw DatabaseError.mismatch(
            "NULL cannot be read as \(Self.self); read it as \(Self.self)? instead", reason: .unexpectedNull)
    }
}

/// The error of a stored value that cannot be read as `type`: it names the type, the storage class and the size,
/// never the value (``Row`` adds the value, truncated, when the connection opted in to values in errors).
@usableFromInline
func readMismatch<T>(_ value: DatabaseValue, as type: T.Type) -> DatabaseError {
    DatabaseError.mismatch("cannot read \(value.storageDescription) as \(T.self)", reason: .valueMismatch)
}

/// Throws the error of a failed bind.
@inlinable
func check(bind code: ResultCode, at index: Int32) throws {
    guard code == .ok else {
        throw DatabaseError(extendedCode: code, message: "cannot bind parameter \(index): \(code)")
    }
}

/// Throws the error of a failed bind, with SQLite's message and the parameter's index and name.
@inlinable
func check(bind code: ResultCode, at index: Int32, of statement: StatementHandle) throws {
    guard code == .ok else { throw bindError(code, at: index, of: statement) }
}

@usableFromInline
func bindError(_ code: ResultCode, at index: Int32, of statement: StatementHandle) -> DatabaseError {
    let connection = statement.connection()
    let extended = connection?.extendedErrorCode() ?? code
    var error = DatabaseError(
        extendedCode: extended.primary == code.primary ? extended : code,
        message: connection?.errorMessage() ?? SQLiteLibrary.errorString(code) ?? "\(code)",
        sql: statement.sql()
    )
    error.parameterIndex = Int(index)
    error.parameterName = statement.bindParameterName(index)
    return error
}

// MARK: - DatabaseValue

extension DatabaseValue: DatabaseValueConvertible {
    /// The value itself.
    public var databaseValue: DatabaseValue { self }

    /// The value itself.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> DatabaseValue? { value }

    /// Binds the value with the function of its storage class.
    @inlinable
    public func bind(to statement: StatementHandle, at index: Int32) throws {
        switch self {
        case .null: try check(bind: statement.bindNull(index), at: index, of: statement)
        case .integer(let value): try check(bind: statement.bindInt64(index, value), at: index, of: statement)
        case .real(let value): try value.bind(to: statement, at: index)
        case .text(let value): try check(bind: statement.bindText(index, value), at: index, of: statement)
        case .blob(let value): try value.bind(to: statement, at: index)
        }
    }

    /// Binds through the handle, in one witness call from generic code.
    @inlinable
    public func bind(to statement: Statement, at index: Int32) throws {
        try bind(to: statement.handle, at: index)
    }

    /// `.null`: a `DatabaseValue` holds NULL itself, so reading NULL as one never throws.
    @inlinable
    public static func readNull() -> DatabaseValue { .null }

    /// Reads the column in its storage class.
    @inlinable
    public static func read(from statement: StatementHandle, at index: Int32) -> DatabaseValue {
        switch statement.columnType(index) {
        case .integer: return .integer(statement.columnInt64(index))
        case .float: return .real(statement.columnDouble(index))
        case .text: return .text(statement.columnText(index) ?? "")
        case .blob: return .blob(Data(statement.columnBlobNoCopy(index)))
        default: return .null
        }
    }
}

// MARK: - Integers

/// Integers bind as SQLite integers and read with SQLite's conversions (`'5'` reads as 5, `'abc'` as 0, 1.9 as 1);
/// a value outside the type's range throws instead of wrapping.
extension DatabaseValueConvertible where Self: FixedWidthInteger {
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

// MARK: - Floating point, Bool

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

// MARK: - Text and bytes

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

// MARK: - Optional

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    /// `nil` is NULL.
    public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }

    /// NULL is `nil`; anything else converts as `Wrapped`.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Wrapped?? {
        if case .null = value { return .some(nil) }
        return Wrapped.fromDatabaseValue(value).map { .some($0) }
    }

    /// Binds NULL for `nil`.
    @inlinable
    public func bind(to statement: StatementHandle, at index: Int32) throws {
        switch self {
        case .none: try check(bind: statement.bindNull(index), at: index, of: statement)
        case .some(let value): try value.bind(to: statement, at: index)
        }
    }

    /// Reads `nil` for NULL, else the wrapped value.
    @inlinable
    public static func read(from statement: StatementHandle, at index: Int32) throws -> Wrapped? {
        if statement.columnType(index) == .null { return nil }
        return try Wrapped.read(from: statement, at: index)
    }

    /// Binds NULL for `nil`, else the wrapped value with the connection's settings.
    @inlinable
    public func bind(to statement: Statement, at index: Int32) throws {
        switch self {
        case .none: try check(bind: statement.handle.bindNull(index), at: index, of: statement.handle)
        case .some(let value): try value.bind(to: statement, at: index)
        }
    }

    /// Reads `nil` for NULL, else the wrapped value with the connection's settings.
    @inlinable
    public static func read(from statement: Statement, at index: Int32) throws -> Wrapped? {
        if statement.handle.columnType(index) == .null { return nil }
        return try Wrapped.read(from: statement, at: index)
    }

    /// `nil`.
    @inlinable
    public static func readNull() -> Wrapped? { nil }
}
