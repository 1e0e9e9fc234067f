import SQLiteBindings

/// What a connection knows about its custom SQL functions, collations and tokenizers while they run: they run in the
/// connection's ``CallbackScope`` (so ``Database/close()`` called from one waits for the statement that called it),
/// and the typed reason of the last one that failed is kept for the statement's error.
///
/// The boxes of the functions keep this object, not the connection, so a function that outlives its `Database` (a
/// statement prepared through `handle` keeps the connection alive) stays safe.
@usableFromInline
final class FunctionCallState {
    /// The connection's count of running user closures.
    @usableFromInline let scope: CallbackScope
    // A connection and its functions are confined to one thread at a time, like `Database` itself.
    /// The reason and message of the last typed toolkit error a function reported to SQLite.
    @exclusivity(unchecked) private var failure: (reason: DatabaseError.Reason, message: String)?

    @usableFromInline
    init(scope: CallbackScope) {
        self.scope = scope
    }

    /// Runs one call of a function in the connection's callback scope, and remembers the reason of a
    /// ``DatabaseError`` it throws so the statement's error carries it too.
    @inlinable
    func run<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try scope.run(body)
        } catch {
            throw reported(error)
        }
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
