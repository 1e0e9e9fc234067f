import SQLiteBindings

/// An error from SQLite or from the toolkit's checks of a call: it names what was wrong.
///
/// Match it by code, without looking at the message:
///
/// ```swift
/// do {
///     try db.execute("INSERT INTO player (id) VALUES (?)", 1)
/// } catch ResultCode.constraint {
///     // any constraint violation: .constraintUnique, .constraintPrimarykey, ...
/// } catch let error as DatabaseError where error.extendedCode == .constraintUnique {
///     ...
/// }
/// ```
///
/// The bound arguments appear in the error only when the connection was opened with
/// ``Database/Configuration/includesArgumentsInErrors`` set: by default an error never carries user data.
///
/// The errors the toolkit detects itself (a closed connection, an argument mismatch, a second statement, ...)
/// also carry a typed ``reason``:
///
/// ```swift
/// } catch let error as DatabaseError where error.reason == .nestedTransaction {
/// ```
///
/// In Swift Testing, `#expect(throws: ResultCode.constraint)` cannot match a `DatabaseError`: that form casts the
/// thrown error to the expected value's type (`ResultCode`) and compares with `==`, and a `DatabaseError` is not a
/// `ResultCode`. Ask for the error's type instead; the macro returns the error, to check its code or reason:
///
/// ```swift
/// let error = #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (1)") }
/// #expect(error?.code == .constraint)
/// let nested = try #require(throws: DatabaseError.self) { try db.transaction { _ in try db.transaction { _ in } } }
/// #expect(nested.reason == .nestedTransaction)
/// ```
///
/// Related SQLite documentation: <https://sqlite.org/rescode.html>
public struct DatabaseError: ResultCodeError, Sendable, Hashable, CustomStringConvertible {
    /// The extended result code (`.constraintUnique`); the primary code is ``code``.
    public var extendedCode: ResultCode
    /// SQLite's message, or the toolkit's for errors it detects itself (`SQLITE_MISUSE` and `SQLITE_RANGE`
    /// codes are used for those).
    public var message: String
    /// The SQL that failed, when there is one, without the keys it spells out (the literal after `KEY`, the
    /// `key=`, `hexkey=` and `textkey=` parameters of a `file:` URI).
    public var sql: String?
    /// The byte offset in ``sql`` of the token SQLite blames, when it says (`sqlite3_error_offset`).
    public var errorOffset: Int?
    /// A description of the bound arguments, only when the connection opted in.
    public var arguments: String?
    /// Why the toolkit itself refused the call, for the errors it detects before or around SQLite (a closed
    /// connection, an argument mismatch, ...); `nil` for errors SQLite reports.
    public var reason: Reason?
    /// The path of the database that failed to open, for errors of ``Database/init(path:configuration:)``, or of
    /// the extension that failed to load (its library's path, or the name a linked extension was registered
    /// under); ``message`` stays SQLite's own.
    public var path: String?
    /// The 1-based index of the parameter that failed to bind, for bind errors.
    public var parameterIndex: Int?
    /// The name of the parameter that failed to bind (`:name`), when it has one.
    public var parameterName: String?

    /// Creates an error.
    public init(
        extendedCode: ResultCode,
        message: String,
        sql: String? = nil,
        errorOffset: Int? = nil,
        arguments: String? = nil,
        reason: Reason? = nil
    ) {
        self.extendedCode = extendedCode
        self.message = message
        // A key spelled out in the SQL (`KEY 'secret'`, a URI's `key=`) is left out; an offset into what was
        // hidden, or after it, no longer points at its token, so it is dropped.
        let hidden = sql.map(Self.hidingKeys(in:))
        self.sql = hidden?.sql
        if let errorOffset, let firstHidden = hidden?.firstHiddenOffset, errorOffset >= firstHidden {
            self.errorOffset = nil
        } else {
            self.errorOffset = errorOffset
        }
        self.arguments = arguments
        self.reason = reason
    }

    /// The primary result code (`.constraint` for `.constraintUnique`).
    public var code: ResultCode { extendedCode.primary }

