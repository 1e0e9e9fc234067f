import SQLiteBindings

/// `sqlite3_initialize`, run once per process before the first connection opens. SQLite would initialize itself
/// inside the first `sqlite3_open_v2`, but two threads opening their first connections at once then race on its
/// first-time set-up (harmless by SQLite's design, yet reported by ThreadSanitizer). Swift runs a global's
/// initializer exactly once, under a lock, whichever thread gets there first.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/initialize.html>
private let libraryInitialization: ResultCode = SQLiteLibrary.initialize()

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
    /// The SQLite connection, for calling `SQLiteBindings` directly; `nil` once closed.
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
    /// Set when a savepoint's rollback failed inside a transaction: the transaction open now only rolls back, and
    /// its commit throws this (see `abandonSavepoint(_:isNested:)`).
    var abortedTransactionError: DatabaseError?
    /// Set on the connection of a queue or a pool's writer: refuses its commits while a suspension interrupts the
    /// access in progress (SerializedDatabase+Suspension.swift).
    var commitVeto: CommitVeto?
    /// Every live session, so closing can delete them first, as SQLite requires. Unretained: a session removes
    /// itself when deleted or released.
    @exclusivity(unchecked) var liveSessions: [ObjectIdentifier: Unmanaged<Session>] = [:]
    /// Whether a changeset is being applied, so a second apply from its conflict handler is refused.
    var isApplyingChangeset = false
    /// The thread-safe handle that can interrupt this connection.
    public let interruptHandle: InterruptHandle
    /// How the connection waits for locks now: the configuration's ``Configuration/busyMode`` after open, then
    /// whatever ``setBusyMode(_:)`` set last; ``BusyMode/immediateError`` once closed.
    public internal(set) var busyMode: BusyMode = .immediateError
    /// Counts the user closures SQLite is running, so closing from inside one waits for the running statement.
    @usableFromInline let runningCallbacks = RunningCallbacks()
    /// The connection after ``close()`` was called from inside a callback, until the running statement returns.
    @exclusivity(unchecked) private var retiredConnection: ConnectionHandle?
    /// The cipher of the main database, or `nil` while it is plain (maintained by Database+Keys.swift and
    /// Database+KeyChange.swift).
    var mainCipher: Cipher?
    /// Set from the commit point of an atomic key change until the connection reopened on the new file: the next
    /// access reopens it (see Database+AtomicKeyChange.swift). It holds the new key until then.
    var pendingReopen: PendingReopen?
    /// The custom functions and collations the connection had when a queue's or pool's set-up hook finished on it
    /// (see ``customDefinitions()``); a key change runs the hook again, so those are re-created, and refuses to
    /// lose any other.
    var setUpDefinitions: Set<String>?
    /// Set while this connection is the destination of a running backup, which SQLite says nothing may use (not
    /// even close) until the backup finishes: calls throw, and ``close()`` is deferred to the backup's end.
    @exclusivity(unchecked) @usableFromInline var isBackupDestination = false
    /// Set when ``close()`` was called while ``isBackupDestination`` was set.
    @exclusivity(unchecked) var closeRequestedDuringBackup = false
    /// The transaction observers and what the transaction in progress changed, shared with every statement of the
    /// connection, so that a statement's end asks whether an observer is registered without going through its
    /// unowned reference to the connection (see Database+TransactionObservers.swift).
    @usableFromInline let observation = TransactionObservationBroker()
    /// The cross-process write gate, opened by the first write transaction when the configuration asks for it.
    var writeGate: WriteGate?

    /// Opens (and by default creates) a database.
    ///
    /// - Parameters:
    ///   - path: a file path; `nil` or `":memory:"` for a private in-memory database; `""` for a private temporary
    ///     database deleted on close (this build sets `SQLITE_TEMP_STORE=2`, so SQLite keeps it in memory rather
    ///     than in an unencrypted file); or a `file:` URI (`file:data.db?mode=ro`).
    ///   - configuration: open flags, VFS, busy handling and the defaults applied at open.
    /// - Throws: ``DatabaseError`` with SQLite's code and message, and the path in ``DatabaseError/path``;
    ///   nothing stays open. An existing file that is not a database throws ``DatabaseError/Reason/notADatabase``
    ///   here (see ``Configuration/checksHeaderAtOpen``); a `file:` URI with a key parameter throws
    ///   ``DatabaseError/Reason/keyInURI``.
    public init(path: String? = nil, configuration: Configuration = Configuration()) throws {
        let path = path ?? ":memory:"
        self.path = path
        var kept = configuration
        kept.key = nil  // the connection keeps no copy of the key
        self.configuration = kept
        self.statementCache = StatementCache(capacity: configuration.statementCacheCapacity)
        let initialization = libraryInitialization
        guard initialization == .ok else {
            var error = DatabaseError(extendedCode: initialization, message: "\(initialization)")
            error.path = path
            throw error
        }
        try Database.refuseURIKey(in: path)
        let (code, connection) = ConnectionHandle.open(
            path: path, flags: configuration.openFlags, vfs: configuration.vfs)
        guard code == .ok, let connection else {
            let message = connection?.errorMessage() ?? SQLiteLibrary.errorString(code) ?? "\(code)"
            let extended = connection.map { $0.extendedErrorCode() } ?? code
            _ = connection?.close()
            var error = DatabaseError(extendedCode: extended == .ok ? code : extended, message: message)
            error.path = path
            throw error
        }
        self.handle = connection
        self.interruptHandle = InterruptHandle(connection)
        do {
            try applyDefaults(connection)
            try checkHeaderAfterOpen(configuration: configuration)
            // After the defaults, which read nothing from the file, so the key's check waits on locks like any read.
            if let key = configuration.key { try applyKeyAtOpen(key, cipher: configuration.cipher) }
            // After the key: an extension's init function may read the database.
            try loadConfiguredExtensions()
        } catch {
            interruptHandle.invalidate()
            _ = connection.closeV2()
            handle = nil
            throw error
        }
    }

    deinit {
        close()
        // No closure of this connection can be running once nothing refers to it any more.
        if let retiredConnection { release(retiredConnection) }
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

    /// Whether the connection is open: `false` once ``close()`` was called, even from inside a callback whose
    /// statement has not finished yet, and after a key change that committed but could not reopen the connection
    /// (``DatabaseError/Reason/keyChangedButReopenFailed``) until the next access reopens it.
    public var isOpen: Bool { handle != nil }

    /// Closes the connection: finalizes every statement it prepared (cursors still open then throw
    /// `SQLITE_MISUSE`), deletes its sessions, removes its callbacks, and closes the file. Closing twice does nothing.
    ///
    /// Called from inside one of the connection's own callbacks (a trace, a progress or busy handler, a function, a
    /// collation, a tokenizer, a changeset's filter or conflict handler), while SQLite runs, the close is deferred:
    /// the connection is closed for its users at once (``isOpen`` is `false`, every later use throws
    /// ``DatabaseError/Reason/connectionClosed``, the running statement's next row too), and the statements and the
    /// file are released as soon as SQLite returns: freeing them under SQLite would crash.
    ///
    /// Closing the destination of a running backup (from its progress closure) stops the backup, which then
    /// closes the connection.
    public func close() {
        // Closed on purpose, a connection left closed by a committed key change stays closed.
        pendingReopen = nil
        guard let connection = handle else {
            // Closed from inside a callback, and that statement has returned: release the connection now.
            finishDeferredClose()
            return
        }
        guard !isBackupDestination else {
            closeRequestedDuringBackup = true
            return
        }
        interruptHandle.invalidate()
        handle = nil
        // Every statement becomes unusable now, including the cached transaction statements.
        for statement in liveStatements.values { statement.takeUnretainedValue().retire() }
        openCursorCount = 0
        // The observers' hooks go while the connection is open: when this close is deferred, SQLite still runs a
        // statement that would call them. An observer running now is kept by its caller.
        observation.removeAll(from: connection)
        if runningCallbacks.isRunningCallback {
            runningCallbacks.isClosing = true
            retiredConnection = connection
        } else {
            // Finalize before dropping the cached statements: a statement released while this connection is in its
            // `deinit` must find its handle finalized, and never read its unowned reference back to the connection.
            release(connection)
        }
        // The transaction statements stay referenced (finalized like the others): one of them may be running the
        // callback that closes, and it runs without a reference of its own (runTransactionStatement(_:)).
        statementCache.removeAll()
        // A busy handler closure may capture this connection: keeping it would make a cycle that outlives close.
        busyMode = .immediateError
        writeGate?.close()
        writeGate = nil
    }

    /// Closes the SQLite connection for a reopen on the same path: what an atomic key change does once it renamed
    /// the rewritten file over the original, which this connection still has open. The statements are finalized,
    /// as ``close()`` does; the busy mode is the caller's to restore (``openConnectionAgain(busyMode:)``).
    func closeConnectionForReopen() {
        guard let old = handle else { return }
        // The observers stay registered; their hooks go with the old handle, and reopenAfterKeyChange() installs
        // them on the new one.
        if observation.isActive { observation.uninstall(from: old) }
        interruptHandle.invalidate()
        handle = nil
        for statement in liveStatements.values { statement.takeUnretainedValue().retire() }
        openCursorCount = 0
        release(old)
        statementCache.removeAll()
        transactionStatements = TransactionStatements()
        savepointDepth = 0
        abortedTransactionError = nil
        busyMode = .immediateError
    }

    /// Opens a new SQLite connection to the path (or to `openedPath`, the file a key change replaced) after
    /// ``closeConnectionForReopen()``, with the configuration and `busyMode`. When it cannot be opened, the connection stays closed and the error is thrown.
    func openConnectionAgain(busyMode keptBusyMode: BusyMode, at openedPath: String? = nil) throws {
        let path = openedPath ?? path
        let (code, connection) = ConnectionHandle.open(
            path: path, flags: configuration.openFlags, vfs: configuration.vfs)
        guard code == .ok, let connection else {
            _ = connection?.closeV2()
            var error = DatabaseError(extendedCode: code, message: SQLiteLibrary.errorString(code) ?? "\(code)")
            error.path = path
            throw error
        }
        handle = connection
        interruptHandle.replace(with: connection)
        do {
            try applyDefaults(connection)
            try setBusyMode(keptBusyMode)
        } catch {
            closeConnectionForReopen()
            throw error
        }
    }

    /// Finishes a close that was called from inside a callback, once no callback runs any more.
    @usableFromInline
    func finishDeferredClose() {
        guard let connection = retiredConnection, !runningCallbacks.isRunningCallback else { return }
        retiredConnection = nil
        runningCallbacks.isClosing = false
        release(connection)
    }

    /// Finalizes the statements, deletes the sessions and closes the file.
    private func release(_ connection: ConnectionHandle) {
        // Finalize first: a finalized statement no longer refers back to this connection when it is released.
        for statement in liveStatements.values { statement.takeUnretainedValue().finalize() }
        liveStatements.removeAll()
        // SQLite requires every session of a connection to be deleted before the connection closes.
        deleteSessions()
        // sqlite3_close_v2, not sqlite3_close: with anything left unfinalized (a statement prepared through `handle`,
        // a backup, a BLOB), sqlite3_close fails with SQLITE_BUSY and leaves the connection open, holding its locks,
        // with nothing left to close it. close_v2 makes it a zombie that SQLite closes when the last one is finalized.
        _ = connection.closeV2()
        // SQLite released its boxes of the trace, progress and busy closures: release them here too, so a closure
        // that captured this connection makes no cycle.
        runningCallbacks.removeAll()
    }

    /// The open connection; `SQLITE_MISUSE` once closed, or while it is the destination of a running backup. A
    /// connection a committed key change left closed is reopened here, with the new key.
    @usableFromInline
    func connection(for sql: String? = nil) throws -> ConnectionHandle {
        guard let handle, !isBackupDestination else {
            if handle == nil, pendingReopen != nil { return try reopenAfterKeyChange() }
            throw connectionUnavailable(sql: sql)
        }
        return handle
    }

    /// The error of a use after close; finishes a deferred close on the way, when it is safe.
    @usableFromInline
    func closedError(sql: String?) -> DatabaseError {
        finishDeferredClose()
        return DatabaseError.misuse("the database is closed", sql: sql, reason: .connectionClosed)
    }

    /// Why ``connection(for:)`` has no connection to give.
    private func connectionUnavailable(sql: String?) -> DatabaseError {
        if handle != nil && isBackupDestination && !closeRequestedDuringBackup {
            return DatabaseError.misuse(
                "the connection is the destination of a running backup", sql: sql, reason: .backupInProgress)
        }
        return closedError(sql: sql)
    }

    /// Makes the error for a failed call, with SQLite's message and the offset of the failing token.
    @usableFromInline
    func error(_ code: ResultCode, sql: String?) -> DatabaseError {
        guard let handle else { return DatabaseError(extendedCode: code, message: "\(code)", sql: sql) }
        let extended = handle.extendedErrorCode()
        let offset = handle.errorOffset()
        return DatabaseError(
            extendedCode: extended.primary == code.primary ? extended : code,
            message: Database.withHint(handle.errorMessage() ?? "\(code)"),
            sql: sql,
            errorOffset: sql != nil && offset >= 0 ? Int(offset) : nil,
            reason: runningCallbacks.takeFailureReason(message: handle.errorMessage())
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
        let result = sql.withCString { text -> (ResultCode, StatementHandle?, Int) in
            let (code, statement, tail) = connection.prepare(sql: text, byteCount: -1, flags: flags)
            return (code, statement, tail.map { $0 - text } ?? 0)
        }
        let (code, statementHandle, tailOffset) = result
        // A callback SQLite ran while preparing (a progress handler, while the schema is read) may have closed the
        // connection: the new statement must not run on it.
        guard handle != nil else {
            _ = statementHandle?.finalize()
            throw closedError(sql: sql)
        }
        guard code == .ok else {
            // SQLite stops reading at a NUL: say so rather than report an error in the truncated text.
            if let offset = Database.nulOffset(in: sql) { throw Database.nulError(offset: offset, sql: sql) }
            throw error(code, sql: sql)
        }
        // Only white space, semicolons and comments may follow the one statement. SQLite stops at the first NUL,
        // so the tail is taken from the Swift string, whose UTF-8 count includes whatever follows a NUL.
        let utf8 = sql.utf8
        if tailOffset < utf8.count {
            let rest = Substring(utf8[utf8.index(utf8.startIndex, offsetBy: tailOffset)...])
            if let offset = Database.nulOffset(in: sql) {
                _ = statementHandle?.finalize()
                throw Database.nulError(offset: offset, sql: sql)
            }
            if !Database.isOnlyComments(rest) {
                _ = statementHandle?.finalize()
                let tail = String(rest.drop { $0.isWhitespace || $0 == ";" }.prefix(40))
                throw DatabaseError.misuse(
                    "the SQL holds more than one statement (unused: \"\(tail)\"); use executeScript(_:) to run several",
                    sql: sql,
                    reason: .multipleStatements(tail: tail)
                )
            }
        }
        guard let statementHandle else {
            throw DatabaseError.misuse("the SQL holds no statement", sql: sql, reason: .noStatement)
        }
        return register(Statement(handle: statementHandle, sql: sql, database: self, isCached: isCached))
    }

    /// The byte offset of the first NUL in `sql`, if any.
    static func nulOffset(in sql: String) -> Int? {
        var offset = 0
        for byte in sql.utf8 {
            if byte == 0 { return offset }
            offset += 1
        }
        return nil
    }

    /// The error of SQL holding a NUL, which SQLite would silently treat as the end of the text.
    static func nulError(offset: Int, sql: String) -> DatabaseError {
        DatabaseError.misuse(
            "the SQL holds a NUL character at byte \(offset); SQLite would ignore the text after it",
            sql: sql,
            reason: .embeddedNUL(offset: offset)
        )
    }

    /// Records a new statement, so closing the connection finalizes it.
    func register(_ statement: Statement) -> Statement {
        liveStatements[ObjectIdentifier(statement)] = Unmanaged.passUnretained(statement)
        // The tables the authorizer saw this statement write while it was prepared, for the transaction observers.
        if observation.isActive {
            let authorized = observation.takeAuthorizedWrites()
            statement.writtenTables = authorized.tables
            statement.savepointCommand = authorized.savepoint
            statement.writesSchema = authorized.writesSchema
        }
        return statement
    }

    /// Whether `text` holds only SQL comments and white space.
    static func isOnlyComments(_ text: Substring) -> Bool {
        var rest = text
        while let first = rest.first {
            if first.isWhitespace || first == ";" {
                rest = rest.dropFirst()
            } else if rest.hasPrefix("--") {
                rest = rest.drop { $0 != "\n" }
            } else if rest.hasPrefix("/*") {
                // The first `*/` from the comment's start, found by hand: `range(of:)` is in full Foundation only.
                var end = rest
                while !end.isEmpty, !end.hasPrefix("*/") { end = end.dropFirst() }
                guard !end.isEmpty else { return true }
                rest = end.dropFirst(2)
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
    ///
    /// Inline, the statement a loop ran last (a closed connection's statements are finalized, so never handed
    /// out); anything else is ``cachedStatementAny(_:)``.
    @inlinable
    func cachedStatement(_ sql: String) throws -> Statement {
        if !isBackupDestination, let statement = statementCache.checkOutMostRecent(sql) { return statement }
        return try cachedStatementAny(sql)
    }

    /// ``cachedStatement(_:)`` for every case.
    @usableFromInline
    func cachedStatementAny(_ sql: String) throws -> Statement {
        if handle == nil || isBackupDestination { _ = try connection(for: sql) }  // throws the reason
        if let statement = statementCache.checkOut(sql) { return statement }
        // SQLITE_PREPARE_PERSISTENT only for SQL the cache saw before: it keeps SQLite off its lookaside allocator,
        // which slows down preparing and finalizing a statement that is used once.
        let (persistent, fingerprint) = statementCache.persistence(for: sql)
        let statement = try prepare(sql, persistent: persistent, isCached: true)
        statement.cacheFingerprint = fingerprint
        statement.isPersistent = persistent
        return statement
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

    /// Ends every open cursor, so that its next read throws `error`. Used by a queue or pool when an access ends:
    /// a cursor kept past its access must not be read from the thread of a later one.
    func endOpenCursors(throwing error: DatabaseError) {
        guard openCursorCount > 0 else { return }
        // Strong references first: closing a cursor can return its statement to the cache, which can evict and
        // release another one, changing `liveStatements`.
        let cursors = liveStatements.values.compactMap { $0.takeUnretainedValue().openCursor?.takeUnretainedValue() }
        for cursor in cursors { cursor.end(throwing: error) }
    }

    // MARK: - State

    /// The rowid of the last successful `INSERT` on this connection.
    public var lastInsertRowID: Int64 { handle?.lastInsertRowID() ?? 0 }

    /// The rows changed by the last `INSERT`, `UPDATE` or `DELETE`.
    public var changes: Int64 { handle?.changes() ?? 0 }

    /// The rows changed since the connection opened.
    public var totalChanges: Int64 { handle?.totalChanges() ?? 0 }

    /// Whether a transaction is open, as SQLite itself reports it (`sqlite3_get_autocommit`), not from a flag.
    @inlinable
    public var isInTransaction: Bool { handle.map { !$0.isAutocommit() } ?? false }

    /// Interrupts the statement running on this connection; it fails with `SQLITE_INTERRUPT` and the connection
    /// stays usable. From another thread, use ``interruptHandle``.
    public func interrupt() {
        interruptHandle.interrupt()
    }
}

@available(*, unavailable, message: "a connection is used from one thread at a time; use DatabaseQueue or DatabasePool")
extension Database: Sendable {}
