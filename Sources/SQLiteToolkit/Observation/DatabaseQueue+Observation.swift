extension DatabaseQueue {
    /// The values of `value`, a read of the database, now and again after every commit that changes a table it
    /// reads (or one of `tables`, when given), as an asynchronous sequence.
    ///
    /// ```swift
    /// let counts = queue.observe { db in
    ///     try db.queryValue("SELECT count(*) FROM player", as: Int.self) ?? 0
    /// }
    /// for try await count in counts {
    ///     print("players:", count)
    /// }
    /// ```
    ///
    /// The first value is read at once; then each commit of the queue's connection that changed a watched table is
    /// followed by a read, on the queue's connection, in a transaction of its own that starts right after that
    /// commit: every commit is seen, once, in order. Without `tables`, the watched tables are those the last read
    /// read (through views and subqueries too, as SQLite's authorizer reports them), so a query whose tables change
    /// from one run to the next is followed. A commit by another connection or process makes the query run again,
    /// whatever its tables, once the queue looks (see ``externalChangeDetection`` and <doc:SharingADatabase>).
    ///
    /// The sequence ends with the error of a read that throws, with ``DatabaseError/Reason/unknownTable(_:)`` at
    /// once when a name in `tables` is neither a table nor a view of the connection, and without error when the
    /// queue closes. Cancelling the task that iterates it, or dropping the sequence, ends the observation and
    /// releases `value`.
    ///
    /// - Parameters:
    ///   - tables: the tables whose changes make the query run again, compared without regard to ASCII case;
    ///     `nil` (the default) for the tables the query reads.
    ///   - bufferingPolicy: what the sequence keeps while its consumer is busy: by default the newest value only,
    ///     so that a slow consumer gets the latest state rather than a backlog; `.unbounded` keeps every value.
    ///   - value: the read; it runs on the queue's connection, alone.
    public func observe<Value: Sendable>(
        tables: Set<String>? = nil,
        bufferingPolicy: AsyncThrowingStream<Value, any Error>.Continuation.BufferingPolicy = .bufferingNewest(1),
        _ value: @escaping @Sendable (Database) throws -> Value
    ) -> AsyncThrowingStream<Value, any Error> {
        startObservation(tables: tables, bufferingPolicy: bufferingPolicy, isDuplicate: nil, value)
    }

    /// ``observe(tables:bufferingPolicy:_:)``, leaving out each value equal to the one before it when
    /// `removingDuplicates` is `true`: a commit that changed a watched table without changing the query's result
    /// yields nothing.
    public func observe<Value: Sendable & Equatable>(
        tables: Set<String>? = nil,
        removingDuplicates: Bool,
        bufferingPolicy: AsyncThrowingStream<Value, any Error>.Continuation.BufferingPolicy = .bufferingNewest(1),
        _ value: @escaping @Sendable (Database) throws -> Value
    ) -> AsyncThrowingStream<Value, any Error> {
        let equal: @Sendable (Value, Value) -> Bool = { $0 == $1 }
        return startObservation(
            tables: tables, bufferingPolicy: bufferingPolicy, isDuplicate: removingDuplicates ? equal : nil, value)
    }

    private func startObservation<Value: Sendable>(
        tables: Set<String>?,
        bufferingPolicy: AsyncThrowingStream<Value, any Error>.Continuation.BufferingPolicy,
        isDuplicate: (@Sendable (Value, Value) -> Bool)?,
        _ value: @escaping @Sendable (Database) throws -> Value
    ) -> AsyncThrowingStream<Value, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Value, any Error>.makeStream(bufferingPolicy: bufferingPolicy)
        let registration = ObservationRegistration()
        let serialized = self.serialized
        continuation.onTermination = { _ in
            guard let id = registration.end() else { return }
            serialized.dispatchQueue.async { _ = try? serialized.access { $0.removeTransactionObserver(id) } }
        }
        let query = ObservedQuery(
            region: ObservedRegion(tables: tables), value: value,
            sink: ObservationSink(continuation, isDuplicate: isDuplicate))
        // An access of its own, on the queue's dispatch queue, so that the caller never waits; the first value is
        // read in that same access, so that no commit falls between it and the observer.
        serialized.dispatchQueue.async {
            do {
                try serialized.access { db in
                    guard !registration.hasEnded else { return }
                    // Unowned: the connection keeps its observers, and calls them only while it is open. Without a
                    // table list the observer hears every commit, and the region decides. A named table that does
                    // not exist throws here.
                    if let tables { try db.checkTablesExist(tables) }
                    let id = try db.addTransactionObserverUnchecked(
                        tables: tables, includingRowChanges: false, wantsSchemaChanges: tables == nil
                    ) { [unowned db] changes in
                        guard let ticket = query.region.commitNeedsRun(changes, commitCount: db.observedCommitCount)
                        else { return }
                        query.sink.deliver(query.run(on: db, inStartedRead: false, ticket: ticket, decided: true))
                    }
                    guard registration.register(id) else { return db.removeTransactionObserver(id) }
                    let ticket = query.region.firstRun(commitCount: db.observedCommitCount)
                    query.sink.deliver(query.run(on: db, inStartedRead: false, ticket: ticket, decided: false))
                }
            } catch {
                continuation.finish(throwing: error)
            }
        }
        return stream
    }
}