    /// The extended code, so `catch ResultCode.busy` matches (see ``ResultCodeError``).
    public var resultCode: ResultCode { extendedCode }

    /// Whether a constraint (UNIQUE, NOT NULL, CHECK, FOREIGN KEY, ...) was violated.
    public var isConstraintViolation: Bool { code == .constraint }
    /// Whether the database was busy (another connection holds a lock) after the busy handling gave up.
    public var isBusy: Bool { code == .busy }
    /// Whether a table was locked by another statement of the same connection or a shared cache.
    public var isLocked: Bool { code == .locked }
    /// Whether the API was misused (a closed connection, a wrong argument count, ...).
    public var isMisuse: Bool { code == .misuse }
    /// Whether the file is not a database, or is encrypted with another key.
    public var isNotADatabase: Bool { code == .notadb }
    /// Whether the statement was interrupted by ``Database/interrupt()`` or a progress handler.
    public var isInterrupted: Bool { code == .interrupt }

    /// The code, the message, the SQL with the error position, and the arguments when included.
    public var description: String {
        var text = "SQLite error \(extendedCode.rawValue) (\(extendedCode.name ?? "unknown code")): \(message)"
        if let path { text += " — path: \(path)" }
        if let parameterIndex {
            text += " — parameter \(parameterIndex)"
            if let parameterName { text += " (\(parameterName))" }
        }
        if let sql {
            text += " — in SQL: \(sql)"
            if let errorOffset { text += " (at byte \(errorOffset))" }
        }
        if let arguments { text += " — arguments: \(arguments)" }
        return text
    }
}

extension DatabaseError {
    /// The error of a toolkit check that SQLite never sees: a wrong argument count, an unknown column, ...
    @usableFromInline
    static func misuse(_ message: String, sql: String? = nil, reason: Reason? = nil) -> DatabaseError {
        DatabaseError(extendedCode: .misuse, message: message, sql: sql, reason: reason)
    }

    /// The error of a value that cannot be read or bound as asked.
    @usableFromInline
    static func mismatch(_ message: String, sql: String? = nil, reason: Reason? = nil) -> DatabaseError {
        DatabaseError(extendedCode: .mismatch, message: message, sql: sql, reason: reason)
    }

    /// The error of an index or name out of range.
    @usableFromInline
    static func range(_ message: String, sql: String? = nil, reason: Reason? = nil) -> DatabaseError {
        DatabaseError(extendedCode: .range, message: message, sql: sql, reason: reason)
    }
}

extension DatabaseError {
    /// The errors the toolkit detects itself, so a program can tell them apart without reading messages.
    ///
    /// SQLite's code is kept beside the reason (`SQLITE_MISUSE`, `SQLITE_RANGE` or `SQLITE_MISMATCH`), so a
    /// `catch ResultCode.misuse` written for SQLite's own misuse errors keeps matching.
    ///
    /// ```swift
    /// do {
    ///     try db.execute("SELECT 1; SELECT 2")
    /// } catch let error as DatabaseError where error.reason == .multipleStatements(tail: "SELECT 2") {
    ///     ...
    /// }
    /// ```
    public enum Reason: Sendable, Hashable {
        // Each feature adds its cases in its own group below; keep the groups in this order.

