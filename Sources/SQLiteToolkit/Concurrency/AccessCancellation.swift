#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Connects a task's cancellation to the access that runs for it: cancelled before the access starts, the access
/// does not run; cancelled while it runs, its running statement is interrupted.
final class AccessCancellation: @unchecked Sendable {
    // @unchecked Sendable: `state` is read and written only while holding `lock`.
    private enum State {
        case waiting
        case running(InterruptHandle)
        case finished
        case cancelled
    }

    private let lock = Lock()
    private var state = State.waiting

    /// Makes the record ready for a new access that has taken its connection already, as running: one step where a
    /// new record's access calls ``start(_:)``. The caller checks for a cancellation that came before.
    func begin(_ interruptHandle: InterruptHandle) {
        lock.withLock { state = .running(interruptHandle) }
    }

    /// Makes the record ready for a new access that has not started yet: one step where a new record's access would
    /// allocate a record (and its lock). The caller holds what the record is for (a pool's reader), so no other
    /// access uses it meanwhile.
    func reset() {
        lock.withLock { state = .waiting }
    }

    /// Called when the access takes its connection: `false` when the task was cancelled already.
    func start(_ interruptHandle: InterruptHandle) -> Bool {
        lock.withLock {
            guard case .waiting = state else { return false }
            state = .running(interruptHandle)
            return true
        }
    }

    /// Called when the access's closure returns, before the connection is given back.
    func finish() {
        lock.withLock { state = .finished }
    }

    /// Called when the awaiting task is cancelled.
    func cancel() {
        lock.withLock {
            switch state {
            case .waiting:
                state = .cancelled
            case .running(let interruptHandle):
                // sqlite3_interrupt is safe from any thread while the connection is open; the handle does nothing
                // after close.
                interruptHandle.interrupt()
                state = .cancelled
            case .finished, .cancelled:
                break
            }
        }
    }
}
