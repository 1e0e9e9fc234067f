#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension ClusterDatabase {
    /// When ``ClusterDatabase/retrying(_:_:)`` runs work again: the caller's choice, never the client's.
    public struct RetryPolicy: Sendable, Hashable {
        /// How many times the work runs at most (the first run included).
        public var maximumAttempts: Int
        /// The pause before the second run, in seconds; it doubles for each later one, up to ``maximumDelay``.
        public var initialDelay: Double
        /// The longest pause, in seconds.
        public var maximumDelay: Double
        /// Whether work that failed with ``ClusterError/Reason/outcomeUnknown(address:cause:)`` runs again. Set it only
        /// for work that is safe to apply twice (an `INSERT OR REPLACE` of a fixed row, an `UPDATE` to a fixed value) or
        /// that first checks whether its last run committed (a row keyed by a request identifier).
        public var retriesUnknownOutcome: Bool

        /// A policy; by default 5 runs over about 3 seconds, which covers one election of dqlite's default timeouts,
        /// and no run again after an unknown outcome.
        public init(
            maximumAttempts: Int = 5, initialDelay: Double = 0.2, maximumDelay: Double = 2,
            retriesUnknownOutcome: Bool = false
        ) {
            self.maximumAttempts = maximumAttempts
            self.initialDelay = initialDelay
            self.maximumDelay = maximumDelay
            self.retriesUnknownOutcome = retriesUnknownOutcome
        }
    }

    /// Runs `body`, and runs it again under `policy` while it throws a ``ClusterError`` that is
    /// ``ClusterError/isRetryable`` (the leader changed or could not be reached, and nothing was committed), or an
    /// unknown outcome when the policy says so. Any other error, and the last one, is rethrown.
    ///
    /// ```swift
    /// try cluster.retrying(.init()) {
    ///     try cluster.write { db in try db.execute("INSERT INTO event (id, kind) VALUES (?, ?)", eventID, "signup") }
    /// }
    /// ```
    ///
    /// The client never retries by itself: whether a statement may run twice is the caller's knowledge.
    ///
    /// - Throws: ``ClusterError/Reason/unsupportedArgument(_:)``, before running `body`, for a delay that is
    ///   negative, not finite, or longer than 4,000 seconds (a pause is one `usleep` of at most `UInt32.max`
    ///   microseconds).
    @discardableResult
    public func retrying<T>(_ policy: RetryPolicy, _ body: () throws -> T) throws -> T {
        for (name, value) in [("initialDelay", policy.initialDelay), ("maximumDelay", policy.maximumDelay)] {
            guard value.isFinite, value >= 0, value <= 4000 else {
                throw ClusterError(.unsupportedArgument("\(name) is \(value) s; it must be between 0 and 4000 s"))
            }
        }
        var attempt = 1
        var delay = policy.initialDelay
        while true {
            do {
                return try body()
            } catch let error as ClusterError {
                let again: Bool
                if case .outcomeUnknown = error.reason {
                    again = policy.retriesUnknownOutcome
                } else {
                    again = error.isRetryable
                }
                guard again, attempt < policy.maximumAttempts else { throw error }
                attempt += 1
                usleep(UInt32(clamping: Int((max(0, delay) * 1_000_000).rounded())))
                delay = min(delay * 2, policy.maximumDelay)
            }
        }
    }
}
