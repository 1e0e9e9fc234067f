import SQLiteBindings

/// The tables an observed query watches: those its caller named, or those it read on its last run (SQLite's
/// authorizer reports each table a statement reads, through views and in subqueries, as the statement is prepared).
///
/// A commit changes tables; the query runs again when one of them is watched. While a run of the query is under way
/// (on a pool, it runs on a reader after the writer went on), what it reads is not known yet: a commit then makes it
/// run again whatever it changed, so that a query whose tables change from one run to the next misses nothing. A
/// commit that changed the schema makes it run again too (a view may read other tables now). Each run is given a
/// ticket in the order the runs were decided: the watched tables are those of the newest run that ended, whatever
/// the order the runs end in. And each run remembers how many commits the connection had made when it started: a
/// commit it has seen already (made by an observer while an earlier one was being told) does not run it again.
final class ObservedRegion: Sendable {
    /// The lowercased names the caller gave; `nil` when the region follows the query's reads.
    let namedTables: Set<String>?
    private let lock = Lock()
    // Guarded by `lock`: the tables (lowercased) the newest ended run read (`nil` before one ended), that run's
    // ticket, the next ticket, the runs decided on and not ended, and the commits the newest run has seen.
    private nonisolated(unsafe) var readTables: Set<String>?
    private nonisolated(unsafe) var readTicket = -1
    private nonisolated(unsafe) var nextTicket = 0
    private nonisolated(unsafe) var runsUnderWay = 0
    private nonisolated(unsafe) var seenCommits = 0

    init(tables: Set<String>?) {
        namedTables = tables.map { Set($0.map { $0.lowercased() }) }
    }

    /// Whether the query follows its reads (no table list was given).
    var followsReads: Bool { namedTables == nil }

    /// The ticket of the first run, which starts when the connection has made `commitCount` commits.
    func firstRun(commitCount: Int) -> Int {
        lock.withLock {
            seenCommits = commitCount
            defer { nextTicket += 1 }
            return nextTicket
        }
    }

    /// Called after a commit that changed `changes.tables`, on a connection that has made `commitCount` commits
    /// (more than `changes.commitNumber` when an observer committed since): the ticket of the run the query must
    /// make, counted as under way, or `nil` when it need not run.
    func commitNeedsRun(_ changes: DatabaseTransactionChanges, commitCount: Int) -> Int? {
        lock.withLock {
            if changes.commitNumber != 0 && changes.commitNumber <= seenCommits { return nil }
            // A commit made outside the connection may have changed any table: the query runs again.
            if !changes.isExternal {
                if let namedTables {
                    guard changes.tables.contains(where: { namedTables.contains($0.lowercased()) }) else { return nil }
                } else if let readTables, runsUnderWay == 0, !changes.schemaChanged {
                    guard changes.tables.contains(where: { readTables.contains($0.lowercased()) }) else { return nil }
                }
            }
            runsUnderWay += 1
            seenCommits = max(seenCommits, commitCount)
            defer { nextTicket += 1 }
            return nextTicket
        }
    }

    /// A run ended, having read `reads` (`nil` when the query names its tables, or the connection closed);
    /// `decided` is whether ``commitNeedsRun(_:commitCount:)`` counted it (the first run is not).
    func runEnded(reads: Set<String>?, ticket: Int, decided: Bool) {
        lock.withLock {
            if followsReads, let reads, ticket > readTicket {
                readTables = reads
                readTicket = ticket
            }
            if decided && runsUnderWay > 0 { runsUnderWay -= 1 }
        }
    }

    /// The tables the newest ended run read (lowercased); `nil` before a run ended, or for a query that names its
    /// tables.
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
    /// (`inStartedRead`), recording what it reads when the region follows the reads. `ticket` and `decided` are
    /// passed on to ``ObservedRegion/runEnded(reads:ticket:decided:)``.
    func run(on db: Database, inStartedRead: Bool, ticket: Int, decided: Bool) -> Result<Value, any Error> {
        let read = { () -> Result<Value, any Error> in
            inStartedRead
                ? Result { try self.value(db) } : Result { try db.transaction(.deferred) { try self.value($0) } }
        }
        guard region.followsReads else {
            let result = read()
            region.runEnded(reads: nil, ticket: ticket, decided: decided)
            return result
        }
        let (result, reads) = db.recordingReads(read)
        // A run that failed ends the stream: what it read no longer matters.
        region.runEnded(reads: reads, ticket: ticket, decided: decided)
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

    /// The number of commits this connection's transaction observers were told of.
    var observedCommitCount: Int { observation.commitCount }

    /// Throws ``DatabaseError/Reason/unknownTable(_:)`` for the first of `tables` that is neither a table nor a
    /// view in any schema of this connection (but `temp`'s when `includingTemporary` is `false`: a pool's readers do
    /// not see the writer's), compared without regard to ASCII case, or that is one of SQLite's own `sqlite_`
    /// tables, whose changes observers are never told.
    func checkTablesExist(_ tables: Set<String>, includingTemporary: Bool = true) throws {
        for table in tables.sorted() {
            if table.lowercased().hasPrefix("sqlite_") {
                throw DatabaseError(
                    extendedCode: .error,
                    message: "\(table) is one of SQLite's own tables, whose changes observers are never told",
                    reason: .unknownTable(table))
            }
            let known = try queryValue(
                "SELECT count(*) FROM pragma_table_list WHERE name = ?1 COLLATE NOCASE AND (?2 OR schema <> 'temp')",
                table, includingTemporary, as: Int.self)
            guard known == 0 else { continue }
            throw DatabaseError(
                extendedCode: .error,
                message: "no such table or view in any schema\(includingTemporary ? "" : " but temp"): \(table)",
                reason: .unknownTable(table))
        }
    }
}
