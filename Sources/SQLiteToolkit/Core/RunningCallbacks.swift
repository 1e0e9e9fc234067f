import SQLiteBindings

/// Counts the user closures of one connection that SQLite is running right now (a trace, a progress handler, a busy
/// handler, and later functions and hooks), so ``Database/close()`` can tell when it is called from inside one.
///
/// Every closure the toolkit hands to SQLite on behalf of a user is counted while it runs: through ``run(_:)``, or,
/// for custom functions, by the C trampoline (see below). While the count is not
/// zero a statement is inside `sqlite3_step` (or `sqlite3_prepare`) further up the stack, and finalizing it would
/// free memory SQLite is still using: `close()` then only retires the connection (every later use throws
/// ``DatabaseError/Reason/connectionClosed``) and the handles are released once the running statement returns.
///
/// The closures capture this object, not the ``Database``: the connection owns the closures (through SQLite's client
/// data), so capturing the connection would make a cycle.
///
/// Custom functions, aggregates and window functions are counted without a closure of their own: they are registered
/// with this scope's ``counter``, whose C trampoline adds one to ``depth`` around each call (the count the other
/// callbacks use). They do not release retired closures on entry as ``run(_:)`` does; the next
/// other callback, the next callback set from outside any callback, or closing the connection does. A function's
/// ``DatabaseError`` is reported to SQLite through the counter's error mapping (``FunctionFailures``), which keeps its
/// reason for the statement's error.
///
/// It also keeps the closures of the replaceable callbacks (trace, progress handler, busy handler) alive while they
/// run. Setting a new one releases the old one's box in SQLite's client data at once; when that happens from inside
/// a callback (a trace closure that sets another trace), the replaced closure may be the one running. ``keep(_:as:)``
/// holds every installed closure, and a closure replaced while any callback runs is retired: released only once no
/// callback runs any more.
@usableFromInline
final class RunningCallbacks {
    /// The callbacks a connection has one closure of at a time, replaced by setting another.
    enum Kind: Hashable {
        case trace
        case progressHandler
        case busyHandler
    }

    /// Whether the connection was closed from inside a callback and waits for the running statement: a busy
    /// handler then stops waiting, because nothing can use the lock it waits for.
    @exclusivity(unchecked) var isClosing = false
    /// The installed closure of each kind, held here as well as by SQLite's client data.
    @exclusivity(unchecked) private var installed: [Kind: Any] = [:]
    /// Closures replaced while a callback ran, released when the outermost one returns.
    @exclusivity(unchecked) @usableFromInline var retired: [Any] = []
    /// The counter custom functions are registered with: its C trampoline counts each call in ``depth``.
    @usableFromInline let counter: CallbackCounter
    /// The typed reasons of the errors custom functions reported to SQLite.
    private let functionFailures: FunctionFailures

    @usableFromInline
    init() {
        let failures = FunctionFailures()
        counter = CallbackCounter(reportingErrorsAs: failures.reportedError)
        functionFailures = failures
    }

    /// The number of user closures running now, nested or not.
    @inlinable
    var depth: Int {
        get { counter.depth }
        set { counter.depth = newValue }
    }

    /// Runs `body`, a user closure SQLite called back, counting it as running.
    @inlinable
    func run<R>(_ body: () throws -> R) rethrows -> R {
        if depth == 0 && !retired.isEmpty { releaseRetired() }
        depth += 1
        defer { depth -= 1 }
        return try body()
    }

    /// Releases the closures replaced while callbacks ran. Called only when no callback runs: at the start of the
    /// next outermost callback, when a callback is set from outside any callback, and when the connection closes.
    /// Not as the outermost callback returns: its closure, whose context the release may free, is still running
    /// then, between this scope and the C trampoline.
    @usableFromInline
    func releaseRetired() {
        // Moved out first: releasing a closure can run a `deinit` that sets another callback.
        let released = retired
        retired = []
        _ = released
    }

    /// Holds `closure` as the installed callback of `kind` (`nil` when it is removed), to be called before handing
    /// it to SQLite. The closure it replaces is released now when no callback runs, else retired: kept until no
    /// callback runs any more (see ``releaseRetired()``).
    func keep(_ closure: Any?, as kind: Kind) {
        if !isRunningCallback && !retired.isEmpty { releaseRetired() }
        let replaced: Any?
        if let closure {
            replaced = installed.updateValue(closure, forKey: kind)
        } else {
            replaced = installed.removeValue(forKey: kind)
        }
        if let replaced, isRunningCallback { retired.append(replaced) }
    }

    /// Releases every installed closure: the connection closed, and SQLite released its boxes.
    /// Whether a trace or progress handler is installed: a new connection to the file would not have it.
    var hasTraceOrProgressHandler: Bool {
        installed[.trace] != nil || installed[.progressHandler] != nil
    }

    func removeAll() {
        installed.removeAll()
        if !isRunningCallback { releaseRetired() }
    }

    /// Whether a user closure is running.
    @inlinable
    var isRunningCallback: Bool { depth > 0 }

    /// The typed reason of the function failure whose message is `message`, once; `nil` for any other error.
    func takeFailureReason(message: String?) -> DatabaseError.Reason? {
        functionFailures.take(message: message)
    }
}

/// The errors custom functions throw, as they are reported to SQLite: a ``DatabaseError`` gives its own message and
/// code (not its description, which repeats the code), and its reason is remembered for the statement's error.
/// Belongs to its connection's thread, like the scope that owns it.
final class FunctionFailures {
    /// The reason and message of the last typed toolkit error a function reported to SQLite.
    private var failure: (reason: DatabaseError.Reason, message: String)?

    /// The error to report to SQLite for `error`, thrown by a custom function.
    func reportedError(_ error: any Error) -> any Error {
        guard let error = error as? DatabaseError else { return error }
        if let reason = error.reason { failure = (reason, error.message) }
        return ReportedError(message: error.message, resultCode: error.extendedCode)
    }

    /// The reason of the failure whose message is `message`, once; `nil` for any other error.
    func take(message: String?) -> DatabaseError.Reason? {
        guard let failure else { return nil }
        self.failure = nil
        return failure.message == message ? failure.reason : nil
    }
}

/// A ``DatabaseError`` raised inside a function, as SQLite reports it: its message and its code.
struct ReportedError: ResultCodeError, CustomStringConvertible {
    let message: String
    let resultCode: ResultCode

    var description: String { message }
}

@available(*, unavailable, message: "a callback scope belongs to its connection's thread")
extension RunningCallbacks: Sendable {}
