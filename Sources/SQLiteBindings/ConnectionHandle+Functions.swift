import CSQLiteToolkit

// Closure forms of custom SQL functions and collations. SQLite owns each box: it calls the `xDestroy` given to
// `sqlite3_create_function_v2`, `sqlite3_create_window_function` and `sqlite3_create_collation_v2` when the function
// or collation is replaced or removed and when the connection closes (see CallbackBox.swift). Nothing is allocated
// per call of a scalar function, nor per row of an aggregate after its first row.

extension ConnectionHandle {
    /// Defines or replaces the scalar SQL function `name` with a closure that sets the result of each call
    /// through its ``FunctionContext``.
    ///
    /// An error the closure throws makes the calling statement fail with the error's description as its message,
    /// and with its code when it is a ``ResultCode`` or ``ResultCodeError`` (`SQLITE_ERROR` otherwise).
    ///
    /// ```swift
    /// _ = connection.createScalarFunction(name: "double", argumentCount: 1, flags: [.utf8, .deterministic]) {
    ///     context, arguments in context.resultInt64(arguments[0].valueInt64() * 2)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: The SQL name.
    ///   - argumentCount: The number of arguments, or -1 for any number; functions of one name may differ by it.
    ///   - flags: The text encoding and properties, such as `.deterministic` (UTF-8 when no encoding is given).
    ///   - body: The function. It runs on the thread that runs the statement.
    /// - Returns: The result of `sqlite3_create_function_v2`; on failure the closure is already released. The closure
    ///   is released when the function is replaced or removed, or the connection closes.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
    public func createScalarFunction(
        name: String,
        argumentCount: Int32,
        flags: FunctionFlags = .utf8,
        _ body: @escaping (FunctionContext, FunctionArguments) throws -> Void
    ) -> ResultCode {
        createScalarFunction(name: name, argumentCount: argumentCount, flags: flags, counter: nil, body)
    }

    /// Defines or replaces the scalar SQL function `name`, as ``createScalarFunction(name:argumentCount:flags:_:)``
    /// does, with each call counted in `counter` while it runs and each error it throws reported as
    /// ``CallbackCounter/reportedError(_:)`` maps it.
    ///
    /// The counting happens in the C trampoline, so `body` is the only closure a call runs.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
    public func createScalarFunction(
        name: String,
        argumentCount: Int32,
        flags: FunctionFlags = .utf8,
        counter: CallbackCounter?,
        _ body: @escaping (FunctionContext, FunctionArguments) throws -> Void
    ) -> ResultCode {
        // SQLite calls `destroy` also when this call fails, so the box is never leaked.
        createFunction(
            name: name,
            argumentCount: argumentCount,
            flags: flags,
            userData: Unmanaged.passRetained(FunctionBox(counter: counter, call: body)).toOpaque(),
            function: counter == nil ? FunctionTrampoline.call : FunctionTrampoline.countedCall,
            step: nil,
            final: nil,
            destroy: FunctionBox.destroy
        )
    }

    /// Defines or replaces the aggregate SQL function `name` with a closure per row of a group (`step`) and one
    /// for the group's result (`final`), which keep their state themselves, usually through
    /// ``FunctionContext/aggregateState(_:initial:)`` and ``FunctionContext/takeAggregateState(_:)``.
    ///
    /// This is the form the state-keeping ``createAggregateFunction(name:argumentCount:flags:initialState:step:final:)``
    /// builds on. SQLite calls `final` exactly once per group, also for a group with no rows and when the statement
    /// fails or is reset. Errors thrown fail the statement as for ``createScalarFunction(name:argumentCount:flags:_:)``.
    /// The closures run on the thread that runs the statement. They are released when the function is replaced
    /// or removed, when the connection closes, or when this call fails.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
    public func createAggregateFunction(
        name: String,
        argumentCount: Int32,
        flags: FunctionFlags = .utf8,
        step: @escaping (FunctionContext, FunctionArguments) throws -> Void,
        final: @escaping (FunctionContext) throws -> Void
    ) -> ResultCode {
        createAggregateFunction(
            name: name, argumentCount: argumentCount, flags: flags, counter: nil, step: step, final: final)
    }

