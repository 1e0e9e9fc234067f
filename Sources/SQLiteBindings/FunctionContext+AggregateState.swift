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
