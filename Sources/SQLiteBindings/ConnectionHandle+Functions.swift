import CSQLiteToolkit

// Closure forms of custom SQL functions and collations. SQLite owns each box: it calls the `xDestroy` given to
// `sqlite3_create_function_v2`, `sqlite3_create_window_function` and `sqlite3_create_collation_v2` when the function
// or collation is replaced or removed and when the connection closes (see CallbackBox.swift). Nothing is allocated
// per call of a scalar function, nor per row of an aggregate after its first row.

/// A count of the callbacks of one connection that are running now, for a layer above that must know whether SQLite
/// is inside one of them: closing a connection from inside its own callback must wait until the statement that
/// called it returns, since finalizing that statement would free memory SQLite is still using.
///
/// The trampolines of the custom functions registered with a counter (the `counter:` forms of
/// ``ConnectionHandle/createScalarFunction(name:argumentCount:flags:counter:_:)``,
/// ``ConnectionHandle/createAggregateFunction(name:argumentCount:flags:counter:step:final:)`` and
/// ``ConnectionHandle/createWindowFunction(name:argumentCount:flags:counter:step:inverse:value:final:)``) add one to
/// ``depth`` around each call, so counting costs a function no closure of its own. A layer counts its other
/// callbacks in the same ``depth`` itself.
///
/// A counter belongs to its connection's thread, like the connection's callbacks.
open class CallbackCounter {
    /// Where the count is kept: a pointer, so a trampoline updates it without retaining the counter.
    @usableFromInline final let depthStorage: UnsafeMutablePointer<Int>

    /// The number of callbacks running now, nested or not.
    @inlinable
    public final var depth: Int {
        get { depthStorage.pointee }
        set { depthStorage.pointee = newValue }
    }

    /// Makes a counter at 0.
    public init() {
        depthStorage = .allocate(capacity: 1)
        depthStorage.initialize(to: 0)
    }

    deinit {
        depthStorage.deallocate()
    }

    /// The error to report to SQLite for `error`, thrown by a function registered with this counter: `error`
    /// itself unless a subclass maps it. Its description becomes the statement's message, and its code the
    /// statement's code when it is a ``ResultCode`` or a ``ResultCodeError``.
    open func reportedError(_ error: any Error) -> any Error {
        error
    }
}

/// The closures of one custom SQL function, whose address is the function's user data (`sqlite3_user_data`).
///
/// Each closure sets the call's result through its context, or throws: the trampoline reports the error to SQLite.
/// A trampoline calls its closure directly, with no closure in between, so a call costs one indirect call beyond C;
/// with a ``CallbackCounter``, the trampoline itself counts the call.
final class FunctionBox {
    typealias Call = (FunctionContext, FunctionArguments) throws -> Void
    typealias Result = (FunctionContext) throws -> Void

    /// `xFunc` of a scalar function, or `xStep` of an aggregate or window function.
    let call: Call
    /// `xFinal` of an aggregate or window function.
    let final: Result?
    /// `xValue` of a window function.
    let value: Result?
    /// `xInverse` of a window function.
    let inverse: Call?
    /// The counter each call is counted in while it runs, if any; the box keeps it alive.
    let counter: CallbackCounter?
    /// The counter's count, which the trampolines update without retaining the counter.
    let depth: UnsafeMutablePointer<Int>?

    init(
        counter: CallbackCounter?, call: @escaping Call, final: Result? = nil, value: Result? = nil,
        inverse: Call? = nil
    ) {
        self.counter = counter
        self.depth = counter?.depthStorage
        self.call = call
        self.final = final
        self.value = value
        self.inverse = inverse
    }

    /// The `xDestroy` of every function made from a box: releases it.
    static let destroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { userData in
        guard let userData else { return }
        Unmanaged<FunctionBox>.fromOpaque(userData).release()
    }
}

/// The trampolines of ``FunctionBox``, shared by every function. SQLite holds the box's retain for as long as the
/// function exists, so a call borrows the box (`_withUnsafeGuaranteedRef`): no retain or release per call. A function
/// with a counter gets the counting trampolines, one without it the plain ones, so neither tests for a counter per
/// call; the count is updated through a pointer, without retaining the counter (the box keeps it alive).
private enum FunctionTrampoline {
    /// Runs `body` on the box of the function `context` belongs to, counted when `counted`, and reports what it
    /// throws to SQLite. Always inlined, with `counted` a constant: each trampoline is one function.
    @inline(__always)
    static func run(
        _ context: OpaquePointer?, counted: Bool, _ body: (FunctionBox, FunctionContext) throws -> Void
    ) {
        // SQLite calls a function with a non-NULL context, whose user data is the box the function was registered
        // with: never NULL, since every registration passes a retained box. `unsafelyUnwrapped` skips two checks per
        // call in release builds and still checks in debug builds.
        let context = context.unsafelyUnwrapped
        let userData = sqltk_sqlite3_user_data(context).unsafelyUnwrapped
        Unmanaged<FunctionBox>.fromOpaque(userData)._withUnsafeGuaranteedRef { box in
            let function = FunctionContext(rawValue: context)
            guard counted else {
                do {
                    try body(box, function)
                } catch {
                    reportError(error, to: function)
                }
                return
            }
            // The counting trampolines are registered only with a box that has a counter (see the `counter:` forms),
            // so its count is not tested for nil per call.
            let depth = box.depth.unsafelyUnwrapped
            // Wrapping: the count is bounded by the stack depth, so this only avoids a trap check.
            depth.pointee &+= 1
            do {
                try body(box, function)
            } catch {
                reportCountedError(error, of: box, to: function)
            }
            depth.pointee &-= 1
        }
    }

