/// A bounded least-recently-used cache of prepared statements, keyed by SQL text.
///
/// A statement is checked out while it runs and checked in when it is reset, so one statement is never handed to
/// two users at once (FMDB's cache could hand out a statement that an open result set was still reading). When
/// the same SQL runs twice at once, the second use prepares its own statement, and only one is kept afterwards.
///
/// The hot path hashes nothing and retains nothing beyond the statement it hands out: checking a cached statement
/// back in only flips its flags and moves it to the front of a list, and running the same SQL again (a loop) finds
/// the most recent statement by comparing the SQL, usually the same string storage. A miss hashes the SQL once,
/// with a cheap hash of its bytes (``fingerprint(of:)``): the statements are found by that hash and confirmed by
/// comparing the SQL, so two texts with the same hash only cost the second one its place in the cache.
///
/// Eviction is O(1) (amortized): the statements that are kept form doubly linked lists through the statements
/// themselves, most recently checked in first, so the one to evict is a list's last. A checked-out statement is
/// never evicted while it runs: eviction takes it off its list instead, and checking it in puts it back in front.
///
/// Whether a statement is prepared with `SQLITE_PREPARE_PERSISTENT` is the cache's decision. Without that flag,
/// SQLite takes a statement's memory from the connection's small lookaside pool, which makes preparing and
/// finalizing a statement used once cheap, but a statement kept for long holds its slots: with many of them kept,
/// every later statement falls back to `malloc`. So SQL seen for the first time is prepared without the flag and
/// at most ``transientCapacity`` such statements are kept (the least recently used of them is evicted first);
/// SQL that comes back after its statement was evicted repeats, and is prepared persistent. With a capacity of at
/// most ``transientCapacity``, this is a plain LRU cache.
@usableFromInline
final class StatementCache {
    /// The most statements kept; 0 disables caching.
    let capacity: Int
    /// The most statements kept that were prepared without `SQLITE_PREPARE_PERSISTENT`.
    let transientCapacity: Int
    /// The statements kept, by ``fingerprint(of:)`` of their SQL.
    // `@exclusivity(unchecked)`: the cache belongs to one connection, confined to one thread at a time.
    @exclusivity(unchecked) private var statements: [Int: Statement] = [:]
    /// The statement handed out or kept last, unretained: it is always one the dictionary holds (cleared when it
    /// leaves the dictionary).
    @exclusivity(unchecked) @usableFromInline private(set) var mostRecent: Unmanaged<Statement>?
    /// The kept statements that are not checked out, one list for those prepared persistent and one for the others.
    @exclusivity(unchecked) private var persistentList = List()
    @exclusivity(unchecked) private var transientList = List()
    /// The number of kept statements prepared without `SQLITE_PREPARE_PERSISTENT`, checked out or not.
    @exclusivity(unchecked) private var transientCount = 0
    /// Counts check-ins, so the two lists' last statements can be compared by age.
    @exclusivity(unchecked) @usableFromInline var clock = 0
    /// The fingerprints of the SQL of statements evicted lately: asked for again, the SQL repeats, and is prepared
    /// persistent. A collision only makes one statement persistent.
    @exclusivity(unchecked) private var evicted: Set<Int> = []
    /// Statements found in the cache.
    @exclusivity(unchecked) @usableFromInline private(set) var hits = 0
    /// Statements that had to be prepared.
    @exclusivity(unchecked) private(set) var misses = 0

    /// The most statements kept without `SQLITE_PREPARE_PERSISTENT` by default. SQLite's default lookaside pool
    /// of a connection has 120 KB; a small statement holds a few of its slots.
    static let defaultTransientCapacity = 8

    init(capacity: Int, transientCapacity: Int = StatementCache.defaultTransientCapacity) {
        self.capacity = capacity
        self.transientCapacity = min(capacity, transientCapacity)
    }

    /// The number of statements kept.
    var count: Int { statements.count }

    /// The statement a loop ran last, handed out when `sql` is the same string (the same storage, or the same
    /// short string) and the statement is free; `nil` otherwise, without counting a miss: ``checkOut(_:)`` decides
    /// then. Inline: no hashing and no call.
    @inlinable
    func checkOutMostRecent(_ sql: String) -> Statement? {
        guard MemoryLayout<String>.size == MemoryLayout<(UInt64, UInt64)>.size,
            let recent = mostRecent?.takeUnretainedValue(), !recent.isCheckedOut, !recent.isFinalized,
            unsafeBitCast(recent.sql, to: (UInt64, UInt64).self) == unsafeBitCast(sql, to: (UInt64, UInt64).self)
        else { return nil }
        hits &+= 1
        recent.isCheckedOut = true
        return recent
    }

