/// Counts the user closures of one connection that SQLite is running right now (a trace, a progress handler, a busy
/// handler, and later functions and hooks), so ``Database/close()`` can tell when it is called from inside one.
///
/// Every closure the toolkit hands to SQLite on behalf of a user runs through ``run(_:)``. While the count is not
/// zero a statement is inside `sqlite3_step` (or `sqlite3_prepare`) further up the stack, and finalizing it would
/// free memory SQLite is still using: `close()` then only retires the connection (every later use throws
/// ``DatabaseError/Reason/connectionClosed``) and the handles are released once the running statement returns.
///
/// The closures capture this object, not the ``Database``: the connection owns the closures (through SQLite's client
/// data), so capturing the connection would make a cycle.
@usableFromInline
final class CallbackScope {
    /// The number of user closures running, nested or not.
    @exclusivity(unchecked) @usableFromInline var depth = 0
    /// Whether the connection was closed from inside a callback and waits for the running statement: a busy
    /// handler then stops waiting, because nothing can use the lock it waits for.
    @exclusivity(unchecked) var isClosing = false

    /// Runs `body`, a user closure SQLite called back, counting it as running.
    @inlinable
    func run<R>(_ body: () throws -> R) rethrows -> R {
        depth += 1
        defer { depth -= 1 }
        return try body()
    }

    /// Whether a user closure is running.
    @inlinable
    var isRunningCallback: Bool { depth > 0 }
}

@available(*, unavailable, message: "a callback scope belongs to its connection's thread")
extension CallbackScope: Sendable {}
