import CSQLiteToolkit

// Closure forms of custom SQL functions and collations. SQLite owns each box: it calls the `xDestroy` given to
// `sqlite3_create_function_v2`, `sqlite3_create_window_function` and `sqlite3_create_collation_v2` when the function
// or collation is replaced or removed and when the connection closes (see CallbackBox.swift). Nothing is allocated
// per call of a scalar function, nor per row of an aggregate after its first row.

/// The closures of one custom SQL function, whose address is the function's user data (`sqlite3_user_data`).
final class FunctionBox {
    typealias Call = (FunctionContext, FunctionArguments) -> Void
    typealias Result = (FunctionContext) -> Void

    /// `xFunc` of a scalar function, or `xStep` of an aggregate or window function.
    let call: Call
    /// `xFinal` of an aggregate or window function.
    let final: Result?
    /// `xValue` of a window function.
    let value: Result?
    /// `xInverse` of a window function.
    let inverse: Call?

    init(call: @escaping Call, final: Result? = nil, value: Result? = nil, inverse: Call? = nil) {
        self.call = call
        self.final = final
        self.value = value
        self.inverse = inverse
    }

    /// The box of the function that `context` is a call of.
    static func of(_ context: OpaquePointer) -> FunctionBox? {
        guard let userData = FunctionContext(rawValue: context).userData() else { return nil }
        return Unmanaged<FunctionBox>.fromOpaque(userData).takeUnretainedValue()
    }

    /// The `xDestroy` of every function made from a box: releases it.
    static let destroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { userData in
        guard let userData else { return }
        Unmanaged<FunctionBox>.fromOpaque(userData).release()
    }
}

/// The state of one evaluation of an aggregate or window function (one group, one partition), stored in the
/// evaluation's `sqlite3_aggregate_context` as a retained pointer and released by its final step.
final class AggregateStateBox<State> {
    // Confined to the thread running the statement; a dynamic exclusivity check per row would cost more than the
    // step itself.
    @exclusivity(unchecked) var state: State

    init(_ state: State) {
        self.state = state
    }

    /// The state box of the evaluation `context` belongs to, made from `initial` on its first call. `nil` when
    /// SQLite is out of memory.
    static func current(_ context: FunctionContext, initial: () -> State) -> AggregateStateBox<State>? {
        guard let slot = context.aggregateContext(Int32(MemoryLayout<UnsafeMutableRawPointer?>.size)) else {
            return nil
        }
        // The slot is zeroed on the evaluation's first call: a nil pointer.
        if let existing = slot.load(as: UnsafeMutableRawPointer?.self) {
            return Unmanaged<AggregateStateBox<State>>.fromOpaque(existing).takeUnretainedValue()
        }
        let box = AggregateStateBox(initial())
        slot.storeBytes(of: Unmanaged.passRetained(box).toOpaque(), as: UnsafeMutableRawPointer?.self)
        return box
    }

    /// The state box of the evaluation, without making one: `nil` when no step ran (an aggregate over no rows).
    static func existing(_ context: FunctionContext) -> AggregateStateBox<State>? {
        guard let slot = context.aggregateContext(0), let existing = slot.load(as: UnsafeMutableRawPointer?.self)
        else { return nil }
        return Unmanaged<AggregateStateBox<State>>.fromOpaque(existing).takeUnretainedValue()
    }

    /// Takes the state box out of the evaluation, balancing the retain of ``current(_:initial:)``; `nil` when no
    /// step ran. SQLite calls the final step exactly once per evaluation, also when the statement fails or is reset.
    static func take(_ context: FunctionContext) -> AggregateStateBox<State>? {
        guard let slot = context.aggregateContext(0), let existing = slot.load(as: UnsafeMutableRawPointer?.self)
        else { return nil }
        slot.storeBytes(of: nil, as: UnsafeMutableRawPointer?.self)
        return Unmanaged<AggregateStateBox<State>>.fromOpaque(existing).takeRetainedValue()
    }
}

