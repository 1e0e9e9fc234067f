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
    /// The hash values of the SQL of statements evicted lately: asked for again, the SQL repeats, and is prepared
    /// persistent. Hash values rather than strings, so remembering costs no hashing of the SQL again; a collision
    /// only makes one statement persistent.
    @exclusivity(unchecked) private var evicted: Set<Int> = []
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

    /// Whether a statement about to be prepared for `sql` should be prepared persistent (the cache keeps it and
    /// its SQL came back after an eviction), and the hash value of `sql` to give the statement
    /// (``Statement/cacheFingerprint``) when the cache will see it.
    @usableFromInline
    func persistence(for sql: String) -> (persistent: Bool, fingerprint: Int?) {
        guard capacity > 0 else { return (false, nil) }
        let fingerprint = sql.hashValue
        return (evicted.contains(fingerprint), fingerprint)
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
        guard capacity > 0, !statement.isFinalized else { return }  // caching is off
        // One hash of the SQL: keep the statement unless a twin is kept (then its user releases it).
        guard Self.insertIfAbsent(statement, into: &statements[statement.sql]) else { return }
        statement.isInCache = true
        if statements.count > capacity {
            guard let victim = oldest?.takeUnretainedValue() else {
                // Every other kept statement is out: keep no more than the capacity.
                statement.isInCache = false
                statements.removeValue(forKey: statement.sql)
                return
            }
            unlink(victim)
            victim.isInCache = false
            if mostRecent === victim { mostRecent = nil }
            if evicted.count >= capacity { evicted.removeAll(keepingCapacity: true) }
            evicted.insert(victim.cacheFingerprint ?? victim.sql.hashValue)
            statements.removeValue(forKey: victim.sql)
        }
        pushFront(statement)
        mostRecent = statement
    }

    /// Stores `statement` in an empty dictionary slot, through the subscript's in-place accessor: one lookup.
    private static func insertIfAbsent(_ statement: Statement, into slot: inout Statement?) -> Bool {
        guard slot == nil else { return false }
        slot = statement
        return true
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
