// DispatchQueue: Dispatch is its own module (Foundation only re-exports it).
import Dispatch

/// A pool's observed queries, seen from its writer: one transaction observer for them all, so that a commit that
/// concerns several queries takes one reader for them, and one dispatch queue on which every value is delivered,
/// in the order of the commits.
///
/// The writer's observer holds the group (its queries and their streams); the pool keeps only a weak reference.
/// Closing the pool closes the writer, which releases its observers: the group goes, its streams' sinks with it,
/// and every stream finishes. Everything here runs inside an access to the writer, whose serialization orders the
/// changes to the group; the lock only makes the pool's weak reference safe to read.
final class PoolObservedQueries: Sendable {
    private let lock = Lock()
    // Guarded by `lock`.
    private nonisolated(unsafe) weak var current: PoolObservationGroup?

    /// Adds `entry` to the writer's group (made, with its transaction observer, for the first entry), and watches
    /// what the group's queries need: every table when one of them follows its reads, else the tables they name.
    func add(_ entry: PoolObservationEntry, on db: Database, pool: DatabasePool) throws -> PoolObservationGroup {
        let group = lock.withLock { current } ?? PoolObservationGroup()
        group.entries.append(entry)
        do {
            try group.observe(on: db, pool: pool)
        } catch {
            group.entries.removeAll { $0 === entry }
            throw error
        }
        lock.withLock { current = group }
        return group
    }

    /// Removes `entry` (its stream ended), and the writer's observer with the last one.
    func remove(_ entry: PoolObservationEntry, on db: Database) {
        guard let group = lock.withLock({ current }) else { return }
        group.entries.removeAll { $0 === entry }
        if group.entries.isEmpty {
            if let id = group.observerID { db.removeTransactionObserver(id) }
            group.observerID = nil
            lock.withLock { current = nil }
        } else if let pool = group.pool {
            try? group.observe(on: db, pool: pool)
        }
    }
}

/// The queries a pool's writer observes, and the queue their values go through. Used inside accesses to the
/// writer only (its commits' observers run there too), which serialize every use.
final class PoolObservationGroup: @unchecked Sendable {
    let deliveries = DispatchQueue(label: "SQLiteToolkit.DatabasePool.observation")
    var entries: [PoolObservationEntry] = []
    var observerID: TransactionObserverID?
    /// The tables the writer's observer watches: `nil` for all.
    private var watched: Set<String>?? = .none
    weak var pool: DatabasePool?

    /// Registers the writer's observer for the tables the entries need, replacing the one registered before when
    /// they changed.
    func observe(on db: Database, pool: DatabasePool) throws {
        self.pool = pool
        var tables: Set<String>? = []
        for entry in entries {
            guard let named = entry.region.namedTables else {
                tables = nil
                break
            }
            tables?.formUnion(named)
        }
        if observerID != nil, watched == .some(tables) { return }
        // Unowned: the connection keeps its observers, and calls them only while it is open. The group is held
        // by the observer only; the pool weakly, since it owns the writer.
        let id = try db.addTransactionObserverUnchecked(
            tables: tables, includingRowChanges: false, wantsSchemaChanges: tables == nil
        ) { [unowned db, self] changes in
            let commitCount = db.observedCommitCount
            let due = entries.compactMap { entry in
                entry.ticket(after: changes, commitCount: commitCount).map { (entry: entry, ticket: $0) }
            }
            guard !due.isEmpty, let pool = self.pool else { return }
            pool.runAfterCommit(due, on: db, deliveries: deliveries)
        }
        if let old = observerID { db.removeTransactionObserver(old) }
        observerID = id
        watched = .some(tables)
    }
}

/// One observed query of a pool, type-erased for its group, and whether its stream ended.
final class PoolObservationEntry: Sendable {
    let region: ObservedRegion
    private let runQuery: @Sendable (Database, Bool, Int) -> @Sendable () -> Void
    private let ended = LockedState(false)

    init<Value: Sendable>(_ query: ObservedQuery<Value>) {
        region = query.region
        runQuery = { db, inStartedRead, ticket in
            let result = query.run(on: db, inStartedRead: inStartedRead, ticket: ticket, decided: true)
            return { query.sink.deliver(result) }
        }
    }

    /// The ticket of the run a commit that changed `changes.tables` makes the query run (counted as under way),
    /// or `nil` when it need not run.
    func ticket(after changes: DatabaseTransactionChanges, commitCount: Int) -> Int? {
        hasEnded ? nil : region.commitNeedsRun(changes, commitCount: commitCount)
    }

    /// Runs the query on the writer, after a commit; returns the delivery of its value, for the group's queue.
    func run(on db: Database, ticket: Int) -> @Sendable () -> Void {
        runQuery(db, false, ticket)
    }

    /// Runs the query in the read transaction a reader started, and delivers its value now (on the group's queue).
    func runAndDeliver(on db: Database, ticket: Int) {
        runQuery(db, true, ticket)()
    }

    /// Marks the stream ended; `false` when it had ended already.
    func end() -> Bool {
        ended.withLock { wasEnded in
            defer { wasEnded = true }
            return !wasEnded
        }
    }

    var hasEnded: Bool { ended.withLock { $0 } }
}
