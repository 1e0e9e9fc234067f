/// A bounded least-recently-used cache of prepared statements, keyed by SQL text.
///
/// A statement is checked out while it runs and checked in when it is reset, so one statement is never handed to
/// two users at once (FMDB's cache could hand out a statement that an open result set was still reading). When
/// the same SQL runs twice at once, the second use prepares its own statement, and only one is kept afterwards.
///
/// The hot path costs at most one hash of the SQL: checking a cached statement back in only flips its flags, and
/// running the same SQL again (a loop) finds the most recent statement by comparing the SQL, usually the same
/// string storage.
@usableFromInline
final class StatementCache {
    /// The most statements kept; 0 disables caching.
    let capacity: Int
    // `@exclusivity(unchecked)`: the cache belongs to one connection, confined to one thread at a time.
    @exclusivity(unchecked) private var statements: [String: Statement] = [:]
    @exclusivity(unchecked) private var mostRecent: Statement?
    @exclusivity(unchecked) private var clock: UInt64 = 0
    /// Statements found in the cache.
    @exclusivity(unchecked) private(set) var hits = 0
    /// Statements that had to be prepared.
    @exclusivity(unchecked) private(set) var misses = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The number of statements kept.
    var count: Int { statements.count }

    /// Hands out the cached statement for `sql` unless it is already out; `nil` means: prepare one.
    @usableFromInline
    func checkOut(_ sql: String) -> Statement? {
        let found: Statement?
        if let recent = mostRecent, recent.sql == sql {
            found = recent
        } else {
            found = statements[sql]
        }
        guard let statement = found, !statement.isCheckedOut, !statement.isFinalized else {
            misses += 1
            return nil
        }
        hits += 1
        statement.isCheckedOut = true
        mostRecent = statement
        return statement
    }

    /// Takes a reset statement back. A statement new to the cache is kept when no twin is, evicting the least
    /// recently used statement that is not out when the cache is full.
    @usableFromInline
    func checkIn(_ statement: Statement) {
        statement.isCheckedOut = false
        clock += 1
        statement.lastUse = clock
        guard !statement.isInCache, capacity > 0, !statement.isFinalized, statements[statement.sql] == nil else {
            return  // already kept, caching is off, or a twin is kept: this one is released by its user
        }
        if statements.count >= capacity {
            guard let oldest = statements.values.filter({ !$0.isCheckedOut }).min(by: { $0.lastUse < $1.lastUse })
            else { return }
            statements.removeValue(forKey: oldest.sql)
            oldest.isInCache = false
            if mostRecent === oldest { mostRecent = nil }
        }
        statement.isInCache = true
        statements[statement.sql] = statement
        mostRecent = statement
    }

    /// Empties the cache; the statements are finalized when released (at once, unless one is in use).
    func removeAll() {
        for statement in statements.values { statement.isInCache = false }
        statements.removeAll()
        mostRecent = nil
    }
}
