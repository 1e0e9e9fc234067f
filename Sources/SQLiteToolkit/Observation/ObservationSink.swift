/// The end of an observed query's stream that the connection's transaction observer holds: it yields each value,
/// drops the ones equal to the last when asked to, and finishes the stream when it is released (the observer was
/// removed, or its connection closed), so that no consumer waits for values that will never come.
final class ObservationSink<Value: Sendable>: Sendable {
    // `last` is guarded by `lock` (a ``Lock``); the rest is immutable and Sendable.
    private let continuation: AsyncThrowingStream<Value, any Error>.Continuation
    private let isDuplicate: (@Sendable (Value, Value) -> Bool)?
    private let lock = Lock()
    private nonisolated(unsafe) var last: Value?

    init(
        _ continuation: AsyncThrowingStream<Value, any Error>.Continuation,
        isDuplicate: (@Sendable (Value, Value) -> Bool)?
    ) {
        self.continuation = continuation
        self.isDuplicate = isDuplicate
    }

    deinit {
        continuation.finish()
    }

    /// Yields a fetched value, or ends the stream with the fetch's error. Called in the order of the commits.
    func deliver(_ result: Result<Value, any Error>) {
        switch result {
        case .success(let value):
            let isNew = lock.withLock {
                if let last, let isDuplicate, isDuplicate(last, value) { return false }
                last = value
                return true
            }
            if isNew { continuation.yield(value) }
        case .failure(let error):
            continuation.finish(throwing: error)
        }
    }
}

/// The transaction observer of one observed query: set once registered, and whether the stream ended meanwhile, so
/// that a stream cancelled before its observer was registered removes it at once.
final class ObservationRegistration: Sendable {
    private let lock = Lock()
    // Guarded by `lock`.
    private nonisolated(unsafe) var id: TransactionObserverID?
    private nonisolated(unsafe) var isEnded = false

    /// Records the observer; `false` when the stream ended already, and the observer must be removed now.
    func register(_ id: TransactionObserverID) -> Bool {
        lock.withLock {
            if isEnded { return false }
            self.id = id
            return true
        }
    }

    /// Marks the stream ended; the observer to remove, if it was registered.
    func end() -> TransactionObserverID? {
        lock.withLock {
            isEnded = true
            defer { id = nil }
            return id
        }
    }

    /// Whether the stream ended.
    var hasEnded: Bool { lock.withLock { isEnded } }
}
