import SQLiteBindings

/// What a connection knows about its custom SQL functions and collations while they run: how deeply they are
/// nested, whether one asked to close the connection, and the typed reason of the last one that failed.
///
/// Closing a connection from inside one of its functions would finalize the statement that is calling the function,
/// freeing it under SQLite. ``Database/close()`` asks ``refusesClose()`` first: inside a function it leaves the
/// connection open, and when the function returns its call fails with ``DatabaseError/Reason/closeInsideFunction``,
/// which the statement then throws. The boxes of the functions keep this object, not the connection, so a function
/// that outlives its `Database` (a statement prepared through `handle` keeps the connection alive) stays safe.
@usableFromInline
final class FunctionCallState {
    // A connection and its functions are confined to one thread at a time, like `Database` itself.
    /// How many of the connection's functions and collations are running (nested calls count each).
    @exclusivity(unchecked) @usableFromInline var depth = 0
    /// Whether ``Database/close()`` was called, and refused, inside a running function.
    @exclusivity(unchecked) @usableFromInline var closeRequested = false
    /// The reason and message of the last typed toolkit error a function reported to SQLite.
    @exclusivity(unchecked) private var failure: (reason: DatabaseError.Reason, message: String)?

    @usableFromInline
    init() {}

    /// Whether the connection must not close now; records the request so the running function fails.
    func refusesClose() -> Bool {
        guard depth > 0 else { return false }
        closeRequested = true
        return true
    }

    /// Runs one call of a function: counts it as running, turns a refused close into an error, and remembers the
    /// reason of a ``DatabaseError`` it throws so the statement's error carries it too.
    @inlinable
    func run<Result>(_ body: () throws -> Result) throws -> Result {
        depth += 1
        defer { depth -= 1 }
        do {
            let result = try body()
            if closeRequested { try refuseClose() }
            return result
        } catch {
            if closeRequested { try refuseClose() }
            throw reported(error)
        }
    }

    /// Throws the error of a refused close, once.
    @usableFromInline
    func refuseClose() throws {
        closeRequested = false
        let error = DatabaseError.misuse(
            "a connection cannot be closed from inside one of its own SQL functions; close it after the statement",
            reason: .closeInsideFunction
        )
        throw reported(error)
    }

    /// The error to report to SQLite for `error`: a ``DatabaseError`` gives its own message and code (not its
    /// description, which repeats the code), and its reason is remembered for the statement's error.
    @usableFromInline
    func reported(_ error: any Error) -> any Error {
        guard let error = error as? DatabaseError else { return error }
        if let reason = error.reason { failure = (reason, error.message) }
        return ReportedError(message: error.message, resultCode: error.extendedCode)
    }

    /// The typed reason of the function failure whose message is `message`, once; `nil` for any other error.
    func takeFailureReason(message: String?) -> DatabaseError.Reason? {
        guard let failure else { return nil }
        self.failure = nil
        return failure.message == message ? failure.reason : nil
    }
}

/// A ``DatabaseError`` raised inside a function, as SQLite reports it: its message and its code.
@usableFromInline
struct ReportedError: ResultCodeError, CustomStringConvertible {
    @usableFromInline let message: String
    @usableFromInline let resultCode: ResultCode

    @usableFromInline
    init(message: String, resultCode: ResultCode) {
        self.message = message
        self.resultCode = resultCode
    }

    @usableFromInline
    var description: String { message }
}
