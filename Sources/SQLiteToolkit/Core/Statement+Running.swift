import SQLiteBindings

// Binding arguments, stepping and running a statement.

extension Statement {
    /// The SQL with the bound values in place of the parameters, for logs (`sqlite3_expanded_sql`); `nil` once
    /// the statement is finalized.
    public var expandedSQL: String? { isFinalized ? nil : handle.expandedSQL() }

    /// The current row, after ``step()`` returned `true`; valid until the next step or reset.
    ///
    /// A `while try statement.step()` loop that reads `statement.currentRow` is the cheapest way through rows: a
    /// ``Rows`` cursor's rows each retain the statement, so that a row kept past its cursor stays safe to read.
    @inlinable
    public var currentRow: Row { Row(statement: self) }

    /// Binds `arguments`, one per parameter in order; throws before binding anything when the counts differ.
    @inlinable
    ///
    /// Calls with up to 12 arguments resolve to fixed-arity overloads (`Statement+ArgumentOverloads.swift`), which
    /// behave the same and bind each value through its own type; this pack form binds longer lists.
    public func bind<each Value: DatabaseValueConvertible>(_ arguments: repeat each Value) throws {
        try beginBinding(argumentCount: Statement.count(repeat (each Value).self))
        var index: Int32 = 1
        // A `repeat` expression rather than a `for` loop over the pack: the loop copies each value through its
        // value witnesses before binding it; the expression passes it borrowed.
        repeat try bindArgument(each arguments, at: &index)
    }

    /// Checks that the statement is usable and has `count` parameters, before binding `count` positional arguments.
    @inlinable
    func beginBinding(argumentCount count: Int32) throws {
        try checkUsable()
        guard count == parameterCount else { throw argumentCountError(given: Int(count)) }
        checksColumnsAfterStep = true
    }

    /// Checks that the statement is usable, before binding named arguments; returns the parameters' names without
    /// their prefix.
    @inlinable
    func beginNamedBinding() throws -> [String?] {
        try checkUsable()
        checksColumnsAfterStep = true
        return parameterNamesWithoutPrefix()
    }

    /// The number of types in a pack, counted without touching any value.
    @inlinable
    static func count<each Value>(_ types: repeat (each Value).Type) -> Int32 {
        var count: Int32 = 0
        for _ in repeat each types { count += 1 }
        return count
    }

    /// Binds one argument of a pack at `index`, and moves `index` on.
    @inlinable @inline(__always)
    func bindArgument<Value: DatabaseValueConvertible>(_ value: Value, at index: inout Int32) throws {
        try value.bind(to: self, at: index)
        index += 1
    }

    /// Binds one `(name, value)` pair at `position` (0-based) while every pair so far named the parameter at its
    /// position; clears `inOrder` at the first that does not, after which nothing more is bound here.
    @inlinable @inline(__always)
    func bindPairInOrder<Value: DatabaseValueConvertible>(
        _ pair: (String, Value), names: [String?], position: inout Int, inOrder: inout Bool
    ) throws {
        if inOrder {
            inOrder = position < names.count && Statement.parameterName(names[position], matches: pair.0)
            if inOrder { try pair.1.bind(to: self, at: Int32(truncatingIfNeeded: position + 1)) }
        }
        position += 1
    }

    /// The error of a positional argument count that differs from the parameter count.
    @usableFromInline
    func argumentCountError(given: Int) -> DatabaseError {
        DatabaseError.misuse(
            "the statement expects \(parameterCount) arguments, \(given) were given",
            sql: sql,
            reason: .argumentMismatch(expected: Int(parameterCount), given: given)
        )
    }

