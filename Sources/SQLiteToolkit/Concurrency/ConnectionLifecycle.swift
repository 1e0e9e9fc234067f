/// Whether a queue's or a pool's connections are open, and the one discipline by which ``close(insideAccess:_:)``
/// and ``reopen(_:)`` change that, for ``SerializedDatabase`` (a queue, a pool's writer) and ``DatabasePool`` alike.
///
/// The state is open, closing, closed or reopening, and changes only under `lock`. A close or a reopen marks the
/// transitional state, gives the lock back, does its work (which may wait for the accesses in progress), then takes
/// the lock again to mark the end state and wake every waiter. So:
/// - no thread ever holds `lock` while it waits for an access, and an access never needs `lock`: a close called
///   inside an access, while another thread's close waits for that very access, returns at once instead of waiting
///   for the lock the other holds (the two-closers deadlock);
/// - a close or reopen that finds the other under way waits for it to end, in `lock`'s condition variable, which
///   only lifecycle calls wait on and which is always broadcast, so no wake-up meant for one kind of waiter is taken
///   by another;
/// - inside an access, a close that finds a close or reopen under way returns at once: it cannot wait, since the
///   call under way may be waiting for this access, and it is ordered before that call (whose effect then stands).
final class ConnectionLifecycle: @unchecked Sendable {
    // @unchecked Sendable: `state` is read and written only while holding `lock`.
    enum State {
        case open, closing, closed, reopening
    }

    private let lock = Lock()
    private var state = State.open
    /// The closes and reopens waiting for another to end, for tests that need to know one waits.
    private var waiting = 0

    /// The number of closes and reopens waiting now for a close or reopen under way.
    var waitingCount: Int { lock.withLock { waiting } }

    /// Whether the connections are open: not closed, and no close or reopen is under way.
    var isOpen: Bool { lock.withLock { state == .open } }

    /// The state now, for tests and diagnostics.
    var current: State { lock.withLock { state } }

    /// What a close did: closed every connection, or left some to the accesses in progress, which close them
    /// when they end (a close inside an access).
    enum CloseOutcome {
        case closed
        /// The owner calls ``finishClosing()`` once the last connection is closed; until then the state is
        /// closing, and another close or a reopen waits for it.
        case closing
    }

    /// Closes with `perform` once, when open: waits for a close or reopen under way to end first, unless
    /// `insideAccess` (then returns at once). Closing a closed owner does nothing.
    func close(insideAccess: Bool, _ perform: () -> CloseOutcome) {
        lock.lock()
        while true {
            switch state {
            case .closed:
                lock.unlock()
                return
            case .open:
                state = .closing
                lock.unlock()
                if perform() == .closed { end(in: .closed) }
                return
            case .closing, .reopening:
                if insideAccess {
                    lock.unlock()
                    return
                }
                waitOnce()
            }
        }
    }

    /// Reopens with `perform` once, when closed: waits for a close or reopen under way to end first. Does nothing
    /// when open. When `perform` throws, the owner stays closed and the error is rethrown.
    func reopen(_ perform: () throws -> Void) throws {
        lock.lock()
        while true {
            switch state {
            case .open:
                lock.unlock()
                return
            case .closed:
                state = .reopening
                lock.unlock()
                do {
                    try perform()
                } catch {
                    end(in: .closed)
                    throw error
                }
                end(in: .open)
                return
            case .closing, .reopening:
                waitOnce()
            }
        }
    }

    /// One wait in the condition variable, counted. Called with `lock` held.
    private func waitOnce() {
        waiting += 1
        lock.wait()
        waiting -= 1
    }

    /// Ends a close that left connections to the accesses in progress (``CloseOutcome/closing``).
    func finishClosing() {
        end(in: .closed)
    }

    /// Waits while a close is under way.
    func waitWhileClosing() {
        lock.lock()
        while state == .closing { waitOnce() }
        lock.unlock()
    }

    private func end(in newState: State) {
        lock.lock()
        state = newState
        lock.broadcast()
        lock.unlock()
    }
}
