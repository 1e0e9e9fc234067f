import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
    /// Reads the argument with ``read(from:)-(ValueHandle)``: the value's reading does not depend on the connection.
    @inlinable
    public static func read(from value: ValueHandle, dateStorage: Database.DateStorage) throws -> Self {
        try read(from: value)
    }

    /// Sets ``databaseValue`` as the result, in its storage class.
    @inlinable
    public func setResult(of context: FunctionContext, dateStorage: Database.DateStorage) throws {
        databaseValue.setResult(of: context)
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