    /// Binds named arguments given as `(name, value)` pairs, without building a dictionary: the fast way to bind
    /// `:name` parameters in a loop. Names may be written with or without their `:`, `@` or `$` prefix.
    ///
    /// ```swift
    /// let insert = try db.prepare("INSERT INTO player (name, score) VALUES (:name, :score)")
    /// for player in players {
    ///     try insert.execute(named: ("name", player.name), ("score", player.score))
    /// }
    /// ```
    ///
    /// Pairs given in the order of the parameters (the usual case) are matched by comparing each name with the
    /// parameter at its position, once per call, with no hashing; pairs in any other order are matched by name
    /// through ``StatementArguments``. Any mismatch — a missing, unknown or repeated name — throws before anything
    /// runs, with the same reasons as a dictionary.
    @inlinable
    public func bind<First: DatabaseValueConvertible, each Value: DatabaseValueConvertible>(
        named first: (String, First),
        _ rest: repeat (String, each Value)
    ) throws {
        let names = try beginNamedBinding()
        // One pass over the pairs, each compared with the parameter at its position and bound at once: every pass
        // over a pack of tuples looks up each tuple's type metadata and copies the tuple.
        var inOrder = !names.isEmpty && Statement.parameterName(names[0], matches: first.0)
        if inOrder { try first.1.bind(to: self, at: 1) }
        var position = 1
        repeat try bindPairInOrder(each rest, names: names, position: &position, inOrder: &inOrder)
        guard inOrder, position == names.count else { return try bindNamedByName(first, repeat each rest) }
    }

    /// Binds `(name, value)` pairs that are not in the order of the parameters, matching them by name, or reports
    /// why they do not match. Nothing stays bound from an attempt in order: the dictionary binds every parameter,
    /// or clears them all and throws.
    @usableFromInline
    func bindNamedByName<First: DatabaseValueConvertible, each Value: DatabaseValueConvertible>(
        _ first: (String, First),
        _ rest: repeat (String, each Value)
    ) throws {
        _ = handle.clearBindings()
        var dictionary: [String: (any DatabaseValueConvertible)?] = [first.0: first.1]
        var repeated: String?
        for (name, value) in repeat each rest {
            if dictionary.updateValue(value, forKey: name) != nil { repeated = name }
        }
        try bindNamed(dictionary, repeated: repeated)
    }

    /// Binds named arguments given out of order, or reports why they do not match.
    @usableFromInline
    func bindNamed(_ dictionary: [String: (any DatabaseValueConvertible)?], repeated: String?) throws {
        if let repeated {
            throw DatabaseError.misuse(
                "the argument \"\(repeated)\" is given twice", sql: sql, reason: .duplicateArgumentName(repeated))
        }
        try StatementArguments(dictionary).bind(to: self)
    }

    /// Whether `name`, with or without its prefix, names the parameter whose name without prefix is `bare`.
    @inlinable
    static func parameterName(_ bare: String?, matches name: String) -> Bool {
        guard let bare else { return false }
        if name == bare { return true }
        guard let first = name.utf8.first,
            first == UInt8(ascii: ":") || first == UInt8(ascii: "@") || first == UInt8(ascii: "$")
        else { return false }
        return name.utf8.dropFirst().elementsEqual(bare.utf8)
    }

    /// Binds named arguments given as `(name, value)` pairs (see ``bind(named:_:)``), runs the statement to
    /// completion and resets it.
    @inlinable
    public func execute<First: DatabaseValueConvertible, each Value: DatabaseValueConvertible>(
        named first: (String, First),
        _ rest: repeat (String, each Value)
    ) throws {
        try bind(named: first, repeat each rest)
        try run()
    }

    /// Binds positional or named arguments; throws before binding anything when they do not match the parameters.
    public func bind(_ arguments: StatementArguments) throws {
        try checkUsable()
        checksColumnsAfterStep = true
        try arguments.bind(to: self)
    }

    /// Runs one step: `true` when a row is available, `false` when the statement is done.
    @inlinable
    @discardableResult
    public func step() throws -> Bool {
        // Small enough to inline into the caller's loop: a row is the common case; the end and errors are out of
        // line.
        try checkUsable()
        let code = handle.step()
        checkColumnsAfterFirstStep()
        if code == .row { return true }
        return try stepEnded(code)
    }