    /// Defines or replaces the aggregate SQL function `name`, as
    /// ``createAggregateFunction(name:argumentCount:flags:step:final:)`` does, with each call of `step` and `final`
    /// counted in `counter` while it runs and each error they throw reported as
    /// ``CallbackCounter/reportedError(_:)`` maps it.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
    public func createAggregateFunction(
        name: String,
        argumentCount: Int32,
        flags: FunctionFlags = .utf8,
        counter: CallbackCounter?,
        step: @escaping (FunctionContext, FunctionArguments) throws -> Void,
        final: @escaping (FunctionContext) throws -> Void
    ) -> ResultCode {
        createFunction(
            name: name,
            argumentCount: argumentCount,
            flags: flags,
            userData: Unmanaged.passRetained(FunctionBox(counter: counter, call: step, final: final)).toOpaque(),
            function: nil,
            step: counter == nil ? FunctionTrampoline.call : FunctionTrampoline.countedCall,
            final: counter == nil ? FunctionTrampoline.final : FunctionTrampoline.countedFinal,
            destroy: FunctionBox.destroy
        )
    }

    /// Defines or replaces the aggregate SQL function `name`, which folds the rows of each group into a `State`.
    ///
    /// Each evaluation (each group) starts from `initialState()`, runs `step` once per row, then `final`, which sets
    /// the result through its ``FunctionContext``. Over no rows (`SELECT total(x) FROM emptyTable`) no step runs and
    /// `final` gets `initialState()`. Errors thrown by `step` or `final` fail the statement as for
    /// ``createScalarFunction(name:argumentCount:flags:_:)``.
    ///
    /// ```swift
    /// _ = connection.createAggregateFunction(
    ///     name: "product", argumentCount: 1, initialState: { 1.0 },
    ///     step: { product, arguments in product *= arguments[0].valueDouble() },
    ///     final: { context, product in context.resultDouble(product) })
    /// ```
    ///
    /// The closures run on the thread that runs the statement. They are released when the function is replaced
    /// or removed, when the connection closes, or when this call fails.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
    @inlinable
    public func createAggregateFunction<State>(
        name: String,
        argumentCount: Int32,
        flags: FunctionFlags = .utf8,
        initialState: @escaping () -> State,
        step: @escaping (inout State, FunctionArguments) throws -> Void,
        final: @escaping (FunctionContext, State) throws -> Void
    ) -> ResultCode {
        // Inlinable, so each closure below is specialized for `State` where the function is defined: a row costs
        // no generic metadata lookup.
        createAggregateFunction(
            name: name,
            argumentCount: argumentCount,
            flags: flags,
            step: FunctionContext.updatingAggregateState(initial: initialState, step),
            final: { context in
                try final(context, context.takeAggregateState(State.self) ?? initialState())
            }
        )
    }

    /// Defines or replaces the aggregate window function `name` with closures that keep their state themselves, as
    /// ``createAggregateFunction(name:argumentCount:flags:step:final:)`` does: `step` adds a row entering the frame,
    /// `inverse` removes one leaving it, `value` sets the result for the current frame, `final` the last result.
    ///
    /// This is the form the state-keeping
    /// ``createWindowFunction(name:argumentCount:flags:initialState:step:inverse:value:final:)`` builds on.
    ///
    /// Related SQLite documentation: <https://sqlite.org/windowfunctions.html#user_defined_aggregate_window_functions>
    public func createWindowFunction(
        name: String,
        argumentCount: Int32,
        flags: FunctionFlags = .utf8,
        step: @escaping (FunctionContext, FunctionArguments) throws -> Void,
        inverse: @escaping (FunctionContext, FunctionArguments) throws -> Void,
        value: @escaping (FunctionContext) throws -> Void,
        final: @escaping (FunctionContext) throws -> Void
    ) -> ResultCode {
        createWindowFunction(
            name: name, argumentCount: argumentCount, flags: flags, counter: nil, step: step, inverse: inverse,
            value: value, final: final)
    }

    /// Defines or replaces the aggregate window function `name`, as
    /// ``createWindowFunction(name:argumentCount:flags:step:inverse:value:final:)`` does, with each call of its
    /// closures counted in `counter` while it runs and each error they throw reported as
    /// ``CallbackCounter/reportedError(_:)`` maps it.
    ///
    /// Related SQLite documentation: <https://sqlite.org/windowfunctions.html#user_defined_aggregate_window_functions>
    public func createWindowFunction(
        name: String,
        argumentCount: Int32,
        flags: FunctionFlags = .utf8,
        counter: CallbackCounter?,
        step: @escaping (FunctionContext, FunctionArguments) throws -> Void,
        inverse: @escaping (FunctionContext, FunctionArguments) throws -> Void,
        value: @escaping (FunctionContext) throws -> Void,
        final: @escaping (FunctionContext) throws -> Void
    ) -> ResultCode {
        let box = FunctionBox(counter: counter, call: step, final: final, value: value, inverse: inverse)
        return createWindowFunction(
            name: name,
            argumentCount: argumentCount,
            flags: flags,
            userData: Unmanaged.passRetained(box).toOpaque(),
            step: counter == nil ? FunctionTrampoline.call : FunctionTrampoline.countedCall,
            final: counter == nil ? FunctionTrampoline.final : FunctionTrampoline.countedFinal,
            value: counter == nil ? FunctionTrampoline.value : FunctionTrampoline.countedValue,
            inverse: counter == nil ? FunctionTrampoline.inverse : FunctionTrampoline.countedInverse,
            destroy: FunctionBox.destroy
        )
    }

