import Foundation
import SQLiteToolkit
import Testing

/// A value shared between the threads of a test.
final class Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is read and written only while holding `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    var current: Value { withLock { $0 } }
}

/// Runs `body` on a new thread and waits for it at most `seconds`: `nil` when it did not finish in time, so a test
/// of something that could deadlock fails instead of hanging (the stuck thread is left behind).
func runOnThread<T: Sendable>(timeout seconds: Double, _ body: @escaping @Sendable () throws -> T) -> Result<
    T, any Error
>? {
    let result = Locked<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        let outcome = Result { try body() }
        result.withLock { $0 = outcome }
        done.signal()
    }
    thread.start()
    guard done.wait(timeout: .now() + seconds) == .success else { return nil }
    return result.current
}

/// Runs `body(index)` on `count` threads at once and waits for all of them.
func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    DispatchQueue.concurrentPerform(iterations: count, execute: body)
}

/// Waits for `semaphore` for at most `seconds`; `false` when it timed out.
func wait(_ semaphore: DispatchSemaphore, seconds: Double = 20) -> Bool {
    semaphore.wait(timeout: .now() + seconds) == .success
}

/// Waits for `semaphore` (at most 20 s) on a thread of its own, so that no thread of Swift's cooperative pool is
/// held waiting (on Linux, dispatch's global queues run on those same threads).
func waitOffCooperativePool(_ semaphore: DispatchSemaphore) async throws {
    let signalled = await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: semaphore.wait(timeout: .now() + 20) == .success) }.start()
    }
    try #require(signalled)
}

/// Starts `operation` in a new task that runs at once on the calling thread, up to its first suspension point. An
/// async access of a queue or pool settles before it suspends whether it runs at once: a read tries to take a reader
/// and, finding none free, hands itself to a dispatch queue to wait; a pool's write hands itself to the writer's
/// queue. So when this returns, an access that `operation` starts while the connection is held has been started,
/// and waits: it cannot have run yet. (Before the releases of Apple's systems that have `Task.immediate`, a plain
/// task, with no such promise.)
func startImmediately<T: Sendable>(_ operation: sending @escaping () async throws -> T) -> Task<T, any Error> {
    if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
        return Task.immediate(operation: operation)
    }
    return Task(operation: operation)
}

/// A handshake by probing: calls `probe` until it returns `true`, having seen the other side reach the point the test
/// waits for, or until `ended` is signalled first, the other side having finished without stopping there. Returns
/// whether the probe saw it; `ended` stays signalled for the caller's own wait.
func probeUntilReached(orEnded ended: DispatchSemaphore, _ probe: () throws -> Bool) rethrows -> Bool {
    while true {
        if ended.wait(timeout: .now()) == .success {
            ended.signal()
            return false
        }
        if try probe() { return true }
    }
}

/// Waits, yielding, until `condition` holds (at most 20 s); `false` when it never did.
func waitUntil(_ condition: () -> Bool) async -> Bool {
    // Dispatch's clock rather than ContinuousClock, which needs macOS 13.
    let deadline = DispatchTime.now() + .seconds(20)
    while !condition() {
        if DispatchTime.now() >= deadline { return false }
        await Task.yield()
    }
    return true
}

/// Runs a query that would take minutes, so that only an interrupt ends it, after setting `started` from a progress
/// handler inside the running statement: SQLite ignores an interrupt that arrives while no statement runs, so a test
/// of cancellation must not cancel before this.
func countToABillion(_ db: Database, signalling started: Locked<Bool>) throws -> Int? {
    try db.setProgressHandler(every: 1000) {
        started.withLock { $0 = true }
        return false
    }
    return try db.queryValue(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT count(*) FROM c",
        as: Int.self)
}

/// Waits until `started` is set (at most 60 s), cancels `task`, and returns the database error the task ended with.
/// Waits by sleeping, not by blocking a thread of the cooperative pool, which the task itself may need.
func cancelOnceStarted<T: Sendable>(_ task: Task<T, any Error>, _ started: Locked<Bool>) async throws -> DatabaseError {
    let deadline = DispatchTime.now() + 60
    while !started.current && DispatchTime.now() < deadline { try await Task.sleep(nanoseconds: 5_000_000) }
    #expect(started.current)
    task.cancel()
    let result = await task.result
    return try #require(throws: DatabaseError.self) { try result.get() }
}

/// Runs a blocking access on a thread of its own, holding its connection until the returned semaphore is signalled
/// (at most 60 s: long enough for a loaded machine that stalls the process for seconds at a time); returns once the
/// access runs. `access` runs the access and calls its argument inside it.
func holdAccess(_ access: @escaping @Sendable (_ inside: () -> Void) throws -> Void) async throws -> DispatchSemaphore {
    let inside = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    Thread {
        try? access {
            inside.signal()
            _ = release.wait(timeout: .now() + 60)
        }
    }.start()
    try await waitOffCooperativePool(inside)
    return release
}

/// Holds a reader of `pool` in a blocking read (see ``holdAccess(_:)``).
func holdReader(of pool: DatabasePool) async throws -> DispatchSemaphore {
    try await holdAccess { inside in try pool.read { _ in inside() } }
}