        // MARK: Connection and statements
        /// The connection is closed (or the statement or cursor belonged to a connection that was closed since).
        /// Also the reason after ``Database/close()`` was called from inside one of the connection's own callbacks:
        /// the close then waits for the running statement to finish, and every use from then on throws this.
        case connectionClosed
        /// The statement has `expected` parameters and `given` positional arguments were passed.
        case argumentMismatch(expected: Int, given: Int)
        /// Named arguments match no parameter of the statement (the names, without their prefix, sorted).
        case unknownArgumentNames([String])
        /// Parameters of the statement got no named argument (the names as the SQL spells them).
        case missingArgumentNames([String])
        /// The same named argument was given twice, with and without its prefix (`"id"` and `":id"`).
        case duplicateArgumentName(String)
        /// A dictionary of named arguments was given to a statement whose parameter at `index` (1-based) is
        /// positional (`?` or `?NNN`).
        case positionalParameter(index: Int)
        /// A single-statement API got SQL with a second statement; `tail` is the start of what was left over.
        case multipleStatements(tail: String)
        /// The SQL holds no statement (only white space or comments).
        case noStatement
        /// The SQL holds a NUL character at byte `offset`; SQLite would silently ignore everything after it.
        case embeddedNUL(offset: Int)
        /// A transaction was begun while one is open; use ``Database/savepoint(_:)`` to nest.
        case nestedTransaction
        /// Rolling back to a savepoint failed (an I/O error, a full disk), so the whole enclosing transaction was
        /// rolled back: the statements run after it until the transaction's end are rolled back too, and its
        /// commit throws this. The code is the failed rollback's.
        case transactionAborted
        /// No result column has this name (compared case-insensitively).
        case columnNotFound(String)
        /// A column index is outside `0..<count`.
        case columnIndexOutOfRange(index: Int, count: Int)
        /// The statement is being read by an open cursor and cannot run again until the cursor ends.
        case statementInUse
        /// A single-value query that requires a row found none.
        case noRow
        /// NULL was read as a type that cannot hold it (read an optional instead).
        case unexpectedNull
        /// A stored value cannot be read as the type asked for, or a value cannot be stored (an integer above
        /// `Int64.max`, a date outside what its format holds, NaN).
        case valueMismatch

        // MARK: Functions
        /// A custom function's name is empty, longer than 255 bytes of UTF-8, or holds a NUL.
        case invalidFunctionName(String)
        /// A custom function's argument count is negative or above SQLite's limit.
        case invalidArgumentCount(Int)
        /// A custom function read an argument past the last one of its call.
        case functionArgumentOutOfRange(index: Int, count: Int)
        /// A collation's name is empty, longer than 255 bytes of UTF-8, or holds a NUL.
        case invalidCollationName(String)
        /// An FTS5 tokenizer's name is empty, longer than 255 bytes of UTF-8, or holds a NUL.
        case invalidTokenizerName(String)

        /// Text read as `String` is not valid UTF-8: `column` names the column (`nil` for a function's argument)
        /// and `byteOffset` is the offset of the first bad byte in the text. The code is `SQLITE_MISMATCH`; read the
        /// value as `Data`, `[UInt8]` or ``DatabaseValue`` (which replaces bad bytes with U+FFFD) instead.
        case invalidUTF8(column: String?, byteOffset: Int)
        /// The file is not a SQLite database: its first 16 bytes are not SQLite's header, found at open before
        /// anything reads it (the code is `SQLITE_NOTADB`, and ``DatabaseError/path`` names the file). An encrypted
        /// file looks the same: give its key in ``Database/Configuration/key``, or see
        /// ``Database/Configuration/checksHeaderAtOpen`` to set the key after open. Also thrown by
        /// ``Database/attach(path:as:key:cipher:)`` without a key for a file that is encrypted or not a database.
        case notADatabase

