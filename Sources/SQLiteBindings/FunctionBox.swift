import CSQLiteToolkit

// Closure forms of custom SQL functions and collations. SQLite owns each box: it calls the `xDestroy` given to
// `sqlite3_create_function_v2`, `sqlite3_create_window_function` and `sqlite3_create_collation_v2` when the function
// or collation is replaced or removed and when the connection closes (see CallbackBox.swift). Nothing is allocated
// per call of a scalar function, nor per row of an aggregate after its first row.

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
enum FunctionTrampoline {
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
