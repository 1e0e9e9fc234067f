import Foundation

/// Runs `body(index)` on `count` new threads that start together, and waits for all of them.
///
/// Threads of their own rather than `DispatchQueue.concurrentPerform`, so the workload does not depend on how many
/// worker threads Dispatch has at hand, and the one-thread case runs on a thread like the others.
public func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let ready = DispatchSemaphore(value: 0)
    let start = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    for index in 0..<count {
        Thread {
            ready.signal()
            start.wait()
            body(index)
            finished.signal()
        }.start()
    }
    for _ in 0..<count { ready.wait() }
    for _ in 0..<count { start.signal() }
    for _ in 0..<count { finished.wait() }
}

/// A meeting point of `count` threads: each ``arriveAndWait()`` returns once all of them arrived (or after 10 s). The
/// pool workloads' warm-up uses it inside a read on each of N threads, so N reader connections are open before
/// timing, as a running application would have them.
public final class Rendezvous: @unchecked Sendable {
    // @unchecked Sendable: `arrived` is read and written only while holding `condition`.
    private let condition = NSCondition()
    private var arrived = 0
    private let count: Int

    /// A meeting point of `count` threads.
    public init(count: Int) {
        self.count = count
    }

    /// Counts the calling thread in and waits for the others, at most 10 s.
    public func arriveAndWait() {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: 10)
        while arrived < count, condition.wait(until: deadline) {}
    }
}

/// The accesses of thread `thread` of `threads` sharing `accesses` accesses: every `threads`-th, from `thread`.
public func accessNumbers(thread: Int, of threads: Int, accesses: Int) -> StrideTo<Int> {
    stride(from: thread, to: accesses, by: threads)
}
