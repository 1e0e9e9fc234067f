#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Bounds how many async accesses of queues and pools run in place, on the awaiting task's own thread, at once in
/// the whole process: one fewer than the active cores.
///
/// Swift's cooperative pool has one thread per core. An async access that runs in place skips two thread hand-offs
/// (about 30 µs on a 2-core virtual machine, against about 0.5 µs of bookkeeping in place), but holds its thread for
/// as long as it runs. Unbounded, long accesses could hold every thread, and then no other task could run, not even
/// the ones that would cancel them: on a 2-core machine, two long reads did exactly that. With this bound at least
/// one thread always stays free. An access the gate does not admit moves to a dispatch queue, as an access that
/// must wait for its connection does.
final class InPlaceAccessGate: @unchecked Sendable {
    // @unchecked Sendable: `running` is an atomic word.
    /// The gate of the process.
    static let shared = InPlaceAccessGate(limit: ProcessInfo.processInfo.activeProcessorCount - 1)

    /// How many accesses may run in place at once; 0 (one core) means none.
    let limit: Int
    /// The accesses running in place now. Atomic rather than under a lock: every async access passes here, and a
    /// lock would make them wait for each other.
    private let running = AtomicWord(0)

    init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// Admits one more access when fewer than ``limit`` run in place; the caller calls ``leave()`` when it ends.
    @inline(__always)
    func tryEnter() -> Bool {
        var current = running.load()
        while current < limit {
            if running.compareExchange(expected: current, desired: current + 1) { return true }
            current = running.load()
        }
        return false
    }

    /// Ends an access that ``tryEnter()`` admitted.
    @inline(__always)
    func leave() {
        running.add(-1)
    }
}
