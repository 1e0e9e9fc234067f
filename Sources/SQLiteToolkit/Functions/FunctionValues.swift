import SQLiteBindings

/// The arguments of one call of a custom SQL function, read as Swift values with the same conversions as ``Row``.
/// Valid only while the function runs; making it allocates nothing.
///
/// ```swift
/// try db.createFunction("total_length", argumentCount: nil) { arguments in
///     try (0..<arguments.count).reduce(0) { $0 + (try arguments.value(at: $1, as: String?.self)?.count ?? 0) }
/// }
/// ```
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/value_blob.html>
public struct FunctionValues {
    /// The raw arguments, for the C API's accessors (`valueType()`, `valueDataNoCopy()`, ...).
    public let arguments: FunctionArguments
    /// How the connection stores dates: a number read as a `Date` is in its unit.
    @usableFromInline let dates: Database.DateStorage

    /// Wraps the raw arguments of a call; a number read as a `Date` is Unix seconds.
    @inlinable
    public init(_ arguments: FunctionArguments) {
        self.init(arguments, dates: .unixSeconds)
    }

    /// Wraps the raw arguments of a call to a function of a connection that stores dates as `dates`.
    @inlinable
    init(_ arguments: FunctionArguments, dates: Database.DateStorage) {
        self.arguments = arguments
        self.dates = dates
    }

    /// The number of arguments.
    @inlinable
    public var count: Int { arguments.count }

    /// The argument at `index` (0-based) as `T`: NULL reads only as an optional (`nil`), `x''` as empty bytes. A
    /// `Date` reads from any form, numbers in the unit of the connection's ``Database/Configuration/dateStorage``.
    ///
    /// - Throws: ``DatabaseError`` with ``DatabaseError/Reason/functionArgumentOutOfRange(index:count:)`` for an
    ///   index out of range, or `SQLITE_MISMATCH` when the value cannot be read as `T`.
    @inlinable
    public func value<T: DatabaseValueConvertible>(at index: Int, as type: T.Type = T.self) throws -> T {
        guard index >= 0, index < arguments.count else { throw outOfRange(index) }
        return try T.read(from: arguments[index], dateStorage: dates)
    }

    /// The error for an argument index out of range, boxed out of line, so ``value(at:as:)`` stays small enough to
    /// inline into an aggregate's step.
    @usableFromInline @inline(never)
    func outOfRange(_ index: Int) -> any Error {
        DatabaseError(
            extendedCode: .range,
            message: "function argument index \(index) is out of range: the call has \(arguments.count) arguments",
            reason: .functionArgumentOutOfRange(index: index, count: arguments.count))
    }

    /// The argument at `index` in its storage class; `.null` for an index out of range.
    public subscript(index: Int) -> DatabaseValue {
        guard index >= 0, index < arguments.count else { return .null }
        return DatabaseValue.read(from: arguments[index])
    }

    /// The arguments in their storage classes, in order.
    public var values: [DatabaseValue] { (0..<count).map { self[$0] } }
}

@available(*, unavailable, message: "function arguments are valid only during the call, on its thread")
extension FunctionValues: Sendable {}
