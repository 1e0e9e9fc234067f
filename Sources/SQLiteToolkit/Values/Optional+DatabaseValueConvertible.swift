import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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

extension Optional where Wrapped: DatabaseValueConvertible {
    /// Reads `nil` for NULL, else the wrapped value with the connection's date storage.
    @inlinable
    public static func read(from value: ValueHandle, dateStorage: Database.DateStorage) throws -> Wrapped? {
        if value.valueType() == .null { return nil }
        return try Wrapped.read(from: value, dateStorage: dateStorage)
    }

    /// NULL for `nil`, else the wrapped value's result.
    @inlinable
    public func setResult(of context: FunctionContext, dateStorage: Database.DateStorage) throws {
        guard let self else { return context.resultNull() }
        try self.setResult(of: context, dateStorage: dateStorage)
    }

    /// Reads `nil` for NULL, else the wrapped value.
    @inlinable
    public static func read(from value: ValueHandle) throws -> Wrapped? {
        if value.valueType() == .null { return nil }
        return try Wrapped.read(from: value)
    }
}
