import CSQLiteToolkit

/// The arguments of one call of a custom SQL function: a collection of ``ValueHandle`` over the `argv` array SQLite
/// passes, valid only while the function runs. Making it allocates nothing.
///
/// ```swift
/// let total = arguments.reduce(0) { $0 + $1.valueInt64() }
/// ```
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
public struct FunctionArguments: RandomAccessCollection {
    /// The `argv` array: `count` non-NULL `sqlite3_value*` pointers.
    @usableFromInline
    let values: UnsafeMutablePointer<OpaquePointer?>?

    /// The number of arguments.
    public let endIndex: Int

    /// Wraps the `argc` and `argv` that SQLite passes to `xFunc`, `xStep` and `xInverse`.
    @inlinable
    public init(count: Int32, values: UnsafeMutablePointer<OpaquePointer?>?) {
        self.values = values
        self.endIndex = values == nil ? 0 : Int(Swift.max(count, 0))
    }

    /// Wraps the `argc` and `argv` of a call from SQLite itself, which passes a `count` of 0 or more and a non-NULL
    /// `values` array of that many pointers: the trampolines skip ``init(count:values:)``'s normalization.
    @inline(__always)
    init(fromSQLite count: Int32, values: UnsafeMutablePointer<OpaquePointer?>?) {
        self.values = values
        self.endIndex = Int(count)
    }

    /// The position of the first argument: 0.
    @inlinable
    public var startIndex: Int { 0 }

    /// The argument at `position` (0-based).
    @inlinable
    public subscript(position: Int) -> ValueHandle {
        precondition(position >= 0 && position < endIndex, "function argument index \(position) out of range")
        // SQLite fills argv with `count` valid sqlite3_value pointers (SQL NULL is a value of type SQLITE_NULL, not a
        // NULL pointer), and `endIndex` is 0 when argv itself is NULL; `unsafelyUnwrapped` skips a second check per
        // argument in release builds and still checks in debug builds.
        return ValueHandle(rawValue: values.unsafelyUnwrapped[position].unsafelyUnwrapped)
    }
}

@available(*, unavailable)
extension FunctionArguments: Sendable {}
