import SQLiteBindings

/// A connection to a SQLite database: the Swift counterpart of FMDB's `FMDatabase`.
///
/// ```swift
/// let db = try Database(path: "/path/to/app.sqlite")
/// try db.execute("CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INT)")
/// try db.execute("INSERT INTO player (name, score) VALUES (?, ?)", "Arthur", 100)
/// let rows = try db.query("SELECT name, score FROM player ORDER BY score DESC")
/// while let row = try rows.next() {
///     print(try row.value(named: "name") as String, try row.value(at: 1) as Int)
/// }
/// ```
///
/// A connection is not `Sendable`: use it from one thread or task at a time (the queue and the pool give safe
/// access from many). Only ``interruptHandle`` may be used from another thread.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/sqlite3.html>
public final class Database {
    // Mutable state is `@exclusivity(unchecked)`: a connection is confined to one thread at a time, and dynamic
    // exclusivity checks on every call would cost more than many of SQLite's own calls.
    /// The SQLite connection, for calling ``SQLiteBindings`` directly; `nil` once closed.
    @exclusivity(unchecked) public private(set) var handle: ConnectionHandle?
    /// The path given at open (`:memory:` for an in-memory database, empty for a temporary one).
    public let path: String
    /// The options the connection was opened with.
    public let configuration: Configuration
    /// Prepared statements kept for reuse, keyed by SQL.
    @usableFromInline let statementCache: StatementCache
    /// Every live statement, so closing can finalize them. Unretained: a statement removes itself when released.
    @exclusivity(unchecked) private var liveStatements: [ObjectIdentifier: Unmanaged<Statement>] = [:]
    /// The number of cursors that have not reached their end.
    @exclusivity(unchecked) @usableFromInline var openCursorCount = 0
    /// `BEGIN`, `COMMIT` and `ROLLBACK`, prepared on first use.
    @exclusivity(unchecked) var transactionStatements = TransactionStatements()
    /// Savepoint names are numbered per connection, never through a global counter.
    var savepointDepth = 0
    /// The thread-safe handle that can interrupt this connection.
    public let interruptHandle: InterruptHandle
    /// The cipher of the main database, or `nil` while it is plain (maintained by Database+Encryption.swift).
    var mainCipher: Cipher?

    /// Opens (and by default creates) a database.
    ///
    /// - Parameters:
    ///   - path: a file path; `nil` or `":memory:"` for a private in-memory database; `""` for a private temporary
    ///     database deleted on close (this build sets `SQLITE_TEMP_STORE=2`, so SQLite keeps it in memory rather
    ///     than in an unencrypted file); or a `file:` URI (`file:data.db?mode=ro`).
    ///   - configuration: open flags, VFS, busy handling and the defaults applied at open.
    /// - Throws: ``DatabaseError`` with SQLite's code and message and the path; nothing stays open.
    public init(path: String? = nil, configuration: Configuration = Configuration()) throws {
        let path = path ?? ":memory:"
        self.path = path
        var kept = configuration
        kept.key = nil  // the connection keeps no copy of the key
        self.configuration = kept
        self.statementCache = StatementCache(capacity: configuration.statementCacheCapacity)
        let (code, connection) = ConnectionHandle.open(
            path: path, flags: configuration.openFlags, vfs: configuration.vfs)
        guard code == .ok, let connection else {
            let message = connection?.errorMessage() ?? "\(code)"
            let extended = connection.map { $0.extendedErrorCode() } ?? code
            _ = connection?.close()
            throw DatabaseError(extendedCode: extended == .ok ? code : extended, message: "\(message) (path: \(path))")
        }
        self.handle = connection
        self.interruptHandle = InterruptHandle(connection)
        do {
            try applyDefaults(connection)
            // After the defaults, which read nothing from the file, so the key's check waits on locks like any read.
            if let key = configuration.key { try applyKeyAtOpen(key, cipher: configuration.cipher) }
        } catch {
            interruptHandle.invalidate()
            _ = connection.closeV2()
            handle = nil
            throw error
        }
    }

    deinit {
        close()
    }

    /// Applies the configuration's defaults right after open.
    private func applyDefaults(_ connection: ConnectionHandle) throws {
        try check(connection.setExtendedResultCodes(configuration.usesExtendedResultCodes))
        try check(connection.configure(.defensive, configuration.isDefensive ? 1 : 0).code)
        try check(connection.configure(.enableFkey, configuration.foreignKeysEnabled ? 1 : 0).code)
        let doubleQuotedStrings: Int32 = configuration.allowsDoubleQuotedStringLiterals ? 1 : 0
        try check(connection.configure(.dqsDml, doubleQuotedStrings).code)
        try check(connection.configure(.dqsDdl, doubleQuotedStrings).code)
        try setBusyMode(configuration.busyMode)
    }

    private func check(_ code: ResultCode) throws {
        if code != .ok { throw error(code, sql: nil) }
    }

    /// Whether the connection is open.
    public var isOpen: Bool { handle != nil }

    /// Closes the connection: finalizes every statement it prepared (cursors still open then throw
    /// `SQLITE_MISUSE`), removes its callbacks, and closes the file. Closing twice does nothing.
    public func close() {
        guard let connection = handle else { return }
        interruptHandle.invalidate()
        // Finalize first: a finalized statement no longer refers back to this connection when it is released.
        for statement in liveStatements.values { statement.takeUnretainedValue().finalize() }
        liveStatements.removeAll()
        statementCache.removeAll()
        openCursorCount = 0
        // sqlite3_close_v2, not sqlite3_close: with anything left unfinalized (a statement prepared through `handle`,
        // a backup, a BLOB), sqlite3_close fails with SQLITE_BUSY and leaves the connection open, holding its locks,
        // with nothing left to close it. close_v2 makes it a zombie that SQLite closes when the last one is finalized.
        _ = connection.closeV2()
        handle = nil
    }