        // MARK: Encryption
        /// The key did not decrypt the file, or the file is not a database (`SQLITE_NOTADB`), found by reading
        /// the schema right after the key was applied.
        case wrongKeyOrNotADatabase
        /// A key was given for a database that is not encrypted: open it without a key, then call
        /// ``Database/encrypt(with:cipher:)``.
        case keyForPlainDatabase
        /// A `file:` URI given to open a database carries a key (`key=`, `hexkey=`, `textkey=`): the toolkit would
        /// not know the database is encrypted, and every reopen (a key change, ``DatabaseQueue/reopen()``, a new
        /// reader) would give the old key again. Give it in ``Database/Configuration/key`` instead.
        case keyInURI
        /// The operation needs an encrypted database and the database is plain.
        case notEncrypted
        /// The operation needs a plain database and the database is already encrypted.
        case alreadyEncrypted
        /// The passphrase is empty, which the codec takes as "no key".
        case invalidKey
        /// A raw key that is not 32 bytes (64 hex digits), or a cipher that takes no raw key of that size.
        case invalidRawKey
        /// The codec refused a cipher setting (an unknown scheme, an unknown parameter or a value out of range);
        /// `parameter` is `"cipher"` for the scheme itself.
        case cipherParameterRejected(cipher: String, parameter: String)
        /// A key change was asked for inside a transaction; commit or roll back first.
        case rekeyInTransaction
        /// A key change of a database file needs the only connection to it (it renames a rewritten copy over the
        /// file): another connection uses it. Nothing changed.
        case keyChangeNeedsSoleAccess
        /// A key change of a database file reopens the connection, which would lose something it holds (open
        /// cursors, sessions, attached databases, temporary tables, custom functions or collations, a trace or
        /// progress handler). Nothing changed.
        case keyChangeLosesConnectionState
        /// A key change, an encryption or a decryption on a connection opened read-only
        /// (``Database/Configuration/isReadOnly``, or a read-only file): it would rewrite the file. Nothing changed.
        case keyChangeOnReadOnlyConnection
        /// A key change of a database file committed (the rewritten file replaced the original, so the new key, or
        /// no key after ``Database/decrypt()``, is now the database's key), but reopening the connection on it
        /// failed. The connection reopens with the new key on its next access; until then ``Database/isOpen`` is
        /// `false`. Store the new key: the file needs it.
        case keyChangedButReopenFailed
        /// A key change of a database file committed and the connection uses the new key, but syncing the
        /// directory after the rename failed: until the directory is synced, a power cut may bring back the old
        /// file with the old key. Keep both keys until the next successful write.
        case keyChangedButNotDurable
        /// A key change, an encryption or a decryption of a database file with more than one hard link: the
        /// rewritten file replaces one name only, and the other names would keep the old content (a plain copy
        /// after ``Database/encrypt(with:cipher:)``, a file the old key opens after a key change). Remove the other
        /// links first. Nothing changed.
        case keyChangeOfHardLinkedFile
        /// A key change could not give the rewritten file an extended attribute of the original (the message names
        /// it). Nothing changed.
        case fileMetadataNotCopied
        /// Replacing a database file atomically (what a key change of a file does) is not available on this
        /// platform yet: on Windows, until a Windows machine has run it. Nothing changed.
        case atomicReplacementUnavailable
        /// ``Database/encrypt(with:cipher:)`` was asked of a database that Litestream replicates (it holds
        /// Litestream's table `_litestream_seq`): Litestream opens the file with an SQLite of its own, which cannot
        /// read an encrypted file, so replication would stop. Nothing changed. See <doc:ReplicatingWithLitestream>.
        case encryptingReplicatedDatabase

        // MARK: Concurrency
        /// An access to a ``DatabaseQueue`` or ``DatabasePool`` (or its `close()`) was started from inside an access
        /// to the same queue or pool on the same thread, where waiting would deadlock.
        case reentrantAccess
        /// The queue or pool was closed: ``DatabaseQueue/reopen()`` opens the queue again.
        case accessAfterClose
        /// A read access of a ``DatabasePool`` tried to write: its connections are read-only.
        case writeInReadAccess
        /// A ``DatabasePool`` needs a database file (WAL mode does not work in memory).
        case inMemoryPool
        /// The database could not be put in WAL mode, which a ``DatabasePool`` needs.
        case walModeUnavailable
        /// Every reader of a ``DatabasePool`` stayed busy until the reader timeout.
        case readerTimeout
        /// A ``DatabasePool`` setting it cannot honour, by name: `maximumReaderCount` below 1, a `readerTimeout`
        /// that is negative or not a number.
        case invalidPoolSetting(String)
        /// An ``ExternalChangeDetection`` the queue or pool cannot honour, by name: a polling interval that is not
        /// positive, or `.never`.
        case invalidExternalChangeDetection(String)
        /// The write gate (``Database/Configuration/usesWriteGate``) stayed closed for the whole busy timeout.
        case writeGateTimeout
        /// An access returned with a transaction still open: it was rolled back.
        case transactionLeftOpen
        /// A cursor was read after the access that opened it had ended.
        case cursorOutlivedAccess
        /// The queue or pool is suspended (``DatabaseQueue/suspend(accesses:)-lgue``,
        /// ``DatabasePool/suspend(accesses:)-2c3aw``): an access started while it was refused, or an access in progress
        /// was interrupted by the suspension and rolled back. ``DatabaseQueue/resume()-72qlc`` lets accesses run again.
        case suspended
        /// A suspension would lose state of the connection that reopening it from its recipe cannot give back (the
        /// message names it: attached databases, temporary tables, sessions, a trace or progress handler, functions
        /// or collations not registered by the set-up hook). Nothing was suspended.
        case suspensionLosesConnectionState

