#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Connects a task's cancellation to the access that runs for it: cancelled before the access starts, the access
/// does not run (and a wait for a connection or a reader registered with ``waitingBegins(on:)`` is woken, so it ends
/// at once); cancelled while it runs, its running statement is interrupted.
///
/// The state is one atomic word rather than a value under a lock: every async access passes through ``start(_:)``
/// and ``finish()``, and a lock there cost two lock-and-unlock pairs per access (about 190 instructions, against
/// two compare-and-exchange instructions now).
final class AccessCancellation: @unchecked Sendable {
    // @unchecked Sendable: `state` is atomic. `interruptHandle` is written only by the access, before the store
    // that makes the state `running`, and read only by `cancel()` after it has seen `running` and made it
    // `interrupting`, which the access waits out before it ends, so the two never touch it at once.
    private enum State {
        /// The access has not started yet.
        static let waiting = 0
        /// The access runs with `interruptHandle`.
        static let running = 1
        /// `cancel()` is interrupting the running access; the access waits for it to end before it gives its
        /// connection back, so that the interruption never reaches the connection's next access.
        static let interrupting = 2
        /// The access has ended.
        static let finished = 3
        /// The task was cancelled: the access does not start, or was interrupted.
        static let cancelled = 4
    }

    private let state = AtomicWord(State.waiting)
    private var interruptHandle: InterruptHandle?
    /// The lock whose condition variable the access waits in for a connection or a reader, while it waits; read and
    /// written under ``registrations``.
    private var waitingOn: Lock?
    /// Guards every record's ``waitingOn``: one lock for all, taken only by an access that must wait and by
    /// ``cancel()``, never on the path of an access that finds its connection free.
    private static let registrations = Lock()

    /// Makes the record ready for a new access that has not started yet: one store where a new record would cost an
    /// allocation. The caller holds what the record is for (a reader, a connection), so no other access uses it
    /// meanwhile, and no cancellation handler of an earlier access runs any more.
    @inline(__always)
    func reset() {
        state.store(State.waiting)
    }

    /// Called when the access takes its connection: `false` when the task was cancelled already.
    @inline(__always)
    func start(_ interruptHandle: InterruptHandle) -> Bool {
        // An in-place record gets the same handle on every access: no store, so no retain and release.
        if self.interruptHandle !== interruptHandle { self.interruptHandle = interruptHandle }
        return state.compareExchange(expected: State.waiting, desired: State.running)
    }

    /// Called when the access's closure returns, before the connection is given back: from then on a cancellation
    /// interrupts nothing.
    @inline(__always)
    func finish() {
        if state.compareExchange(expected: State.running, desired: State.finished) { return }
        finishAfterCancellation()
    }

    /// ``finish()`` when the state was not `running`: waits for an interruption in progress to end.
    private func finishAfterCancellation() {
        while state.load() == State.interrupting {
            // The interruption is one short call (`sqlite3_interrupt` under the handle's lock).
            yieldThread()
        }
    }

    /// Whether the task was cancelled before the access started: the access does not start.
    var isCancelled: Bool { state.load() == State.cancelled }

    /// Called by an access about to wait in `lock`'s condition variable, holding `lock`: from now until
    /// ``waitingEnds()``, a cancellation broadcasts it, so the waiting loop, which checks ``isCancelled`` before each
    /// wait, ends. The canceller reads the registration, gives ``registrations`` back, then takes `lock` (which the
    /// waiter holds from its check until its wait), so either the waiter sees the cancellation or the broadcast
    /// reaches it, and the two locks are never held together in opposite orders.
    func waitingBegins(on lock: Lock) {
        Self.registrations.withLock { waitingOn = lock }
    }

    /// Ends what ``waitingBegins(on:)`` began.
    func waitingEnds() {
        Self.registrations.withLock { waitingOn = nil }
    }

    /// Called when the awaiting task is cancelled. Returns `true` when the access had not started, and now never
    /// will: the caller may then resume the awaiting task at once.
    @discardableResult
    func cancel() -> Bool {
        while true {
            switch state.load() {
            case State.waiting:
                if state.compareExchange(expected: State.waiting, desired: State.cancelled) {
                    if let lock = Self.registrations.withLock({ waitingOn }) { lock.withLock { lock.broadcast() } }
                    return true
                }
            case State.running:
                guard state.compareExchange(expected: State.running, desired: State.interrupting) else { continue }
                // sqlite3_interrupt is safe from any thread while the connection is open; the handle does nothing
                // after close.
                interruptHandle?.interrupt()
                state.store(State.cancelled)
                return false
            default:
                return false
            }
        }
    }
}