    /// The open connection, or `SQLITE_MISUSE` once closed.
    @usableFromInline
    func connection(for sql: String? = nil) throws -> ConnectionHandle {
        guard let handle else {
            throw DatabaseError.misuse("the database is closed", sql: sql, reason: .connectionClosed)
        }
        return handle
    }

    /// Makes the error for a failed call, with SQLite's message and the offset of the failing token.
    @usableFromInline
    func error(_ code: ResultCode, sql: String?) -> DatabaseError {
        guard let handle else { return DatabaseError(extendedCode: code, message: "\(code)", sql: sql) }
        let extended = handle.extendedErrorCode()
        let offset = handle.errorOffset()
        return DatabaseError(
            extendedCode: extended.primary == code.primary ? extended : code,
            message: handle.errorMessage() ?? "\(code)",
            sql: sql,
            errorOffset: sql != nil && offset >= 0 ? Int(offset) : nil
        )
    }

    // MARK: - Statements

    /// Compiles `sql`, which must hold exactly one statement, into a ``Statement`` you keep and run many times.
    ///
    /// - Throws: ``DatabaseError`` for invalid SQL (with the offset of the error), or `SQLITE_MISUSE` when `sql`
    ///   holds a second statement after the first.
    public func prepare(_ sql: String) throws -> Statement {
        try prepare(sql, persistent: false, isCached: false)
    }

    func prepare(_ sql: String, persistent: Bool, isCached: Bool) throws -> Statement {
        let connection = try connection(for: sql)
        let flags: PrepareFlags = persistent ? .persistent : []
        let result = sql.withCString { text -> (ResultCode, StatementHandle?, Bool) in
            let (code, statement, tail) = connection.prepare(sql: text, byteCount: -1, flags: flags)
            // Only white space, semicolons and comments may follow the one statement.
            let hasMore = tail.map { !Database.isOnlyComments(String(cString: $0)) } ?? false
            return (code, statement, hasMore)
        }
        let (code, statementHandle, hasMore) = result
        guard code == .ok else { throw error(code, sql: sql) }
        guard let statementHandle else {
            throw DatabaseError.misuse("the SQL holds no statement", sql: sql)
        }
        guard !hasMore else {
            _ = statementHandle.finalize()
            throw DatabaseError.misuse(
                "the SQL holds more than one statement; use executeScript(_:) to run several",
                sql: sql
            )
        }
        return register(Statement(handle: statementHandle, sql: sql, database: self, isCached: isCached))
    }

    /// Records a new statement, so closing the connection finalizes it.
    func register(_ statement: Statement) -> Statement {
        liveStatements[ObjectIdentifier(statement)] = Unmanaged.passUnretained(statement)
        return statement
    }

    /// Whether `text` holds only SQL comments and white space.
    static func isOnlyComments(_ text: String) -> Bool {
        var rest = Substring(text)
        while let first = rest.first {
            if first.isWhitespace || first == ";" {
                rest = rest.dropFirst()
            } else if rest.hasPrefix("--") {
                rest = rest.drop { $0 != "\n" }
            } else if rest.hasPrefix("/*") {
                guard let end = rest.range(of: "*/") else { return true }
                rest = rest[end.upperBound...]
            } else {
                return false
            }
        }
        return true
    }

    /// Called by a statement when it is released.
    func forget(_ statement: Statement) {
        liveStatements.removeValue(forKey: ObjectIdentifier(statement))
    }

    /// A statement for `sql` from the cache, or a newly prepared one that will be cached when returned.
    @usableFromInline
    func cachedStatement(_ sql: String) throws -> Statement {
        _ = try connection(for: sql)
        if let statement = statementCache.checkOut(sql) { return statement }
        return try prepare(sql, persistent: true, isCached: true)
    }

    /// The statement cache's size and use.
    public var statementCacheStatistics: (count: Int, capacity: Int, hits: Int, misses: Int) {
        (statementCache.count, statementCache.capacity, statementCache.hits, statementCache.misses)
    }

    /// Finalizes the cached statements (statements in use are finalized when they are done).
    public func clearStatementCache() {
        statementCache.removeAll()
    }

    /// The number of cursors that have not reached their end or been dropped.
    public var openCursors: Int { openCursorCount }

    // MARK: - State

    /// The rowid of the last successful `INSERT` on this connection.
    public var lastInsertRowID: Int64 { handle?.lastInsertRowID() ?? 0 }

    /// The rows changed by the last `INSERT`, `UPDATE` or `DELETE`.
    public var changes: Int64 { handle?.changes() ?? 0 }

    /// The rows changed since the connection opened.
    public var totalChanges: Int64 { handle?.totalChanges() ?? 0 }

    /// Whether a transaction is open, as SQLite itself reports it (`sqlite3_get_autocommit`), not from a flag.
    public var isInTransaction: Bool { handle.map { !$0.isAutocommit() } ?? false }

    /// Interrupts the statement running on this connection; it fails with `SQLITE_INTERRUPT` and the connection
    /// stays usable. From another thread, use ``interruptHandle``.
    public func interrupt() {
        interruptHandle.interrupt()
    }
}

@available(*, unavailable, message: "a connection is used from one thread at a time; use DatabaseQueue or DatabasePool")
extension Database: Sendable {}
