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

    /// Whether the connections are open: not closed, and no close or reopen is under way.
    var isOpen: Bool { lock.withLock { state == .open } }

    /// The state now, for tests and diagnostics.
    var current: State { lock.withLock { state } }

    /// Closes with `perform` once, when open: waits for a close or reopen under way to end first, unless
    /// `insideAccess` (then returns at once). Closing a closed owner does nothing.
    func close(insideAccess: Bool, _ perform: () -> Void) {
        lock.lock()
        while true {
            switch state {
            case .closed:
                lock.unlock()
                return
            case .open:
                state = .closing
                lock.unlock()
                perform()
                end(in: .closed)
                return
            case .closing, .reopening:
                if insideAccess {
                    lock.unlock()
                    return
                }
                lock.wait()
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
                lock.wait()
            }
        }
    }

    private func end(in newState: State) {
        lock.lock()
        state = newState
        lock.broadcast()
        lock.unlock()
    }
}
