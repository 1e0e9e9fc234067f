/// A bounded least-recently-used cache of prepared statements, keyed by SQL text.
///
/// A statement is checked out while it runs and checked in when it is reset, so one statement is never handed to
/// two users at once (FMDB's cache could hand out a statement that an open result set was still reading). When
/// the same SQL runs twice at once, the second use prepares its own statement, and only one is kept afterwards.
///
/// The hot path costs at most one hash of the SQL: checking a cached statement back in only flips its flags and
/// moves it to the front of a list, and running the same SQL again (a loop) finds the most recent statement by
/// comparing the SQL, usually the same string storage.
///
/// Eviction is O(1): the statements that are kept and not checked out form a doubly linked list through the
/// statements themselves, most recently used first, so the one to evict is the list's last. A checked-out statement
/// is off the list, so it is never evicted while it runs.
///
/// Whether a statement is prepared with `SQLITE_PREPARE_PERSISTENT` is the cache's decision: that flag keeps SQLite
/// off its lookaside allocator, which helps a statement that lives long and hurts one that is used once. The cache
/// asks for it only for SQL it has seen before: SQL whose statement it evicted and is asked for again.
@usableFromInline
final class StatementCache {
    /// The most statements kept; 0 disables caching.
    let capacity: Int
    // `@exclusivity(unchecked)`: the cache belongs to one connection, confined to one thread at a time.
    @exclusivity(unchecked) private var statements: [String: Statement] = [:]
    @exclusivity(unchecked) private var mostRecent: Statement?
    /// The most and least recently checked-in statements that are kept and not checked out. Unretained: the
    /// dictionary retains every statement on the list.
    @exclusivity(unchecked) private var newest: Unmanaged<Statement>?
    @exclusivity(unchecked) private var oldest: Unmanaged<Statement>?
    /// The SQL of statements evicted lately: asked for again, they repeat, and are prepared persistent.
    @exclusivity(unchecked) private var evicted: Set<String> = []
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
        unlink(statement)
        mostRecent = statement
        return statement
    }

    /// Whether a statement about to be prepared for `sql` should be prepared persistent: the cache keeps it and
    /// its SQL came back after an eviction.
    @usableFromInline
    func shouldPreparePersistent(_ sql: String) -> Bool {
        capacity > 0 && !evicted.isEmpty && evicted.contains(sql)
    }

    /// Takes a reset statement back. A statement new to the cache is kept when no twin is, evicting the least
    /// recently used statement that is not out when the cache is full.
    @usableFromInline
    func checkIn(_ statement: Statement) {
        statement.isCheckedOut = false
        if statement.isInCache {
            if !statement.isFinalized { pushFront(statement) }
            return
        }
        guard capacity > 0, !statement.isFinalized, statements[statement.sql] == nil else {
            return  // caching is off, or a twin is kept: this one is released by its user
        }
        if statements.count >= capacity {
            guard let victim = oldest?.takeUnretainedValue() else { return }  // every kept statement is out
            unlink(victim)
            victim.isInCache = false
            statements.removeValue(forKey: victim.sql)
            if mostRecent === victim { mostRecent = nil }
            if evicted.count >= capacity { evicted.removeAll(keepingCapacity: true) }
            evicted.insert(victim.sql)
        }
        statement.isInCache = true
        statements[statement.sql] = statement
        pushFront(statement)
        mostRecent = statement
    }

    /// Puts a kept statement at the front of the list.
    private func pushFront(_ statement: Statement) {
        if newest?.takeUnretainedValue() === statement { return }
        unlink(statement)
        let node = Unmanaged.passUnretained(statement)
        statement.cacheOlder = newest
        statement.cacheNewer = nil
        newest?.takeUnretainedValue().cacheNewer = node
        newest = node
        if oldest == nil { oldest = node }
        statement.isOnCacheList = true
    }

    /// Takes a statement off the list, if it is on it.
    private func unlink(_ statement: Statement) {
        guard statement.isOnCacheList else { return }
        let newer = statement.cacheNewer
        let older = statement.cacheOlder
        if let newer { newer.takeUnretainedValue().cacheOlder = older } else { newest = older }
        if let older { older.takeUnretainedValue().cacheNewer = newer } else { oldest = newer }
        statement.cacheNewer = nil
        statement.cacheOlder = nil
        statement.isOnCacheList = false
    }

    /// Empties the cache; the statements are finalized when released (at once, unless one is in use).
    func removeAll() {
        for statement in statements.values {
            statement.isInCache = false
            statement.isOnCacheList = false
            statement.cacheNewer = nil
            statement.cacheOlder = nil
        }
        newest = nil
        oldest = nil
        statements.removeAll()
        mostRecent = nil
        evicted.removeAll()
    }
}
