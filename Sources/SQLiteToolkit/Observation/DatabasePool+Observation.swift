// DispatchQueue: Dispatch is its own module (Foundation only re-exports it).
import Dispatch

extension DatabasePool {
    /// The values of `value`, a read of the database, now and again after every commit that changes a table it
    /// reads (or one of `tables`, when given), as an asynchronous sequence.
    ///
    /// ```swift
    /// let names = pool.observe { db in
    ///     try db.query("SELECT name FROM player ORDER BY name").map { try $0.value(at: 0, as: String.self) }
    /// }
    /// for try await list in names {
    ///     print(list)
    /// }
    /// ```
    ///
    /// The first value is read at once. Then, after each commit of the pool's writer that changed a watched table,
    /// the writer starts a read transaction on one idle reader before it does anything else, so that the reader
    /// sees the database exactly as that commit left it, and hands it over: every observed query of the pool that
    /// the commit concerns runs there, one after another, on a dispatch queue of the pool's observations, while the
    /// writer goes on. A commit takes one reader at most, and never one above ``maximumReaderCount``: when no reader
    /// is idle (all are reading, or a barrier write waits or runs), the queries run on the writer right after the
    /// commit instead, which sees the same state. Every commit is seen, once, in order.
    ///
    /// Without `tables`, the watched tables are those the last run read (through views and subqueries too, as
    /// SQLite's authorizer reports them); while a run is under way on a reader, any commit makes the query run
    /// again. A commit by another process, or by a connection outside the pool, makes the query run again, whatever
    /// its tables, once the writer looks (see ``externalChangeDetection`` and <doc:SharingADatabase>).
    ///
    /// The sequence ends with the error of a read that throws, with ``DatabaseError/Reason/unknownTable(_:)`` at
    /// once when a name in `tables` is neither a table nor a view of the database, and without error when the pool
    /// closes. Cancelling the task that iterates it, or dropping the sequence, ends the observation and releases
    /// `value`.
    ///
    /// - Parameters:
    ///   - tables: the tables whose changes make the query run again, compared without regard to ASCII case;
    ///     `nil` (the default) for the tables the query reads.
    ///   - bufferingPolicy: what the sequence keeps while its consumer is busy: by default the newest value only,
    ///     so that a slow consumer gets the latest state rather than a backlog; `.unbounded` keeps every value.
    ///   - value: the read; it runs in a read transaction, on a reader (or the writer, as said above).
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
        let query = ObservedQuery(
            region: ObservedRegion(tables: tables), value: value,
            sink: ObservationSink(continuation, isDuplicate: isDuplicate))
        let entry = PoolObservationEntry(query)
        let writer = self.writer
        let observedQueries = self.observedQueries
        // Weak: the stream holds this closure, and the entry holds the stream's sink.
        continuation.onTermination = { [weak entry] _ in
            guard let entry, entry.end() else { return }
            writer.dispatchQueue.async {
                _ = try? writer.access { db in observedQueries.remove(entry, on: db) }
            }
        }
        // An access of its own, on the writer's dispatch queue, so that the caller never waits; the first value is
        // read in that same access, so that no commit falls between it and the registration.
        writer.dispatchQueue.async { [weak self] in
            do {
                try writer.access { db in
                    guard let self, !entry.hasEnded else { return }
                    // Readers do not see the writer's temp tables: a name only they would hold is unknown.
                    if let tables { try db.checkTablesExist(tables, includingTemporary: false) }
                    let group = try self.observedQueries.add(entry, on: db, pool: self)
                    let ticket = query.region.firstRun(commitCount: db.observedCommitCount)
                    let first = query.run(on: db, inStartedRead: false, ticket: ticket, decided: false)
                    group.deliveries.async { query.sink.deliver(first) }
                }
            } catch {
                continuation.finish(throwing: error)
            }
        }
        return stream
    }

    /// Called by the writer right after a commit that concerns `due`: starts a read transaction on an idle reader,
    /// so that it sees this commit and no later one, and runs the queries there, one after another, on
    /// `deliveries`; or, with no reader idle, runs them on the writer now.
    func runAfterCommit(
        _ due: [(entry: PoolObservationEntry, ticket: Int)], on writerDatabase: Database, deliveries: DispatchQueue
    ) {
        if let reader = startReadForObservation() {
            deliveries.async {
                let ran = self.runStartedRead(on: reader) { database in
                    for (entry, ticket) in due { entry.runAndDeliver(on: database, ticket: ticket) }
                }
                // Not run (the pool closed, or this thread is inside an access): the runs end unheard.
                if !ran {
                    for (entry, ticket) in due { entry.region.runEnded(reads: nil, ticket: ticket, decided: true) }
                }
                self.checkIn(reader)
            }
            return
        }
        for (entry, ticket) in due {
            let deliver = entry.run(on: writerDatabase, ticket: ticket)
            deliveries.async(execute: deliver)
        }
    }

    /// Takes an idle reader (or opens one, below the limit) without waiting and without the re-entry check of a
    /// read (the writer's thread is inside an access), and begins a read transaction on it that reads the database
    /// now. `nil` when no reader is idle, a barrier write waits or runs, the pool is closed, or the transaction could
    /// not start.
    private func startReadForObservation() -> PooledReader? {
        guard let reader = takeIdleReaderWithoutWaiting() else { return nil }
        do {
            let database = try connection(of: reader)
            reader.markReadStarted(observation: true)
            try database.beginTransaction(.deferred)
            do {
                try database.startReading()
            } catch {
                try? database.rollback()
                throw error
            }
            return reader
        } catch {
            checkIn(reader)
            return nil
        }
    }

    /// Runs `body` in the read transaction a reader started for it, then ends the transaction and the cursors
    /// `body` left open; the calling thread counts as inside an access to the pool meanwhile. A closed pool, or a
    /// thread already inside an access, gives `body` nothing to run on: the queries' streams end with that error.
    @discardableResult
    private func runStartedRead(on reader: PooledReader, _ body: (Database) -> Void) -> Bool {
        guard let database = reader.database else { return false }
        guard let list = ThreadAccesses.enter(identity) else {
            try? database.rollback()
            return false
        }
        defer { ThreadAccesses.leave(identity, from: list) }
        body(database)
        try? database.rollback()
        try? SerializedDatabase.finishAccess(database, bodyFailed: true)
        return true
    }
}
