/// The one way an `async` access of a queue or a pool reaches its connection: in place when it can, else on a
/// dispatch queue, with the awaiting task's cancellation connected to the access either way.
///
/// - In place: when ``InPlaceAccessGate`` admits one more in-place access, and `take` gets a
///   connection without waiting, the access runs at once on the awaiting task's thread, like any synchronous code
///   in an async function: no thread hand-off, about 30 µs fewer on a 2-core machine.
/// - Elsewhere: otherwise `elsewhere` starts the access on a dispatch queue of the queue or pool, which waits for
///   the connection there (never on a thread of Swift's cooperative pool) and calls the completion with the outcome.
///
/// Cancelling the task before the access starts keeps it from running (`CancellationError`); cancelling it while
/// the access runs interrupts the running statement (see ``AccessCancellation``).
enum AsyncHandOff {
    /// Runs one async access, in place when it can.
    ///
    /// - Parameters:
    ///   - take: takes a connection without waiting: `nil` when none is free. Throws what taking throws (re-entry,
    ///     use after close).
    ///   - cancellationFor: the cancellation record of an in-place access on what `take` returned.
    ///   - run: runs the access on what `take` returned, and gives it back, whatever happens.
    ///   - elsewhere: starts the access with a new cancellation record where it may wait, and calls the completion
    ///     once with its outcome.
    @inline(__always)
    static func perform<T: Sendable, Taken>(
        take: () throws -> Taken?,
        cancellationFor: (Taken) -> AccessCancellation,
        run: (Taken, AccessCancellation) throws -> T,
        elsewhere: (AccessCancellation, @escaping @Sendable (Result<T, any Error>) -> Void) -> Void
    ) async throws -> T {
        if Task.isCancelled { throw CancellationError() }
        let gate = InPlaceAccessGate.shared
        if gate.tryEnter() {
            defer { gate.leave() }
            if let taken = try take() {
                let cancellation = cancellationFor(taken)
                return try await withTaskCancellationHandler {
                    try run(taken, cancellation)
                } onCancel: {
                    cancellation.cancel()
                }
            }
        }
        return try await performElsewhere(elsewhere)
    }

    /// Runs one async access where `elsewhere` starts it, never in place: for a pool's writes, where long work goes
    /// (a migration, an import) and a commit waits for the disk.
    @inline(__always)
    static func performElsewhere<T: Sendable>(
        _ elsewhere: (AccessCancellation, @escaping @Sendable (Result<T, any Error>) -> Void) -> Void
    ) async throws -> T {
        if Task.isCancelled { throw CancellationError() }
        let cancellation = AccessCancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                elsewhere(cancellation) { continuation.resume(with: $0) }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }
}
