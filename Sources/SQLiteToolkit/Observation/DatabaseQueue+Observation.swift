extension DatabaseQueue {
    /// The values of `value`, a read of the database, now and again after every commit that changes one of
    /// `tables` (any table when `nil`), as an asynchronous sequence.
    ///
    /// ```swift
    /// let counts = queue.observe(tables: ["player"]) { db in
    ///     try db.queryValue("SELECT count(*) FROM player", as: Int.self) ?? 0
    /// }
    /// for try await count in counts {
    ///     print("players:", count)
    /// }
    /// ```
    ///
    /// The first value is read at once; then each commit of the queue's connection that changed a watched table is
    /// followed by a read, on the queue's connection, in a transaction of its own that starts right after that
    /// commit: every commit is seen, once, in order. A commit by another connection or process is not seen (see
    /// <doc:ObservingChanges>). The sequence ends with the error of a read that throws, and without error when the
    /// queue closes. Cancelling the task that iterates it, or dropping the sequence, ends the observation and
    /// releases `value`.
    ///
    /// - Parameters:
    ///   - tables: the tables whose changes make the query run again; `nil` for every table. Names are compared
    ///     without regard to ASCII case.
    ///   - value: the read; it runs on the queue's connection, alone.
    public func observe<Value: Sendable>(
        tables: Set<String>?,
        _ value: @escaping @Sendable (Database) throws -> Value
    ) -> AsyncThrowingStream<Value, any Error> {
        startObservation(tables: tables, isDuplicate: nil, value)
    }

    /// ``observe(tables:_:)``, leaving out each value equal to the one before it when `removingDuplicates` is
    /// `true`: a commit that changed a watched table without changing the query's result yields nothing.
    public func observe<Value: Sendable & Equatable>(
        tables: Set<String>?,
        removingDuplicates: Bool,
        _ value: @escaping @Sendable (Database) throws -> Value
    ) -> AsyncThrowingStream<Value, any Error> {
        let equal: @Sendable (Value, Value) -> Bool = { $0 == $1 }
        return startObservation(tables: tables, isDuplicate: removingDuplicates ? equal : nil, value)
    }

    private func startObservation<Value: Sendable>(
        tables: Set<String>?,
        isDuplicate: (@Sendable (Value, Value) -> Bool)?,
        _ value: @escaping @Sendable (Database) throws -> Value
    ) -> AsyncThrowingStream<Value, any Error> {
        let read: @Sendable (Database, ObservationSink<Value>) -> Void = { db, sink in
            sink.deliver(Result { try db.transaction(.deferred) { try value($0) } })
        }
        return serialized.startObservation(tables: tables, isDuplicate: isDuplicate, first: read, afterCommit: read)
    }
}

extension SerializedDatabase {
    /// An observed query's stream on this connection: registers a transaction observer of `tables` in an access
    /// of its own (on ``dispatchQueue``, so that the caller never waits), calls `first` in that same access, so that
    /// no commit falls between the first value and the observer, then `afterCommit` after each commit the observer
    /// hears of. Ending the stream removes the observer; closing the connection releases it, which finishes the
    /// stream.
    func startObservation<Value: Sendable>(
        tables: Set<String>?,
        isDuplicate: (@Sendable (Value, Value) -> Bool)?,
        first: @escaping @Sendable (Database, ObservationSink<Value>) -> Void,
        afterCommit: @escaping @Sendable (Database, ObservationSink<Value>) -> Void
    ) -> AsyncThrowingStream<Value, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Value, any Error>.makeStream()
        let registration = ObservationRegistration()
        continuation.onTermination = { _ in
            guard let id = registration.end() else { return }
            self.dispatchQueue.async { _ = try? self.access { $0.removeTransactionObserver(id) } }
        }
        let sink = ObservationSink(continuation, isDuplicate: isDuplicate)
        dispatchQueue.async {
            do {
                try self.access { db in
                    guard !registration.hasEnded else { return }
                    // Unowned: the connection keeps its observers, and calls them only while it is open.
                    let id = try db.addTransactionObserver(tables: tables, includingRowChanges: false) {
                        [unowned db] _ in afterCommit(db, sink)
                    }
                    guard registration.register(id) else { return db.removeTransactionObserver(id) }
                    first(db, sink)
                }
            } catch {
                continuation.finish(throwing: error)
            }
        }
        return stream
    }
}