    /// Reports an error of a counted function as its counter maps it. Out of line: the trampolines stay small.
    @inline(never)
    static func reportCountedError(_ error: any Error, of box: FunctionBox, to function: FunctionContext) {
        reportError(box.counter.unsafelyUnwrapped.reportedError(error), to: function)
    }

    typealias Call = @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void
    typealias Result = @convention(c) (OpaquePointer?) -> Void

    static let call: Call = callBody
    static let countedCall: Call = countedCallBody
    static let final: Result = finalBody
    static let countedFinal: Result = countedFinalBody
    static let value: Result = valueBody
    static let countedValue: Result = countedValueBody
    static let inverse: Call = inverseBody
    static let countedInverse: Call = countedInverseBody
}

// The bodies of the trampolines: file-level functions, which a C function pointer can be formed from, always
// inlined into the C entry point that conversion makes, so SQLite calls the body with no Swift call in between.

@inline(__always)
private func callBody(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    FunctionTrampoline.run(context, counted: false) { box, function in
        try box.call(function, FunctionArguments(fromSQLite: count, values: values))
    }
}

@inline(__always)
private func countedCallBody(
    _ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?
) {
    FunctionTrampoline.run(context, counted: true) { box, function in
        try box.call(function, FunctionArguments(fromSQLite: count, values: values))
    }
}

@inline(__always)
private func finalBody(_ context: OpaquePointer?) {
    FunctionTrampoline.run(context, counted: false) { box, function in try box.final?(function) }
}

@inline(__always)
private func countedFinalBody(_ context: OpaquePointer?) {
    FunctionTrampoline.run(context, counted: true) { box, function in try box.final?(function) }
}

@inline(__always)
private func valueBody(_ context: OpaquePointer?) {
    FunctionTrampoline.run(context, counted: false) { box, function in try box.value?(function) }
}

@inline(__always)
private func countedValueBody(_ context: OpaquePointer?) {
    FunctionTrampoline.run(context, counted: true) { box, function in try box.value?(function) }
}

@inline(__always)
private func inverseBody(
    _ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?
) {
    FunctionTrampoline.run(context, counted: false) { box, function in
        try box.inverse?(function, FunctionArguments(fromSQLite: count, values: values))
    }
}

@inline(__always)
private func countedInverseBody(
    _ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?
) {
    FunctionTrampoline.run(context, counted: true) { box, function in
        try box.inverse?(function, FunctionArguments(fromSQLite: count, values: values))
    }
}

extension FunctionContext {
    /// The state of the aggregate evaluation (the group, the partition) this call belongs to, made by `initial` on
    /// the evaluation's first call: a pointer to a `State` kept in the evaluation's `sqlite3_aggregate_context`.
    /// `nil` when SQLite is out of memory.
    ///
    /// The state stays until ``takeAggregateState(_:)`` moves it out, which the function's final step must do
    /// (SQLite calls the final step exactly once per evaluation, also when the statement fails or is reset, and
    /// also when no step ran). Every call of one function must use the same `State` type.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/aggregate_context.html>
    @inlinable
    public func aggregateState<State>(
        _ type: State.Type = State.self, initial: () throws -> State
    ) rethrows -> UnsafeMutablePointer<State>? {
        guard let slot = aggregateContext(Int32(MemoryLayout<UnsafeMutablePointer<State>?>.size)) else { return nil }
        // The slot is zeroed on the evaluation's first call: a nil pointer.
        if let state = slot.load(as: UnsafeMutablePointer<State>?.self) { return state }
        let state = UnsafeMutablePointer<State>.allocate(capacity: 1)
        do {
            state.initialize(to: try initial())
        } catch {
            state.deallocate()
            throw error
        }
        slot.storeBytes(of: state, as: UnsafeMutablePointer<State>?.self)
        return state
    }

    /// The state made by ``aggregateState(_:initial:)`` for this call's evaluation, without making one: `nil` when
    /// no step ran (a window function's value over an empty frame).
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/aggregate_context.html>
    @inlinable
    public func existingAggregateState<State>(_ type: State.Type = State.self) -> UnsafeMutablePointer<State>? {
        guard let slot = aggregateContext(0) else { return nil }
        return slot.load(as: UnsafeMutablePointer<State>?.self)
    }

    /// Moves the state made by ``aggregateState(_:initial:)`` out of the evaluation and frees its memory; `nil`
    /// when no step ran (an aggregate over no rows). Call it from the final step.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/aggregate_context.html>
    @inlinable
    public func takeAggregateState<State>(_ type: State.Type = State.self) -> State? {
        guard let slot = aggregateContext(0), let state = slot.load(as: UnsafeMutablePointer<State>?.self) else {
            return nil
        }
        slot.storeBytes(of: nil, as: UnsafeMutablePointer<State>?.self)
        defer { state.deallocate() }
        return state.move()
    }

    /// A step (or inverse) of the context forms that runs `update` on the evaluation's state, made by `initial` on
    /// the first call; out of memory becomes the function's result. Inlinable, so it is specialized for `State`
    /// where the function is defined: a row costs no generic metadata lookup.
    @inlinable
    static func updatingAggregateState<State>(
        initial: @escaping () -> State, _ update: @escaping (inout State, FunctionArguments) throws -> Void
    ) -> (FunctionContext, FunctionArguments) throws -> Void {
        { context, arguments in
            guard let state = context.aggregateState(initial: initial) else {
                context.resultErrorNoMemory()
                return
            }
            try update(&state.pointee, arguments)
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