    /// Hands out the cached statement for `sql` unless it is already out; `nil` means: prepare one.
    @usableFromInline
    func checkOut(_ sql: String) -> Statement? {
        // The same SQL as last time (a loop): no hashing, no reference counting until the statement is handed out.
        if let recent = mostRecent?.takeUnretainedValue(), Self.isSame(recent.sql, sql), !recent.isCheckedOut,
            !recent.isFinalized
        {
            return hand(recent)
        }
        guard capacity > 0, let statement = statements[Self.fingerprint(of: sql)], Self.isSame(statement.sql, sql),
            !statement.isCheckedOut, !statement.isFinalized
        else {
            misses += 1
            return nil
        }
        return hand(statement)
    }

    /// Hands out a kept statement. It stays on its list, where eviction skips it (and takes it off then): in a
    /// loop, a statement checked out and in again stays the newest, and its list does not change.
    @inline(__always)
    private func hand(_ statement: Statement) -> Statement {
        hits += 1
        statement.isCheckedOut = true
        mostRecent = Unmanaged.passUnretained(statement)
        return statement
    }

    /// Whether a statement about to be prepared for `sql` should be prepared persistent (its SQL came back after
    /// an eviction), and the fingerprint of `sql` to give the statement (``Statement/cacheFingerprint``) when the
    /// cache will see it.
    @usableFromInline
    func persistence(for sql: String) -> (persistent: Bool, fingerprint: Int?) {
        guard capacity > 0 else { return (false, nil) }
        let fingerprint = Self.fingerprint(of: sql)
        // With a capacity within the transient one, every statement is kept the same way: no flag is needed.
        let persistent = capacity > transientCapacity && evicted.contains(fingerprint)
        return (persistent, fingerprint)
    }

    /// Takes a reset statement back. A statement new to the cache is kept when no twin is, evicting the least
    /// recently used statement that is not out when the cache is full.
    ///
    /// Inline, the case of a loop: the statement is the most recent one and the newest of its list, so only its
    /// flag and its age change. Anything else is ``checkInAny(_:)``.
    @inlinable
    func checkIn(_ statement: Statement) {
        if let recent = mostRecent, recent.toOpaque() == Unmanaged.passUnretained(statement).toOpaque(),
            statement.isNewestOnCacheList, !statement.isFinalized
        {
            statement.isCheckedOut = false
            clock &+= 1
            statement.cacheAge = clock
            return
        }
        checkInAny(statement)
    }

    /// ``checkIn(_:)`` for every case.
    @usableFromInline
    func checkInAny(_ statement: Statement) {
        statement.isCheckedOut = false
        if statement.isInCache {
            if !statement.isFinalized { pushFront(statement) }
            return
        }
        guard capacity > 0, !statement.isFinalized else { return }  // caching is off
        let fingerprint = statement.cacheFingerprint ?? Self.fingerprint(of: statement.sql)
        statement.cacheFingerprint = fingerprint
        // One lookup: keep the statement unless a twin (or a text with the same fingerprint) is kept.
        guard Self.insertIfAbsent(statement, into: &statements[fingerprint]) else { return }
        statement.isInCache = true
        if !statement.isPersistent {
            transientCount += 1
            if transientCount > transientCapacity, let victim = transientList.oldestIdle() { evict(victim) }
        }
        if statements.count > capacity {
            let victim: Statement?
            switch (transientList.oldestIdle(), persistentList.oldestIdle()) {
            case (let transient?, let persistent?):
                victim = transient.cacheAge < persistent.cacheAge ? transient : persistent
            case (let transient?, nil): victim = transient
            case (nil, let persistent?): victim = persistent
            case (nil, nil): victim = nil
            }
            guard let victim else {
                // Every other kept statement is out: keep no more than the capacity.
                forget(statement)
                return
            }
            evict(victim)
        }
        pushFront(statement)
        mostRecent = Unmanaged.passUnretained(statement)
    }

    /// Removes a kept statement that is not out, and remembers its SQL.
    private func evict(_ victim: Statement) {
        unlink(victim)
        if evicted.count >= capacity { evicted.removeAll(keepingCapacity: true) }
        evicted.insert(victim.cacheFingerprint ?? Self.fingerprint(of: victim.sql))
        forget(victim)
    }

    /// Removes a kept statement from the dictionary and the counts; it must be off the lists.
    private func forget(_ statement: Statement) {
        statement.isInCache = false
        if !statement.isPersistent { transientCount -= 1 }
        if mostRecent?.toOpaque() == Unmanaged.passUnretained(statement).toOpaque() { mostRecent = nil }
        if let fingerprint = statement.cacheFingerprint { statements.removeValue(forKey: fingerprint) }
    }

    /// Stores `statement` in an empty dictionary slot, through the subscript's in-place accessor: one lookup.
    private static func insertIfAbsent(_ statement: Statement, into slot: inout Statement?) -> Bool {
        guard slot == nil else { return false }
        slot = statement
        return true
    }

