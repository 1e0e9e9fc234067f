import SQLiteBindings

// MARK: - Vacuum

extension Database {
    /// Rebuilds the database of the schema `schema` (`main` by default) into a compact file, which also applies a
    /// changed `page_size` or `auto_vacuum`. It needs up to twice the database's size in temporary space and
    /// cannot run inside a transaction.
    ///
    /// Related SQLite documentation: <https://sqlite.org/lang_vacuum.html>
    public func vacuum(schema: String = "main") throws {
        try execute("VACUUM \(try Database.quoteIdentifier(schema))")
    }

    /// Writes a compacted copy of the schema `schema` into a new database file at `path` (or a `file:` URI),
    /// leaving this database unchanged: a backup that is also vacuumed. The file must not exist or be empty.
    ///
    /// Related SQLite documentation: <https://sqlite.org/lang_vacuum.html#vacuuminto>
    public func vacuum(into path: String, schema: String = "main") throws {
        // The file name is an expression, so it is bound.
        let statement = try prepare("VACUUM \(try Database.quoteIdentifier(schema)) INTO ?")
        try statement.execute(path)
    }

    /// Moves up to `pageCount` free pages (every free page when `nil`) to the end of the file and truncates it:
    /// only in a database with `PRAGMA auto_vacuum = INCREMENTAL`, otherwise it does nothing.
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_incremental_vacuum>
    public func incrementalVacuum(pageCount: Int? = nil, schema: String = "main") throws {
        let argument = pageCount.map { "(\(max(0, $0)))" } ?? ""
        try execute("PRAGMA \(try Database.quoteIdentifier(schema)).incremental_vacuum\(argument)")
    }
}

// MARK: - Checkpoints

extension Database {
    /// What a WAL checkpoint did, in frames (a frame is one page written to the WAL file).
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/wal_checkpoint_v2.html>
    public struct CheckpointResult: Sendable, Hashable {
        /// The frames in the WAL file, or -1 when the database is not in WAL mode (0 after a `.truncate`
        /// checkpoint, which empties the file).
        public var walFrameCount: Int
        /// The frames copied back into the database, or -1 when the database is not in WAL mode.
        public var checkpointedFrameCount: Int

        /// A result with these counts.
        public init(walFrameCount: Int, checkpointedFrameCount: Int) {
            self.walFrameCount = walFrameCount
            self.checkpointedFrameCount = checkpointedFrameCount
        }
    }

    /// Copies the content of the WAL file back into the database file: `.passive` copies what it can without
    /// waiting; `.full` waits for writers, then copies everything; `.restart` also waits for readers so the next
    /// writer starts the WAL file over; `.truncate` also truncates the WAL file to zero bytes.
    ///
    /// - Parameters:
    ///   - mode: how hard to try, `.passive` by default.
    ///   - schema: one schema, or `nil` (the default) for every database of the connection.
    /// - Throws: `SQLITE_BUSY` when a `.full`, `.restart` or `.truncate` checkpoint could not finish because of
    ///   other connections (after the busy handling gave up); ``DatabaseError/Reason/noSuchSchema(_:)``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/wal_checkpoint_v2.html>
    @discardableResult
    public func checkpoint(_ mode: CheckpointMode = .passive, schema: String? = nil) throws -> CheckpointResult {
        let connection = try connection()
        if let schema { try checkSchemaExists(schema) }
        let result = connection.checkpoint(schema: schema, mode: mode)
        guard result.code == .ok else { throw error(result.code, sql: nil) }
        return CheckpointResult(
            walFrameCount: Int(result.logFrameCount), checkpointedFrameCount: Int(result.checkpointedFrameCount))
    }
}

// MARK: - Journal, synchronous, memory

extension Database {
    /// How SQLite makes transactions atomic: the journal mode.
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_journal_mode>
    public enum JournalMode: String, Sendable, Hashable, CaseIterable {
        /// A rollback journal, deleted at the end of each transaction (the default for files).
        case delete
        /// A rollback journal, truncated to zero bytes at the end of each transaction.
        case truncate
        /// A rollback journal whose header is zeroed at the end of each transaction.
        case persist
        /// A rollback journal in memory (the only mode of in-memory databases besides `.off`).
        case memory
        /// Write-ahead logging: readers do not block the writer, nor the writer readers.
        case wal
        /// No journal: a crash or `ROLLBACK` can corrupt the database. A defensive connection (the default,
        /// ``Database/Configuration/isDefensive``) refuses it.
        case off
    }

