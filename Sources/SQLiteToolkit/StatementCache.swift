/// A bounded least-recently-used cache of prepared statements, keyed by SQL text.
///
/// A statement is checked out while it runs and checked in when it is reset, so one statement is never handed to
/// two users at once (FMDB's cache could hand out a statement that an open result set was still reading). When
/// the same SQL runs twice at once, the second use prepares its own statement, and only one is kept afterwards.
@usableFromInline
struct StatementCache {
    /// The most statements kept; 0 disables caching.
    var capacity: Int
    private var available: [String: Statement] = [:]
    private var lastUse: [String: UInt64] = [:]
    private var clock: UInt64 = 0
    /// Statements found in the cache.
    private(set) var hits = 0
    /// Statements that had to be prepared.
    private(set) var misses = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The number of statements kept.
    var count: Int { available.count }

    /// Takes the cached statement for `sql` out of the cache, if there is one.
    @usableFromInline
    mutating func checkOut(_ sql: String) -> Statement? {
        guard let statement = available.removeValue(forKey: sql) else {
            misses += 1
            return nil
        }
        hits += 1
        return statement
    }

    /// Puts a reset statement back, evicting the least recently used one when full.
    @usableFromInline
    mutating func checkIn(_ statement: Statement) {
        guard capacity > 0, !statement.isFinalized else { return }
        clock += 1
        if available[statement.sql] != nil { return }  // a twin is cached already; this one is dropped
        if available.count >= capacity,
            let oldest = lastUse.filter({ available[$0.key] != nil }).min(by: { $0.value < $1.value })
        {
            available.removeValue(forKey: oldest.key)
            lastUse.removeValue(forKey: oldest.key)
        }
        available[statement.sql] = statement
        lastUse[statement.sql] = clock
    }

    /// Empties the cache; the statements are finalized when released.
    mutating func removeAll() {
        available.removeAll()
        lastUse.removeAll()
    }
}
