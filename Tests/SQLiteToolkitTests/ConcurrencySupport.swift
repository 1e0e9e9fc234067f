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
