import Foundation

/// Runs `operation` in a task and blocks the calling thread until it ends: the timed body of a workload is
/// synchronous, and the async workloads measure the awaits inside `operation`, not this one hop.
public func waitForTask(_ operation: @escaping @Sendable () async throws -> Int64) throws -> Int64 {
    let outcome = TaskOutcome()
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            outcome.set(.success(try await operation()))
        } catch {
            outcome.set(.failure(error))
        }
        done.signal()
    }
    done.wait()
    return try outcome.get()
}

/// The result of the task of ``waitForTask(_:)``.
final class TaskOutcome: @unchecked Sendable {
    // @unchecked Sendable: `result` is read and written only while holding `lock`.
    private let lock = NSLock()
    private var result: Result<Int64, any Error> = .failure(BenchmarkError("the task did not run"))

    func set(_ value: Result<Int64, any Error>) {
        lock.withLock { result = value }
    }

    func get() throws -> Int64 {
        try lock.withLock { result }.get()
    }
}

/// A sum that several threads add to.
public final class SharedSum: @unchecked Sendable {
    // @unchecked Sendable: `value` and `error` are read and written only while holding `lock`.
    private let lock = NSLock()
    private var value: Int64 = 0
    private var error: (any Error)?

    /// A sum of zero.
    public init() {}

    /// Adds `amount`.
    public func add(_ amount: Int64) {
        lock.withLock { value &+= amount }
    }

    /// Records the first error a thread met.
    public func fail(_ error: any Error) {
        lock.withLock { if self.error == nil { self.error = error } }
    }

    /// The sum, or the first error.
    public func get() throws -> Int64 {
        try lock.withLock {
            if let error { throw error }
            return value
        }
    }
}

/// A flag one thread sets and others read.
public final class StopFlag: @unchecked Sendable {
    // @unchecked Sendable: `isSet` is read and written only while holding `lock`.
    private let lock = NSLock()
    private var value = false

    /// A flag not set.
    public init() {}

    /// Sets the flag.
    public func set() {
        lock.withLock { value = true }
    }

    /// Whether the flag is set.
    public var isSet: Bool { lock.withLock { value } }
}
