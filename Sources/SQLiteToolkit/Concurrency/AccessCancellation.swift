#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Connects a task's cancellation to the access that runs for it: cancelled before the access starts, the access
/// does not run; cancelled while it runs, its running statement is interrupted.
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

    deinit {
        state.deallocate()
    }

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

    /// Called when the awaiting task is cancelled.
    func cancel() {
        while true {
            switch state.load() {
            case State.waiting:
                if state.compareExchange(expected: State.waiting, desired: State.cancelled) { return }
            case State.running:
                guard state.compareExchange(expected: State.running, desired: State.interrupting) else { continue }
                // sqlite3_interrupt is safe from any thread while the connection is open; the handle does nothing
                // after close.
                interruptHandle?.interrupt()
                state.store(State.cancelled)
                return
            default:
                return
            }
        }
    }
}
