import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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

    /// Reads an argument of a custom SQL function of a connection that stores dates as `dateStorage`: every
    /// argument the toolkit's typed functions read goes through here. The default calls
    /// ``read(from:)-(ValueHandle)``; `Date` overrides it to read numbers in the unit of `dateStorage`, as
    /// ``read(from:at:)-(Statement,_)`` does for a column.
    static func read(from value: ValueHandle, dateStorage: Database.DateStorage) throws -> Self

    /// Makes the value the result of a custom SQL function of a connection that stores dates as `dateStorage`:
    /// every result of the toolkit's typed functions and aggregates is set here. The default sets
    /// ``databaseValue``; the standard types set theirs with one call into SQLite, and `Date` in the form of
    /// `dateStorage`, as it binds.
    func setResult(of context: FunctionContext, dateStorage: Database.DateStorage) throws
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