    /// How often SQLite waits for data to reach the disk.
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_synchronous>
    public enum SynchronousLevel: Int, Sendable, Hashable, CaseIterable {
        /// Never: fastest, and a power loss can corrupt the database.
        case off = 0
        /// At critical moments; in WAL mode, durable except for the last transactions before a power loss.
        case normal = 1
        /// At every commit (the default).
        case full = 2
        /// Like `.full`, and the directory too after a rollback journal is deleted.
        case extra = 3
    }

    /// The size of the page cache: a number of pages, or an amount of memory.
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_cache_size>
    public enum CacheSize: Sendable, Hashable {
        /// At most this many pages.
        case pages(Int)
        /// About this many KiB (1024 bytes), whatever the page size.
        case kibibytes(Int)
    }

    /// The journal mode of the schema `schema`.
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_journal_mode>
    public func journalMode(schema: String = "main") throws -> JournalMode {
        try journalMode(
            from: queryValue("PRAGMA \(try Database.quoteIdentifier(schema)).journal_mode", as: String.self))
    }

    /// Sets the journal mode of the schema `schema`, and checks that SQLite applied it.
    ///
    /// ```swift
    /// try db.setJournalMode(.wal)
    /// ```
    ///
    /// - Throws: ``DatabaseError/Reason/journalModeNotApplied(requested:actual:)`` when SQLite kept another mode
    ///   (an in-memory database cannot use `.wal`; no mode changes inside a transaction, ...).
    public func setJournalMode(_ mode: JournalMode, schema: String = "main") throws {
        let sql = "PRAGMA \(try Database.quoteIdentifier(schema)).journal_mode = \(mode.rawValue)"
        let actual = try journalMode(from: queryValue(sql, as: String.self))
        guard actual == mode else {
            throw DatabaseError(
                extendedCode: .error, message: "SQLite kept journal mode \(actual.rawValue), not \(mode.rawValue)",
                sql: sql, reason: .journalModeNotApplied(requested: mode.rawValue, actual: actual.rawValue))
        }
    }

    private func journalMode(from name: String?) throws -> JournalMode {
        guard let name, let mode = JournalMode(rawValue: name.lowercased()) else {
            throw DatabaseError(extendedCode: .error, message: "unknown journal mode \(name ?? "NULL")")
        }
        return mode
    }

    /// The synchronous level of the schema `schema`.
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_synchronous>
    public func synchronousLevel(schema: String = "main") throws -> SynchronousLevel {
        let value = try queryValue("PRAGMA \(try Database.quoteIdentifier(schema)).synchronous", as: Int.self) ?? 2
        return SynchronousLevel(rawValue: value) ?? .full
    }

    /// Sets the synchronous level of the schema `schema` (it cannot change inside a transaction).
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_synchronous>
    public func setSynchronousLevel(_ level: SynchronousLevel, schema: String = "main") throws {
        try execute("PRAGMA \(try Database.quoteIdentifier(schema)).synchronous = \(level.rawValue)")
    }

    /// The size of the page cache of the schema `schema`, as set (SQLite's default is 2000 KiB).
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_cache_size>
    public func cacheSize(schema: String = "main") throws -> CacheSize {
        let value = try queryValue("PRAGMA \(try Database.quoteIdentifier(schema)).cache_size", as: Int.self) ?? 0
        return value < 0 ? .kibibytes(0 &- value) : .pages(value)
    }

    /// Sets the size of the page cache of the schema `schema`, for this connection only.
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_cache_size>
    public func setCacheSize(_ size: CacheSize, schema: String = "main") throws {
        // SQLite reads a negative count as KiB.
        let value: Int
        switch size {
        case .pages(let pages): value = max(0, pages)
        case .kibibytes(let kibibytes): value = 0 &- max(0, kibibytes)
        }
        try execute("PRAGMA \(try Database.quoteIdentifier(schema)).cache_size = \(value)")
    }

    /// Frees as much memory of the connection's page caches as it can (`sqlite3_db_release_memory`), for example
    /// when the app is told memory is low.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/db_release_memory.html>
    public func releaseMemory() throws {
        let connection = try connection()
        let code = connection.releaseMemory()
        if code != .ok { throw error(code, sql: nil) }
    }
}
