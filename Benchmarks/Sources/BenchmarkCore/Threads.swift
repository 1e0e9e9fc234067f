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

/// Runs accesses `0 ..< accesses` on `threads` threads started together, thread `t` taking every `threads`-th from
/// `t` (`access(number, t)`), and returns the sum of what they returned, or the first error.
public func sumOnThreads(
    _ threads: Int,
    accesses: Int,
    _ access: @escaping @Sendable (_ number: Int, _ thread: Int) throws -> Int64
) throws -> Int64 {
    let sum = SharedSum()
    runOnThreads(threads) { thread in
        do {
            var partial: Int64 = 0
            for number in stride(from: thread, to: accesses, by: threads) { partial &+= try access(number, thread) }
            sum.add(partial)
        } catch {
            sum.fail(error)
        }
    }
    return try sum.get()
}
