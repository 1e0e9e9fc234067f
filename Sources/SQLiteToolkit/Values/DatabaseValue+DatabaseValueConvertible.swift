import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
