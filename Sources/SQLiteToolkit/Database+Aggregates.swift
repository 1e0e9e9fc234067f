import SQLiteBindings

extension Database {
    /// Defines or replaces the aggregate SQL function `name`, computed by a fresh instance of `type` per group.
    ///
    /// ```swift
    /// try db.createAggregate("sumsq", argumentCount: 1, SumOfSquares.self)
    /// ```
    ///
    /// - Parameters:
    ///   - name: The SQL name, at most 255 bytes of UTF-8. Case-insensitive in SQL.
    ///   - argumentCount: The number of arguments, or `nil` for any number.
    ///   - options: Properties such as ``FunctionOptions/deterministic``.
    ///   - type: The aggregate type (see ``DatabaseAggregate``).
    /// - Throws: ``DatabaseError`` when the connection is closed, the name or argument count is invalid, or SQLite
    ///   refuses (`SQLITE_BUSY` while a statement using the function runs).
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
    @inlinable
    public func createAggregate<Aggregate: DatabaseAggregate>(
        _ name: String,
        argumentCount: Int?,
        options: FunctionOptions = [],
        _ type: Aggregate.Type
    ) throws {
        let (connection, count) = try checkFunction(name: name, argumentCount: argumentCount)
        let calls = functionCalls
        let code = connection.createAggregateFunction(
            name: name,
            argumentCount: count,
            flags: options.flags,
            initialState: { AggregateEvaluation<Aggregate>() },
            step: { evaluation, arguments in
                try Database.step(&evaluation, arguments, calls: calls) { try $0.step($1) }
            },
            final: { context, evaluation in
                guard !evaluation.failed else { return }
                let result = try calls.run { try evaluation.aggregate.finalize() }
                result.databaseValue.setResult(of: context)
            }
        )
        try checkRegistration(code, name: name, argumentCount: argumentCount)
    }

    /// Defines or replaces the aggregate window function `name`, computed by a fresh instance of `type` per group
    /// or partition; usable with `OVER (...)` and as a plain aggregate.
    ///
    /// ```swift
    /// try db.createWindowFunction("moving_sum", argumentCount: 1, MovingSum.self)
    /// let sums = try db.query(
    ///     "SELECT moving_sum(x) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM t")
    /// ```
    ///
    /// - Parameters:
    ///   - name: The SQL name, at most 255 bytes of UTF-8. Case-insensitive in SQL.
    ///   - argumentCount: The number of arguments, or `nil` for any number.
    ///   - options: Properties such as ``FunctionOptions/deterministic``.
    ///   - type: The window function type (see ``DatabaseWindowFunction``).
    /// - Throws: As ``createAggregate(_:argumentCount:options:_:)``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/windowfunctions.html#user_defined_aggregate_window_functions>
    @inlinable
    public func createWindowFunction<Function: DatabaseWindowFunction>(
        _ name: String,
        argumentCount: Int?,
        options: FunctionOptions = [],
        _ type: Function.Type
    ) throws {
        let (connection, count) = try checkFunction(name: name, argumentCount: argumentCount)
        let calls = functionCalls
        let code = connection.createWindowFunction(
            name: name,
            argumentCount: count,
            flags: options.flags,
            initialState: { AggregateEvaluation<Function>() },
            step: { evaluation, arguments in
                try Database.step(&evaluation, arguments, calls: calls) { try $0.step($1) }
            },
            inverse: { evaluation, arguments in
                try Database.step(&evaluation, arguments, calls: calls) { try $0.inverse($1) }
            },
            value: { context, evaluation in
                guard !evaluation.failed else { return }
                let result = try calls.run { try evaluation.aggregate.value() }
                result.databaseValue.setResult(of: context)
            },
            final: { context, evaluation in
                guard !evaluation.failed else { return }
                let result = try calls.run { try evaluation.aggregate.finalize() }
                result.databaseValue.setResult(of: context)
            }
        )
        try checkRegistration(code, name: name, argumentCount: argumentCount)
    }

    /// Runs one step or inverse step of an evaluation, marking it failed when it throws.
    @inlinable
    static func step<Aggregate: DatabaseAggregate>(
        _ evaluation: inout AggregateEvaluation<Aggregate>,
        _ arguments: FunctionArguments,
        calls: FunctionCallState,
        _ body: (inout Aggregate, FunctionValues) throws -> Void
    ) throws {
        guard !evaluation.failed else { return }
        do {
            try calls.run { try body(&evaluation.aggregate, FunctionValues(arguments)) }
        } catch {
            evaluation.failed = true
            throw error
        }
    }
}