        // MARK: Schema and maintenance
        /// An identifier (table, column, schema or migration-table name) holds a NUL character, which SQL cannot
        /// quote.
        case invalidIdentifier
        /// The table (or view) does not exist in the schema asked for.
        case noSuchTable(String)
        /// The schema (`main`, `temp` or an attached database's name) does not exist on this connection.
        case noSuchSchema(String)
        /// An application ID given as a four-character code is not exactly four ASCII characters.
        case invalidApplicationID
        /// SQLite kept another journal mode than the one asked for (an in-memory database cannot use WAL, ...).
        case journalModeNotApplied(requested: String, actual: String)
        /// A migration with this name is already registered.
        case duplicateMigration(name: String)
        /// The migration with this name failed and was rolled back; the ones before it stay applied.
        case migrationFailed(name: String)
        /// The database holds migrations the migrator does not know: a newer version of the app wrote it.
        case databaseFromTheFuture
        /// A BLOB read or write reaches past the end of the BLOB (its size cannot change), or has a negative
        /// offset or count.
        case blobOutOfBounds(offset: Int, count: Int, blobSize: Int)
        /// The BLOB handle was closed, or could not be reopened on another row.
        case blobClosed
        /// The backup's progress closure asked to stop; the destination is left as it was before the backup.
        case backupCancelled
        /// The connection is the destination of a running backup, which SQLite forbids using until it ends.
        case backupInProgress

        // MARK: Changesets
        /// A conflict handler answered `.abort`: the apply was rolled back, and the database is unchanged.
        case changesetApplyAborted
        /// The changeset's bytes are malformed or truncated (or a patchset was given where only a changeset works,
        /// as for inverting).
        case changesetCorrupt
        /// The session was deleted, explicitly or because its connection closed.
        case sessionDeleted
        /// A changeset was applied from inside the conflict handler or filter of another apply on the same
        /// connection.
        case changesetApplyReentered

        // MARK: Observation
        /// A table a transaction observer or an observed query names is neither a table nor a view of any schema
        /// of the connection (`main`, `temp` or an attached database's): nothing would ever be told of it.
        case unknownTable(String)
        /// An SQLite extension could not be loaded from the library at `path`: a missing file, a file that is not a
        /// library, an entry point it lacks, or an init function that failed; the message is SQLite's.
        case extensionLoadFailed(path: String)
        /// The init function of the extension compiled into the program and registered as `name` failed; the
        /// message is the extension's.
        case extensionRegistrationFailed(name: String)
        /// An extension was loaded or registered from inside one of the connection's own callbacks (a function, a
        /// trace, a hook) while SQLite runs a statement: load it before running statements.
        case extensionLoadInCallback

        // MARK: Replicas
        /// A ``LitestreamReplica`` was opened before ``LitestreamReplica/loadVFS(atPath:)`` loaded Litestream's VFS.
        case replicaVFSNotLoaded
        /// ``LitestreamReplica/loadVFS(atPath:)`` was called with another library than the one already loaded: a
        /// process loads the VFS once.
        case replicaVFSLoadedFromAnotherPath
        /// A ``LitestreamReplica`` setting it cannot honour, by name: an empty `replicaURL`, a `pollInterval` under a
        /// millisecond or over a day, a `key` (Litestream cannot replicate an encrypted database), a `vfs` (a
        /// replica is read through Litestream's).
        case invalidReplicaSetting(String)
        /// The replica holds no transaction yet: Litestream has not shipped the database's first snapshot there (or
        /// never will, as for an encrypted database).
        case replicaHasNoTransaction
        /// A read of a ``LitestreamReplica`` tried to write: a replica is read-only.
        case writeOnReplica
    }
}
