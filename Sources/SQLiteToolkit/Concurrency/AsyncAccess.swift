/// The one way an `async` access of a queue or a pool reaches its connection: a read in place when it can, anything
/// else on a dispatch queue, with the awaiting task's cancellation connected to the access either way.
///
/// - In place (``perform(on:transaction:_:)``, reads only): when ``InPlaceAccessGate`` admits one more in-place
///   access, and the target gets a connection without waiting, the access runs at once on the awaiting task's
///   thread, like any synchronous code in an async function: no thread hand-off, about 30 µs fewer on a 2-core
///   machine.
/// - The rule for what may run in place: only an access that reads, and finds its connection free. An access that
///   may write (a queue's `write`, `inDatabase`, `transaction`, `savepoint`, every pool write) always runs elsewhere
///   (``performElsewhere(on:transaction:_:)``), since a write may wait for SQLite's write lock (the busy timeout,
///   5 s by default) or the write gate, and a commit waits for the disk: a wait that must not hold one of the few
///   threads of Swift's cooperative pool.
/// - Elsewhere: otherwise ``performElsewhere(_:_:)`` starts the access on a dispatch queue of the queue or pool,
///   which waits for the connection there (never on a thread of Swift's cooperative pool) and calls the completion
///   with the outcome.
///
/// The async accesses take their closure without `@escaping`, as the blocking ones do: an escaping closure that
/// captures anything is a heap allocation in the caller on every call (about 300 instructions with its release),
/// and an access in place never needs one. Only an access that runs elsewhere makes its closure escaping, for as
/// long as it is awaited (see ``EscapedBody``).
///
/// Cancelling the task before the access starts keeps it from running (`CancellationError`); cancelling it while
/// the access runs interrupts the running statement (see ``AccessCancellation``).
enum AsyncAccess {
    /// Runs one async access on `target`, in place when it can, in a transaction of `kind` when it is not `nil`.
    ///
    /// Inlined into each public access, so that an access in place is one async frame of the caller's, the
    /// cancellation handler's and its operation's: every further async function on the way costs a frame from the
    /// task's allocator and two executor checks (about 250 instructions).
    @inline(__always)
    static func perform<Target: AsyncAccessTarget, T: Sendable>(
        on target: Target,
        transaction kind: Database.TransactionKind?,
        _ body: @Sendable (Database) throws -> T
    ) async throws -> T {
        if Task.isCancelled { throw CancellationError() }
        let gate = InPlaceAccessGate.shared
        if gate.tryEnter() {
            defer { gate.leave() }
            if let taken = try target.takeInPlace() {
                // After `withTaskCancellationHandler` has returned, and so removed the handler: the next access on
                // this connection resets the same record, which a late cancellation of this task must not reach.
                defer { target.giveBackInPlace(taken) }
                let cancellation = target.inPlaceCancellation(for: taken)
                // A task cancelled before the handler is installed runs `onCancel` at once, which marks the record
                // cancelled, so `runInPlace` does not start the access.
                return try await withTaskCancellationHandler {
                    try target.runInPlace(taken, transaction: kind, cancellation: cancellation, body)
                } onCancel: {
                    cancellation.cancel()
                }
            }
        }
        return try await performElsewhere(body) { escaped, cancellation, completion in
            target.startElsewhere(transaction: kind, escaped, cancellation: cancellation, completion: completion)
        }
    }

    /// Runs one async access on `target`'s dispatch queue, never in place: for accesses that may write.
    static func performElsewhere<Target: AsyncAccessTarget, T: Sendable>(
        on target: Target,
        transaction kind: Database.TransactionKind?,
        _ body: @Sendable (Database) throws -> T
    ) async throws -> T {
        try await performElsewhere(body) { escaped, cancellation, completion in
            target.startElsewhere(transaction: kind, escaped, cancellation: cancellation, completion: completion)
        }
    }

    /// Runs one async access where `start` starts it, never in place: `start` gets the access's closure made
    /// escaping and a new cancellation record, starts the access on a dispatch queue, and calls the completion once
    /// with its outcome. For a pool's writes, where long work goes (a migration, an import) and a commit waits for
    /// the disk, and for any access that does not run in place.
    ///
    /// A cancellation that arrives before the access starts resumes the awaiting task at once with
    /// `CancellationError`, whether the access waits for its connection or a reader, or waits behind other accesses
    /// on a serial dispatch queue: the access never starts, and when its turn comes it only reports, to a completion
    /// that ignores it, that it did not.
    static func performElsewhere<T: Sendable>(
        _ body: @Sendable (Database) throws -> T,
        _ start: (EscapedBody<T>, AccessCancellation, @escaping @Sendable (Result<T, any Error>) -> Void) -> Void
    ) async throws -> T {
        if Task.isCancelled { throw CancellationError() }
        return try await withoutActuallyEscaping(body) { body in
            let escaped = EscapedBody(body)
            let cancellation = AccessCancellation()
            let completion = AccessCompletion<T>(releasing: escaped)
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    // A cancellation before this point left the outcome already: nothing to start then.
                    guard completion.setContinuation(continuation) else { return }
                    start(escaped, cancellation) { result in completion.complete(result) }
                }
            } onCancel: {
                if cancellation.cancel() { completion.complete(.failure(CancellationError())) }
            }
        }
    }
}