    /// Puts a kept statement at the front of its list.
    @inline(__always)
    private func pushFront(_ statement: Statement) {
        clock &+= 1
        statement.cacheAge = clock
        if statement.isPersistent {
            persistentList.pushFront(statement)
        } else {
            transientList.pushFront(statement)
        }
    }

    /// Takes a statement off its list, if it is on one.
    private func unlink(_ statement: Statement) {
        guard statement.isOnCacheList else { return }
        if statement.isPersistent {
            persistentList.unlink(statement)
        } else {
            transientList.unlink(statement)
        }
    }

    /// Empties the cache; the statements are finalized when released (at once, unless one is in use).
    func removeAll() {
        for statement in statements.values {
            statement.isInCache = false
            statement.isOnCacheList = false
            statement.isNewestOnCacheList = false
            statement.cacheNewer = nil
            statement.cacheOlder = nil
        }
        persistentList = List()
        transientList = List()
        transientCount = 0
        statements.removeAll()
        mostRecent = nil
        evicted.removeAll()
    }

    /// Whether two SQL texts are the same: byte counts first, which tells most different texts apart at once
    /// (the string comparison would look at their bytes).
    @inline(__always)
    private static func isSame(_ left: String, _ right: String) -> Bool {
        // The same string storage (a loop passing the same literal or variable) needs no further look. The check
        // is folded away where a `String` is not two words.
        if MemoryLayout<String>.size == MemoryLayout<(UInt64, UInt64)>.size {
            let leftWords = unsafeBitCast(left, to: (UInt64, UInt64).self)
            let rightWords = unsafeBitCast(right, to: (UInt64, UInt64).self)
            if leftWords.0 == rightWords.0, leftWords.1 == rightWords.1 { return true }
        }
        return left.utf8.count == right.utf8.count && left == right
    }

    /// A cheap 64-bit hash of the SQL's UTF-8 bytes, eight at a time (the standard library's seeded hash costs
    /// about ten times as much on SQL of a few dozen bytes). Not a defence against chosen collisions, which only
    /// cost the cache a statement: the SQL is always compared too.
    @usableFromInline
    static func fingerprint(of sql: String) -> Int {
        sql.utf8.withContiguousStorageIfAvailable { bytes -> Int in
            let raw = UnsafeRawBufferPointer(bytes)
            let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(truncatingIfNeeded: raw.count)
            var offset = 0
            while offset &+ 8 <= raw.count {
                let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                hash = (hash ^ word) &* multiplier
                hash ^= hash >> 29
                offset &+= 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while offset < raw.count {
                tail |= UInt64(raw[offset]) << shift
                shift &+= 8
                offset &+= 1
            }
            hash = (hash ^ tail) &* multiplier
            hash ^= hash >> 32
            return Int(truncatingIfNeeded: hash)
        } ?? sql.hashValue
    }
}

extension StatementCache {
    /// A doubly linked list of kept statements through their ``Statement/cacheNewer`` and
    /// ``Statement/cacheOlder``, most recently checked in first. Unretained: the cache's dictionary retains every
    /// statement on a list.
    struct List {
        var newest: Unmanaged<Statement>?
        var oldest: Unmanaged<Statement>?

        /// The least recently checked-in statement that is not checked out; the checked-out statements met on the
        /// way are taken off the list (checking them in puts them back at the front).
        mutating func oldestIdle() -> Statement? {
            while let statement = oldest?.takeUnretainedValue() {
                if !statement.isCheckedOut { return statement }
                unlink(statement)
            }
            return nil
        }

        mutating func pushFront(_ statement: Statement) {
            if let newest, newest.toOpaque() == Unmanaged.passUnretained(statement).toOpaque() { return }
            unlink(statement)
            let node = Unmanaged.passUnretained(statement)
            statement.cacheOlder = newest
            statement.cacheNewer = nil
            if let newest {
                newest.takeUnretainedValue().cacheNewer = node
                newest.takeUnretainedValue().isNewestOnCacheList = false
            }
            statement.isNewestOnCacheList = true
            newest = node
            if oldest == nil { oldest = node }
            statement.isOnCacheList = true
        }

        mutating func unlink(_ statement: Statement) {
            guard statement.isOnCacheList else { return }
            let newer = statement.cacheNewer
            let older = statement.cacheOlder
            if let newer { newer.takeUnretainedValue().cacheOlder = older } else { newest = older }
            if let older { older.takeUnretainedValue().cacheNewer = newer } else { oldest = newer }
            if newer == nil, let older { older.takeUnretainedValue().isNewestOnCacheList = true }
            statement.cacheNewer = nil
            statement.cacheOlder = nil
            statement.isOnCacheList = false
            statement.isNewestOnCacheList = false
        }
    }
}
