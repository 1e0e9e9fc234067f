import SQLiteBindings

/// A custom aggregate SQL function, written as a type: SQLite makes a fresh instance for each group, calls
/// ``step(_:)`` once per row of the group, then ``finalize()`` for the result.
///
/// ```swift
/// struct SumOfSquares: DatabaseAggregate {
///     var sum = 0
///     mutating func step(_ arguments: FunctionValues) throws {
///         if let value = try arguments.value(at: 0, as: Int?.self) { sum += value * value }
///     }
///     func finalize() -> Int { sum }
/// }
/// try db.createAggregate("sumsq", argumentCount: 1, SumOfSquares.self)
/// let total = try db.queryValue("SELECT sumsq(score) FROM player", as: Int.self)
/// ```
///
/// Over a group with no rows (`SELECT sumsq(x) FROM emptyTable`), ``finalize()`` runs on a fresh instance that
/// saw no step. An error thrown by ``step(_:)`` fails the statement and the instance is released without
/// ``finalize()``. The instance lives in the evaluation's `sqlite3_aggregate_context` and is released after the
/// last call of its evaluation, also when the statement fails or is reset early.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
public protocol DatabaseAggregate {
    /// The type of the result; an optional type gives NULL for `nil`.
    associatedtype Result: DatabaseValueConvertible

    /// An instance for a new group, before its first row.
    init()

    /// Adds one row of the group.
    mutating func step(_ arguments: FunctionValues) throws

    /// The result for the group, after its last row.
    func finalize() throws -> Result
}

/// A custom aggregate window function: an aggregate that can also remove rows, so SQLite can slide it along a
/// window frame (`SUM(x) OVER (ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)`) instead of recomputing each frame.
///
/// ```swift
/// struct MovingSum: DatabaseWindowFunction {
///     var sum = 0
///     mutating func step(_ arguments: FunctionValues) throws { sum += try arguments.value(at: 0, as: Int.self) }
///     mutating func inverse(_ arguments: FunctionValues) throws { sum -= try arguments.value(at: 0, as: Int.self) }
///     func value() -> Int { sum }
///     func finalize() -> Int { sum }
/// }
/// try db.createWindowFunction("moving_sum", argumentCount: 1, MovingSum.self)
/// ```
///
/// Each partition gets a fresh instance. The function also works as a plain aggregate, without `OVER`.
///
/// Related SQLite documentation: <https://sqlite.org/windowfunctions.html#user_defined_aggregate_window_functions>
public protocol DatabaseWindowFunction: DatabaseAggregate {
    /// Removes the oldest row added by ``DatabaseAggregate/step(_:)`` that is still in the frame.
    mutating func inverse(_ arguments: FunctionValues) throws

    /// The result for the current frame.
    func value() throws -> Result
}

/// The state SQLite keeps for one evaluation of an aggregate: the instance, and whether a step failed (then the
/// instance is only released).
@usableFromInline
struct AggregateEvaluation<Aggregate: DatabaseAggregate> {
    @usableFromInline var aggregate: Aggregate
    @usableFromInline var failed = false

    @inlinable
    init() {
        aggregate = Aggregate()
    }
}
