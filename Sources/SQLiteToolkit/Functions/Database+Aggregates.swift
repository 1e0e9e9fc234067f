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
        let code = defineAggregate(connection, name, count, options, Aggregate.self, dates: configuration.dateStorage)
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
        let code = defineWindowFunction(
            connection, name, count, options, Function.self, dates: configuration.dateStorage)
        try checkRegistration(code, name: name, argumentCount: argumentCount)
    }

    /// Registers `Aggregate`, counted in the connection's callback scope, its dates stored as `dates`.
    @inlinable
    func defineAggregate<Aggregate: DatabaseAggregate>(
        _ connection: ConnectionHandle,
        _ name: String,
        _ count: Int32,
        _ options: FunctionOptions,
        _ type: Aggregate.Type,
        dates: DateStorage
    ) -> ResultCode {
        connection.createAggregateFunction(
            name: name,
            argumentCount: count,
            flags: options.flags,
            counter: runningCallbacks.counter,
            step: { context, arguments in
                try Database.step(context, arguments, Aggregate.self, dates: dates) { try $0.step($1) }
            },
            final: { context in
                try Database.finish(context, Aggregate.self, dates: dates) { try $0.finalize() }
            }
        )
    }

    /// Registers the window function `Function`, counted in the connection's callback scope, its dates stored as
    /// `dates`.
    @inlinable
    func defineWindowFunction<Function: DatabaseWindowFunction>(
        _ connection: ConnectionHandle,
        _ name: String,
        _ count: Int32,
        _ options: FunctionOptions,
        _ type: Function.Type,
        dates: DateStorage
    ) -> ResultCode {
        connection.createWindowFunction(
            name: name,
            argumentCount: count,
            flags: options.flags,
            counter: runningCallbacks.counter,
            step: { context, arguments in
                try Database.step(context, arguments, Function.self, dates: dates) { try $0.step($1) }
            },
            inverse: { context, arguments in
                try Database.step(context, arguments, Function.self, dates: dates) { try $0.inverse($1) }
            },
            value: { context in
                guard let evaluation = context.existingAggregateState(AggregateEvaluation<Function>.self) else {
                    try Function().value().setResult(of: context, dateStorage: dates)
                    return
                }
                guard !evaluation.pointee.failed else { return }
                try evaluation.pointee.aggregate.value().setResult(of: context, dateStorage: dates)
            },
            final: { context in
                try Database.finish(context, Function.self, dates: dates) { try $0.finalize() }
            }
        )
    }

    /// Runs one step or inverse step of the evaluation `context` belongs to (making its instance on its first
    /// row), marking it failed when it throws: its later steps are skipped and its instance is only released.
    @inlinable
    static func step<Aggregate: DatabaseAggregate>(
        _ context: FunctionContext,
        _ arguments: FunctionArguments,
        _ type: Aggregate.Type,
        dates: DateStorage,
        _ body: (inout Aggregate, FunctionValues) throws -> Void
    ) throws {
        guard let evaluation = context.aggregateState(initial: { AggregateEvaluation<Aggregate>() }) else {
            context.resultErrorNoMemory()
            return
        }
        guard !evaluation.pointee.failed else { return }
        do {
            try body(&evaluation.pointee.aggregate, FunctionValues(arguments, dates: dates))
        } catch {
            evaluation.pointee.failed = true
            throw error
        }
    }

    /// Runs the final step of the evaluation `context` belongs to, on its instance (a fresh one when no step ran),
    /// and releases the instance; sets nothing after a failed step, whose error already fails the statement.
    @inlinable
    static func finish<Aggregate: DatabaseAggregate>(
        _ context: FunctionContext,
        _ type: Aggregate.Type,
        dates: DateStorage,
        _ body: (Aggregate) throws -> Aggregate.Result
    ) throws {
        let evaluation = context.takeAggregateState(AggregateEvaluation<Aggregate>.self) ?? AggregateEvaluation()
        guard !evaluation.failed else { return }
        try body(evaluation.aggregate).setResult(of: context, dateStorage: dates)
    }
}