    /// Defines or replaces the aggregate window function `name`, usable both as an aggregate and with `OVER (...)`.
    ///
    /// Each evaluation starts from `initialState()`. `step` adds a row entering the window frame, `inverse` removes
    /// a row leaving it, `value` sets the result for the current frame, and `final` sets the last result (it also
    /// runs, with `initialState()`, when no step ran). Errors thrown fail the statement as for
    /// ``createScalarFunction(name:argumentCount:flags:_:)``.
    ///
    /// ```swift
    /// _ = connection.createWindowFunction(
    ///     name: "sumint", argumentCount: 1, initialState: { Int64(0) },
    ///     step: { sum, arguments in sum += arguments[0].valueInt64() },
    ///     inverse: { sum, arguments in sum -= arguments[0].valueInt64() },
    ///     value: { context, sum in context.resultInt64(sum) },
    ///     final: { context, sum in context.resultInt64(sum) })
    /// ```
    ///
    /// The closures run on the thread that runs the statement. They are released when the function is replaced
    /// or removed, when the connection closes, or when this call fails.
    ///
    /// Related SQLite documentation: <https://sqlite.org/windowfunctions.html#user_defined_aggregate_window_functions>
    @inlinable
    public func createWindowFunction<State>(
        name: String,
        argumentCount: Int32,
        flags: FunctionFlags = .utf8,
        initialState: @escaping () -> State,
        step: @escaping (inout State, FunctionArguments) throws -> Void,
        inverse: @escaping (inout State, FunctionArguments) throws -> Void,
        value: @escaping (FunctionContext, State) throws -> Void,
        final: @escaping (FunctionContext, State) throws -> Void
    ) -> ResultCode {
        createWindowFunction(
            name: name,
            argumentCount: argumentCount,
            flags: flags,
            step: FunctionContext.updatingAggregateState(initial: initialState, step),
            inverse: FunctionContext.updatingAggregateState(initial: initialState, inverse),
            value: { context in
                if let state = context.existingAggregateState(State.self) {
                    try value(context, state.pointee)
                } else {
                    try value(context, initialState())
                }
            },
            final: { context in
                try final(context, context.takeAggregateState(State.self) ?? initialState())
            }
        )
    }

    /// Removes the custom function `name` taking `argumentCount` arguments, releasing its closures.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
    public func removeFunction(name: String, argumentCount: Int32) -> ResultCode {
        createFunction(
            name: name,
            argumentCount: argumentCount,
            flags: .utf8,
            userData: nil,
            function: nil,
            step: nil,
            final: nil,
            destroy: nil
        )
    }

    /// Defines or replaces the collation `name` with a closure that compares two UTF-8 strings given as bytes
    /// (not NUL-terminated), returning a negative number, zero or a positive number as the first sorts before, equal
    /// to or after the second.
    ///
    /// The comparison must be a total order: consistent, antisymmetric and transitive, or indexes using it break.
    ///
    /// ```swift
    /// _ = connection.createCollation(name: "length") { left, right in Int32(left.count - right.count).signum() }
    /// ```
    ///
    /// The closure runs on the thread that runs the statement. It is released when the collation is replaced or
    /// removed, when the connection closes, or when this call fails.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/create_collation.html>
    public func createCollation(
        name: String,
        _ compare: @escaping (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Int32
    ) -> ResultCode {
        // The collation's xDestroy releases the box; nothing needs removing then, so `uninstall` does nothing.
        let box = Unmanaged.passRetained(ConnectionCallbackBox(connection: self, handler: compare) { _ in })
        let code = createCollation(
            name: name,
            context: box.toOpaque(),
            compare: { context, leftCount, left, rightCount, right in
                guard let context else { return 0 }
                let box = ConnectionCallbackBox<(UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Int32>
                    .unretained(context)
                return box.handler(
                    UnsafeRawBufferPointer(start: left, count: left == nil ? 0 : Int(leftCount)),
                    UnsafeRawBufferPointer(start: right, count: right == nil ? 0 : Int(rightCount))
                )
            },
            destroy: { context in
                guard let context else { return }
                Unmanaged<ConnectionCallback>.fromOpaque(context).release()
            }
        )
        // "The xDestroy callback is not called if the sqlite3_create_collation_v2() function fails."
        if code != .ok { box.release() }
        return code
    }
}