/// The one resumption of the task awaiting an access that runs elsewhere: by the access's completion, or, when the
/// task is cancelled before the access starts, by the cancellation, whichever comes first; the other is ignored.
/// Either may come before the continuation exists (a task cancelled as it suspends): the outcome then waits for it.
final class AccessCompletion<T: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `continuation`, `outcome` and `isDone` are read and written only while holding
    // `accessCompletionLock`; `escaped` is released once, by the first outcome.
    private static var lock: Lock { accessCompletionLock }
    private var continuation: CheckedContinuation<T, any Error>?
    private var outcome: Result<T, any Error>?
    private var isDone = false
    private let escaped: EscapedBody<T>

    init(releasing escaped: EscapedBody<T>) {
        self.escaped = escaped
    }

    /// Records the continuation; `false` when the outcome came first (the continuation is then resumed with it).
    func setContinuation(_ continuation: CheckedContinuation<T, any Error>) -> Bool {
        let early: Result<T, any Error>? = Self.lock.withLock {
            if let outcome { return outcome }
            self.continuation = continuation
            return nil
        }
        guard let early else { return true }
        continuation.resume(with: early)
        return false
    }

    /// Resumes the awaiting task with `result` (or leaves `result` for ``setContinuation(_:)``), unless an outcome
    /// came first.
    func complete(_ result: Result<T, any Error>) {
        let (isFirst, continuation): (Bool, CheckedContinuation<T, any Error>?) = Self.lock.withLock {
            guard !isDone else { return (false, nil) }
            isDone = true
            guard let continuation = self.continuation else {
                outcome = result
                return (true, nil)
            }
            self.continuation = nil
            return (true, continuation)
        }
        guard isFirst else { return }
        // Before the task resumes: once it does, `withoutActuallyEscaping` checks that nothing holds the closure. The
        // access has run it already, or will never run it (cancelled before it started).
        escaped.release()
        continuation?.resume(with: result)
    }
}

/// The lock of every ``AccessCompletion``: held for a few instructions, by accesses that run elsewhere only.
private let accessCompletionLock = Lock()

/// The closure of an async access that runs elsewhere, made escaping for as long as the access is awaited: the
/// dispatch queues' blocks hold this box, never the closure itself, and the completion empties the box before the
/// awaiting task resumes, so the closure does not outlive the call that lent it (which `withoutActuallyEscaping`
/// checks).
final class EscapedBody<T>: @unchecked Sendable {
    // @unchecked Sendable: `body` is set before the access is handed to a dispatch queue, and read and cleared only
    // by the block that runs the access (or reports that it could not start), one after the other, so no two
    // threads use it at once; the dispatch queues order the hand-offs.
    private var body: (@Sendable (Database) throws -> T)?

    init(_ body: @escaping @Sendable (Database) throws -> T) {
        self.body = body
    }

    /// Runs the closure.
    func run(_ db: Database) throws -> T {
        guard let body else {
            // Unreachable: the box is emptied only when the access has ended.
            throw DatabaseError.misuse("the access had ended", reason: .accessAfterClose)
        }
        return try body(db)
    }

    /// Lets go of the closure.
    func release() {
        body = nil
    }
}

/// A queue's connection, or a pool's readers, as ``AsyncAccess`` runs async accesses on them.
protocol AsyncAccessTarget: AnyObject, Sendable {
    /// What taking a connection in place gives: the connection, and what giving it back needs.
    associatedtype Taken

    /// Takes a connection without waiting: `nil` when none is free. Throws what taking throws (a re-entry, a use
    /// after close).
    func takeInPlace() throws -> Taken?

    /// The cancellation record of an in-place access on `taken`, reset for a new access.
    func inPlaceCancellation(for taken: Taken) -> AccessCancellation

    /// Runs `body` on `taken`, in a transaction of `kind` when it is not `nil` (a pool's reads always run in a
    /// deferred one), once `cancellation` has started (it does not start when the task was cancelled before). It
    /// keeps the connection: ``giveBackInPlace(_:)`` gives it back.
    func runInPlace<T>(
        _ taken: Taken,
        transaction kind: Database.TransactionKind?,
        cancellation: AccessCancellation,
        _ body: (Database) throws -> T
    ) throws -> T

    /// Gives back the connection of an access in place, whatever happened, once the access's cancellation handler
    /// is removed.
    func giveBackInPlace(_ taken: Taken)

    /// Starts the access on a dispatch queue, where it may wait for a connection, and calls `completion` once with
    /// its outcome.
    func startElsewhere<T: Sendable>(
        transaction kind: Database.TransactionKind?,
        _ body: EscapedBody<T>,
        cancellation: AccessCancellation,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    )
}
