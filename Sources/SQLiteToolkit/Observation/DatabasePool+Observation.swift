// DispatchQueue: Dispatch is its own module (Foundation only re-exports it).
import Dispatch

extension DatabasePool {
    /// The values of `value`, a read of the database, now and again after every commit that changes one of
    /// `tables` (any table when `nil`), as an asynchronous sequence.
    ///
    /// ```swift
    /// let names = pool.observe(tables: ["player"]) { db in
    ///     try db.query("SELECT name FROM player ORDER BY name").map { try $0.value(at: 0, as: String.self) }
    /// }
    /// for try await list in names {
    ///     print(list)
    /// }
    /// ```
    ///
    /// The first value is read at once. Then, after each commit of the pool's writer that changed a watched table,
    /// the writer starts a read transaction on an idle reader before it does anything else, so that the reader sees
    /// the database exactly as that commit left it, and hands the reader over: the query runs there, on a dispatch
    /// queue of the observation, while the writer goes on. Every commit is seen, once, in order, and the writer is
    /// not held for the query. When no reader is idle (all are reading, or a barrier write waits or runs), the query
    /// runs on the writer right after the commit instead, which sees the same state.
    ///
    /// A commit by another process, or by a connection outside the pool, is not seen (see <doc:ObservingChanges>).
    /// The sequence ends with the error of a read that throws, and without error when the pool closes. Cancelling
    /// the task that iterates it, or dropping the sequence, ends the observation and releases `value`.
    ///
    /// - Parameters:
    ///   - tables: the tables whose changes make the query run again; `nil` for every table. Names are compared
    ///     without regard to ASCII case.
    ///   - value: the read; it runs in a read transaction, on a reader (or the writer, as said above).
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
        // The values are delivered here, one after another, in the order of the commits.
        let deliveries = DispatchQueue(label: "SQLiteToolkit.DatabasePool.observation")
        return writer.startObservation(
            tables: tables, isDuplicate: isDuplicate,
            first: { db, sink in
                let first = Result { try db.transaction(.deferred) { try value($0) } }
                deliveries.async { sink.deliver(first) }
            },
            // Weak: the pool owns the writer, which owns this observer.
            afterCommit: { [weak self] db, sink in
                self?.readAfterCommit(on: db, value, deliveries: deliveries, sink: sink)
            })
    }

    /// Called by the writer right after a commit a query observes: starts a read transaction on an idle reader, so
    /// that it sees this commit and no later one, and runs the query there on `deliveries`; or, with no reader idle,
    /// runs the query on the writer now.
    private func readAfterCommit<Value: Sendable>(
        on writerDatabase: Database,
        _ value: @escaping @Sendable (Database) throws -> Value,
        deliveries: DispatchQueue,
        sink: ObservationSink<Value>
    ) {
        if let reader = startReadForObservation() {
            deliveries.async {
                let result = self.runStartedRead(value, on: reader)
                self.checkIn(reader)
                sink.deliver(result)
            }
            return
        }
        let result = Result { try writerDatabase.transaction(.deferred) { try value($0) } }
        deliveries.async { sink.deliver(result) }
    }

    /// Takes an idle reader (or opens one, below the limit) without waiting and without the re-entry check of a
    /// read (the writer's thread is inside an access), and begins a read transaction on it that reads the database
    /// now. `nil` when no reader is idle, a barrier write waits or runs, the pool is closed, or the transaction could
    /// not start.
    private func startReadForObservation() -> PooledReader? {
        guard let reader = takeIdleReaderWithoutWaiting() else { return nil }
        do {
            let database = try connection(of: reader)
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

    /// Runs `value` in the read transaction a reader started for it, then ends the transaction and the cursors
    /// `value` left open; the calling thread counts as inside an access to the pool meanwhile.
    private func runStartedRead<Value>(
        _ value: (Database) throws -> Value, on reader: PooledReader
    ) -> Result<Value, any Error> {
        guard let database = reader.database else {
            return .failure(DatabaseError.misuse("the database pool is closed", reason: .accessAfterClose))
        }
        guard let list = ThreadAccesses.enter(identity) else {
            try? database.rollback()
            return .failure(ThreadAccesses.reentryError("an observed query", ownerName: writer.ownerName))
        }
        defer { ThreadAccesses.leave(identity, from: list) }
        let result = Result { try value(database) }
        try? database.rollback()
        try? SerializedDatabase.finishAccess(database, bodyFailed: true)
        return result
    }
}
