import SQLiteBindings

/// The tables an observed query watches: those its caller named, or those it read on its last run (SQLite's
/// authorizer reports each table a statement reads, through views and in subqueries, as the statement is prepared).
///
/// A commit changes tables; the query runs again when one of them is watched. While a run of the query is under way
/// (on a pool, it runs on a reader after the writer went on), what it reads is not known yet: a commit then makes it
/// run again whatever it changed, so that a query whose tables change from one run to the next misses nothing.
final class ObservedRegion: Sendable {
    /// The lowercased names the caller gave; `nil` when the region follows the query's reads.
    let namedTables: Set<String>?
    private let lock = Lock()
    // Guarded by `lock`: the tables (lowercased) the last run read, `nil` before the first run ended, and the runs
    // decided on and not ended.
    private nonisolated(unsafe) var readTables: Set<String>?
    private nonisolated(unsafe) var runsUnderWay = 0

    init(tables: Set<String>?) {
        namedTables = tables.map { Set($0.map { $0.lowercased() }) }
    }

    /// Whether the query follows its reads (no table list was given).
    var followsReads: Bool { namedTables == nil }

    /// Called after a commit that changed `changes.tables`: whether the query must run again, counting the run as
    /// under way when it must.
    func commitNeedsRun(_ changes: DatabaseTransactionChanges) -> Bool {
        if let namedTables {
            return changes.tables.contains { namedTables.contains($0.lowercased()) }
        }
        return lock.withLock {
            guard let readTables, runsUnderWay == 0 else {
                runsUnderWay += 1
                return true
            }
            guard changes.tables.contains(where: { readTables.contains($0.lowercased()) }) else { return false }
            runsUnderWay += 1
            return true
        }
    }

    /// A run ended, having read `reads` (`nil` when the query names its tables); `decided` is whether
    /// ``commitNeedsRun(_:)`` counted it (the first run is not).
    func runEnded(reads: Set<String>?, decided: Bool) {
        guard followsReads else { return }
        lock.withLock {
            if let reads { readTables = reads }
            if decided && runsUnderWay > 0 { runsUnderWay -= 1 }
        }
    }

    /// The tables the last run read (lowercased); `nil` before a run ended, or for a query that names its tables.
    var tablesRead: Set<String>? { lock.withLock { readTables } }
}

/// One observed query: the read, the tables it watches, and the stream its values go to.
final class ObservedQuery<Value: Sendable>: Sendable {
    let region: ObservedRegion
    let value: @Sendable (Database) throws -> Value
    let sink: ObservationSink<Value>

    init(region: ObservedRegion, value: @escaping @Sendable (Database) throws -> Value, sink: ObservationSink<Value>) {
        self.region = region
        self.value = value
        self.sink = sink
    }

    /// Runs the read on `db`: in a read transaction of its own, or in the one `db` already started
    /// (`inStartedRead`), recording what it reads when the region follows the reads. `decided` is passed on to
    /// ``ObservedRegion/runEnded(reads:decided:)``.
    func run(on db: Database, inStartedRead: Bool, decided: Bool) -> Result<Value, any Error> {
        let read = { () -> Result<Value, any Error> in
            inStartedRead
                ? Result { try self.value(db) } : Result { try db.transaction(.deferred) { try self.value($0) } }
        }
        guard region.followsReads else {
            let result = read()
            region.runEnded(reads: nil, decided: decided)
            return result
        }
        let (result, reads) = db.recordingReads(read)
        // A run that failed ends the stream: what it read no longer matters.
        region.runEnded(reads: reads, decided: decided)
        return result
    }
}

extension Database {
    /// Runs `body`, returning the tables (lowercased) the statements it ran read; `nil` when the connection is
    /// closed, or closed by `body`. While recording, each statement is prepared again before its first step, a
    /// cached one included (setting the authorizer expires them), so that it reports what it reads.
    func recordingReads<T>(_ body: () -> T) -> (T, Set<String>?) {
        guard let connection = handle else { return (body(), nil) }
        observation.beginRecordingReads(on: connection)
        let result = body()
        guard let after = handle, after.rawValue == connection.rawValue else { return (result, nil) }
        return (result, observation.endRecordingReads(on: connection))
    }

    /// Throws ``DatabaseError/Reason/unknownTable(_:)`` for the first of `tables` that is neither a table nor a
    /// view in any schema of this connection, compared without regard to ASCII case.
    func checkTablesExist(_ tables: Set<String>) throws {
        for table in tables.sorted() {
            let known = try queryValue(
                "SELECT count(*) FROM pragma_table_list WHERE name = ?1 COLLATE NOCASE", table, as: Int.self)
            guard known == 0 else { continue }
            throw DatabaseError(
                extendedCode: .error, message: "no such table or view in any schema: \(table)",
                reason: .unknownTable(table))
        }
    }
}