/// The trampolines of ``FunctionBox``, shared by every function.
private enum FunctionTrampoline {
    static let call: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
        context, count, values in
        guard let context, let userData = FunctionContext(rawValue: context).userData() else { return }
        // SQLite holds the box's retain for as long as the function exists, so no retain is needed for the call.
        Unmanaged<FunctionBox>.fromOpaque(userData)._withUnsafeGuaranteedRef { box in
            box.call(FunctionContext(rawValue: context), FunctionArguments(count: count, values: values))
        }
    }

    static let final: @convention(c) (OpaquePointer?) -> Void = { context in
        guard let context, let box = FunctionBox.of(context) else { return }
        box.final?(FunctionContext(rawValue: context))
    }

    static let value: @convention(c) (OpaquePointer?) -> Void = { context in
        guard let context, let box = FunctionBox.of(context) else { return }
        box.value?(FunctionContext(rawValue: context))
    }

    static let inverse: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
        context, count, values in
        guard let context, let box = FunctionBox.of(context) else { return }
        box.inverse?(FunctionContext(rawValue: context), FunctionArguments(count: count, values: values))
    }
}

/// Makes the step of an aggregate or window function: applies `step` to the evaluation's state.
private func stateStep<State>(
    initialState: @escaping () -> State,
    _ step: @escaping (inout State, FunctionArguments) throws -> Void
) -> FunctionBox.Call {
    // The box's type is resolved once here, not through a generic metadata lookup on every row.
    let boxType = AggregateStateBox<State>.self
    return { context, arguments in
        guard let box = boxType.current(context, initial: initialState) else {
            sqltk_sqlite3_result_error_nomem(context.rawValue)
            return
        }
        do {
            try step(&box.state, arguments)
        } catch {
            reportError(error, to: context)
        }
    }
}

/// Makes the final step of an aggregate or window function: releases the evaluation's state and passes it (or a
/// fresh initial state when no step ran) to `final`.
private func stateFinal<State>(
    initialState: @escaping () -> State,
    _ final: @escaping (FunctionContext, State) throws -> Void
) -> FunctionBox.Result {
    let boxType = AggregateStateBox<State>.self
    return { context in
        let state = boxType.take(context)?.state ?? initialState()
        do {
            try final(context, state)
        } catch {
            reportError(error, to: context)
        }
    }
}

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
        let box = FunctionBox { context, arguments in
            do {
                try body(context, arguments)
            } catch {
                reportError(error, to: context)
            }
        }
        // SQLite calls `destroy` also when this call fails, so the box is never leaked.
        return createFunction(
            name: name,
            argumentCount: argumentCount,
            flags: flags,
            userData: Unmanaged.passRetained(box).toOpaque(),
            function: FunctionTrampoline.call,
            step: nil,
            final: nil,
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
    public func createAggregateFunction<State>(
        name: String,
        argumentCount: Int32,
        flags: FunctionFlags = .utf8,
        initialState: @escaping () -> State,
        step: @escaping (inout State, FunctionArguments) throws -> Void,
        final: @escaping (FunctionContext, State) throws -> Void
    ) -> ResultCode {
        let box = FunctionBox(
            call: stateStep(initialState: initialState, step),
            final: stateFinal(initialState: initialState, final)
        )
        return createFunction(
            name: name,
            argumentCount: argumentCount,
            flags: flags,
            userData: Unmanaged.passRetained(box).toOpaque(),
            function: nil,
            step: FunctionTrampoline.call,
            final: FunctionTrampoline.final,
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
        let boxType = AggregateStateBox<State>.self
        let box = FunctionBox(
            call: stateStep(initialState: initialState, step),
            final: stateFinal(initialState: initialState, final),
            value: { context in
                let state = boxType.existing(context)?.state ?? initialState()
                do {
                    try value(context, state)
                } catch {
                    reportError(error, to: context)
                }
            },
            inverse: stateStep(initialState: initialState, inverse)
        )
        return createWindowFunction(
            name: name,
            argumentCount: argumentCount,
            flags: flags,
            userData: Unmanaged.passRetained(box).toOpaque(),
            step: FunctionTrampoline.call,
            final: FunctionTrampoline.final,
            value: FunctionTrampoline.value,
            inverse: FunctionTrampoline.inverse,
            destroy: FunctionBox.destroy
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