    /// ``step()`` after a step that gave no row: `false` at the end, else the step's error.
    @usableFromInline
    func stepEnded(_ code: ResultCode) throws -> Bool {
        checksColumnsAfterStep = true
        guard code == .done else {
            let error = database.error(code, sql: sql)
            tellObservers(succeeded: false)
            throw error
        }
        tellObservers(succeeded: true)
        if isFinalized { database.finishDeferredClose() }
        return false
    }

    /// Tells the connection's transaction observers, if any, that the statement ended (see
    /// TransactionObservationBroker.swift): one load when there are none.
    @inlinable @inline(__always)
    func tellObservers(succeeded: Bool) {
        guard observation.isActive else { return }
        // Guaranteed, not retained: the statement holds the broker for as long as this call runs.
        Unmanaged.passUnretained(observation)._withUnsafeGuaranteedRef { $0.statementEnded(self, succeeded: succeeded) }
    }

    /// Resets the statement so it can run again; bindings are kept.
    ///
    /// `sqlite3_reset` returns the error of the last step again when that step failed; ``step()`` has thrown it
    /// already, so it is not thrown a second time here: `reset()` only throws for a finalized statement.
    public func reset() throws {
        try checkUsable()
        checksColumnsAfterStep = true
        // Only a run still under way ends here (a write with `RETURNING` commits when it is reset before its last
        // row): a run that reached its end, or failed, was reported by its step, and a statement reset already
        // did nothing since.
        let endsRun = observation.isActive && handle.isBusy()
        _ = handle.reset()
        if endsRun { tellObservers(succeeded: true) }
    }

    /// Sets every parameter back to NULL.
    public func clearBindings() throws {
        try checkUsable()
        _ = handle.clearBindings()
    }

    /// Binds `arguments`, runs the statement to completion (rows are discarded), and resets it.
    @inlinable
    public func execute<each Value: DatabaseValueConvertible>(_ arguments: repeat each Value) throws {
        try bind(repeat each arguments)
        try run()
    }

    /// Binds `arguments`, runs the statement to completion (rows are discarded), and resets it.
    public func execute(arguments: StatementArguments) throws {
        try bind(arguments)
        try run()
    }

    /// Steps to completion and resets, leaving no lock behind even on error.
    @inlinable
    func run() throws {
        try checkUsable()
        guard !hasOpenCursor else { throw inUseError() }
        var code = handle.step()
        while code == .row { code = handle.step() }
        if code != .done { try runFailed(code) }
        _ = handle.reset()
        tellObservers(succeeded: true)
        // A callback may have closed the connection while the statement ran: release it now that it returned.
        if isFinalized { database.finishDeferredClose() }
    }

    /// The end of ``run()`` after a failed step: resets, tells the observers, and throws the step's error, made
    /// first (an observer may run SQL, which would replace the connection's error message).
    @usableFromInline
    func runFailed(_ code: ResultCode) throws {
        let error = database.error(code, sql: sql)
        _ = handle.reset()
        tellObservers(succeeded: false)
        if isFinalized { database.finishDeferredClose() }
        throw error
    }

    @usableFromInline
    func inUseError() -> DatabaseError {
        DatabaseError.misuse("the statement is being read by an open cursor", sql: sql, reason: .statementInUse)
    }

    /// Binds `arguments` and returns a cursor over the rows.
    @inlinable
    public func query<each Value: DatabaseValueConvertible>(
        _ arguments: repeat each Value
    ) throws -> Rows {
        try bind(repeat each arguments)
        return try Rows(statement: self, returnsToCache: false)
    }

    /// Binds `arguments` and returns a cursor over the rows.
    public func query(arguments: StatementArguments) throws -> Rows {
        try bind(arguments)
        return try Rows(statement: self, returnsToCache: false)
    }
}
