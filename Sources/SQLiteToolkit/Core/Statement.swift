import SQLiteBindings

/// A prepared statement: SQL compiled once, run many times with different arguments.
///
/// ```swift
/// let insert = try db.prepare("INSERT INTO player (name, score) VALUES (?, ?)")
/// for (name, score) in players {
///     try insert.execute(name, score)
/// }
/// ```
///
/// A statement belongs to its ``Database`` and, like it, to one thread at a time. Closing the database finalizes
/// it; any use after that throws `SQLITE_MISUSE`.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/stmt.html>
public final class Statement {
    /// The SQLite statement, for calling `SQLiteBindings` directly. Invalid once ``isFinalized``.
    public let handle: StatementHandle
    /// The SQL text the statement was prepared from.
    public let sql: String
    /// The connection.
    @usableFromInline unowned let database: Database
    /// Whether the statement came from the connection's statement cache.
    let isCached: Bool
    // Hot mutable state is `@exclusivity(unchecked)`: a statement is confined to its connection's thread, and
    // the dynamic exclusivity checks on these flags cost more than the SQLite calls they guard.

    /// Whether the statement can no longer be used because its connection was closed. Its C handle is finalized
    /// then, or, when the connection was closed from inside a callback, as soon as the running statement returns.
    @exclusivity(unchecked) public internal(set) var isFinalized = false
    /// Whether the C handle was finalized: it must never be used again, not even by `deinit`.
    @exclusivity(unchecked) private var isHandleFinalized = false
    /// The number of parameters (`?`, `?NNN`, `:name`, `@name`, `$name`); `?NNN` counts up to its largest number.
    public let parameterCount: Int32
    /// The number of result columns; 0 for statements that return no rows. It follows a schema change: when SQLite
    /// re-prepares the statement (`ALTER TABLE ... ADD COLUMN` under a `SELECT *`), the count and the names are read
    /// again after the first step.
    @exclusivity(unchecked) public private(set) var columnCount: Int32 {
        didSet { readableColumnCount = isFinalized ? 0 : Int(columnCount) }
    }
    /// ``columnCount`` while the statement is usable, 0 once it is finalized: a read checks its index against it,
    /// and so checks the index and the statement with one comparison (``columnIndexIfReadable(_:)``).
    @exclusivity(unchecked) @usableFromInline private(set) var readableColumnCount: Int
    /// SQLite's count of the statement's re-preparations (`SQLITE_STMTSTATUS_REPREPARE`) when the columns were read.
    @exclusivity(unchecked) @usableFromInline var knownRepreparations: Int32 = 0
    /// Whether the next step is the first of a run, after which the columns are checked against a re-preparation.
    @exclusivity(unchecked) @usableFromInline var checksColumnsAfterStep = true
    /// Column names and their leftmost case-insensitive match, built on the first read by name.
    @exclusivity(unchecked) var nameIndex: ColumnNameIndex? {
        didSet {
            nameLookup = isFinalized ? ColumnNameIndex.noEntries : nameIndex?.entries ?? ColumnNameIndex.noEntries
            nameGuess = 0
        }
    }
    /// ``nameIndex``'s entries for the inlined read by name, which reads them without reference counting; valid
    /// while ``nameIndex`` holds them, and replaced with it. Without a name index, or once the statement is
    /// finalized, one entry that matches no name (``ColumnNameIndex/noEntries``), so the inlined read needs no
    /// count check and falls through to the full lookup.
    @exclusivity(unchecked) @usableFromInline var nameLookup = ColumnNameIndex.noEntries
    /// The column position to try first for the next read by name: the one after the last found. Always an index
    /// into ``nameLookup``: both change together.
    @exclusivity(unchecked) @usableFromInline var nameGuess = 0
    /// The connection's transaction observers, read at each end of the statement without going through the
    /// unowned ``database`` (each use of which retains and releases the connection).
    @usableFromInline let observation: TransactionObservationBroker
    /// The tables the statement may write (its triggers' included), with their schemas, as SQLite's authorizer
    /// named them while transaction observers were registered; empty otherwise (see
    /// TransactionObservationBroker.swift).
    @exclusivity(unchecked) var writtenTables: [WrittenTable] = []
    /// Whether the statement may change the schema (it writes `sqlite_schema`), as the authorizer said.
    @exclusivity(unchecked) var writesSchema = false
    /// Those of ``writtenTables`` that an observer watches, as of the observers' ``watchedWritesGeneration``.
    @exclusivity(unchecked) var watchedWrites: [String] = []
    /// The broker's generation ``watchedWrites`` was computed for.
    @exclusivity(unchecked) var watchedWritesGeneration = -1
    /// Whether ``watchedWrites`` is not empty, as of ``watchedWritesGeneration``.
    @exclusivity(unchecked) var hasWatchedWrites = false
    /// Whether ``writtenTables`` is not empty, as of ``watchedWritesGeneration``.
    @exclusivity(unchecked) var writesTables = false
    /// What the statement does to savepoints, as the authorizer reported it while the statement was prepared with
    /// transaction observers registered.
    @exclusivity(unchecked) var savepointCommand = SavepointCommand.none
    /// Whether a cursor is reading the statement's rows.
    @exclusivity(unchecked) @usableFromInline var hasOpenCursor = false
    /// The cursor reading the statement's rows, unretained: the cursor clears it when it closes, which it does at
    /// the latest in its `deinit`.
    @exclusivity(unchecked) @usableFromInline var openCursor: Unmanaged<Rows>?
    /// Whether the statement cache has handed the statement out and not had it back.
    @exclusivity(unchecked) @usableFromInline var isCheckedOut = false
    /// Whether the statement is the one the cache keeps for its SQL.
    @exclusivity(unchecked) var isInCache = false
    /// The statement cache's least-recently-used lists run through its statements: the neighbours, unretained
    /// (the cache's dictionary retains every statement on a list), and whether the statement is on one.
    @exclusivity(unchecked) var cacheNewer: Unmanaged<Statement>?
    @exclusivity(unchecked) var cacheOlder: Unmanaged<Statement>?
    @exclusivity(unchecked) var isOnCacheList = false
    /// Whether the statement is the newest of its cache list, so that checking it in changes no list.
    @exclusivity(unchecked) @usableFromInline var isNewestOnCacheList = false
    /// The cache's hash of ``sql`` (``StatementCache/fingerprint(of:)``), computed once when the cache prepared
    /// the statement: its key in the cache, also remembered when the statement is evicted.
    @exclusivity(unchecked) var cacheFingerprint: Int?
    /// Whether the cache prepared the statement with `SQLITE_PREPARE_PERSISTENT`, which decides its list there.
    @exclusivity(unchecked) var isPersistent = false
    /// When the statement was last checked in to the cache, on the cache's clock.
    @exclusivity(unchecked) @usableFromInline var cacheAge = 0
    /// The names of the parameters without their `:`, `@` or `$` (`nil` for `?` and `?NNN`), built on the first
    /// binding of named arguments.
    @exclusivity(unchecked) private var bareParameterNames: [String?]?
    /// The column names, kept when the statement is finalized: the handle must not be read after that.
    private var finalizedColumnNames: [String] = []
    /// Whether the statement only reads (`SELECT`, most `PRAGMA`s), per `sqlite3_stmt_readonly`; asked once at
    /// prepare, so it stays readable after the statement is finalized.
    public let isReadOnly: Bool
    /// How the connection stores dates, copied at prepare so a `Date` bind reaches it without going through the
    /// unowned reference to the connection.
    @usableFromInline let dateStorage: Database.DateStorage

    init(handle: StatementHandle, sql: String, database: Database, isCached: Bool) {
        self.handle = handle
        self.sql = sql
        self.database = database
        self.isCached = isCached
        self.parameterCount = handle.bindParameterCount()
        let columnCount = handle.columnCount()
        self.columnCount = columnCount
        self.readableColumnCount = Int(columnCount)
        self.isReadOnly = handle.isReadOnly()
        self.dateStorage = database.configuration.dateStorage
        self.observation = database.observation
    }

    deinit {
        if !isHandleFinalized {
            // A statement dropped in the middle of its run (a write with `RETURNING` stepped once) ends, and in
            // autocommit mode commits, when it is finalized: reset it first, so the observers hear that end.
            if observation.isActive && handle.isBusy() {
                _ = handle.reset()
                observation.statementReset(self)
            }
            _ = handle.finalize()
            database.forget(self)
        }
    }

    /// Makes the statement unusable: later uses throw. Called by the connection when it closes; the handle stays
    /// valid until ``finalize()``, because the statement may be running a callback that closed the connection.
    func retire() {
        guard !isFinalized else { return }
        finalizedColumnNames = columnNames
        isFinalized = true
        readableColumnCount = 0
        nameLookup = ColumnNameIndex.noEntries
        nameGuess = 0
    }

    /// Retires the statement and finalizes its handle. Called by the connection when it releases its statements.
    func finalize() {
        retire()
        guard !isHandleFinalized else { return }
        isHandleFinalized = true
        _ = handle.finalize()
    }

    /// Throws `SQLITE_MISUSE` when the statement or its connection is no longer usable.
    @inlinable
    func checkUsable() throws {
        if isFinalized { throw finalizedError() }
    }

    /// The error of a use after close; finishes a close deferred from inside a callback, when it is safe.
    @usableFromInline
    func finalizedError() -> DatabaseError {
        if !isHandleFinalized { database.finishDeferredClose() }
        return DatabaseError.misuse(
            "the statement was finalized because its database was closed", sql: sql, reason: .connectionClosed)
    }

    /// After the first step of a run: reads the column count and names again when SQLite re-prepared the statement
    /// since they were read (a schema change). One status call per run, none per row.
    @inlinable
    func checkColumnsAfterFirstStep() {
        guard checksColumnsAfterStep else { return }
        // The status call inline; only a re-preparation, which is rare, calls out.
        checksColumnsAfterStep = false
        guard !isFinalized else { return }
        let repreparations = handle.status(.reprepare, reset: false)
        if repreparations != knownRepreparations { refreshColumns(repreparations: repreparations) }
    }

    /// Reads the column count again, and the names on their next use, after SQLite re-prepared the statement.
    @usableFromInline
    func refreshColumns(repreparations: Int32) {
        knownRepreparations = repreparations
        columnCount = handle.columnCount()
        nameIndex = nil
    }

    // MARK: - Columns

    /// The names of the result columns, as SQLite reports them (`AS` aliases included).
    public var columnNames: [String] {
        if isFinalized { return finalizedColumnNames }
        return (0..<columnCount).map { handle.columnName($0) ?? "" }
    }

    /// The declared type of result column `index` in its table (`INTEGER`, `TEXT`, ...), or `nil` for an
    /// expression.
    public func declaredType(ofColumn index: Int) throws -> String? {
        try checkUsable()
        return handle.columnDeclaredType(try columnIndex(index))
    }

    /// Where result column `index` comes from: its schema (`main`), table and column, or `nil`s for an expression.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/column_database_name.html>
    public func origin(ofColumn index: Int) throws -> (schema: String?, table: String?, column: String?) {
        try checkUsable()
        let column = try columnIndex(index)
        return (handle.columnDatabaseName(column), handle.columnTableName(column), handle.columnOriginName(column))
    }

    /// Checks a column index against the column count.
    @inlinable
    func columnIndex(_ index: Int) throws -> Int32 {
        guard index >= 0, index < Int(columnCount) else { throw columnRangeError(index) }
        return Int32(truncatingIfNeeded: index)
    }

    /// Checks a column index of a read, and the statement, with one comparison: fails with `SQLITE_MISUSE` once
    /// the statement is finalized, else with the range error.
    @inlinable
    func columnIndexIfReadable(_ index: Int) throws -> Int32 {
        guard UInt(bitPattern: index) < UInt(bitPattern: readableColumnCount) else { throw unreadableError(index) }
        return Int32(truncatingIfNeeded: index)
    }

    /// The value of column `index` of the current row as `T`: ``Row/value(at:as:)``, for callers that hold the
    /// statement and need no row (a row would retain the statement).
    @inlinable
    func columnValue<T: DatabaseValueConvertible>(at index: Int, as type: T.Type) throws -> T {
        let column = try columnIndexIfReadable(index)
        do {
            return try T.read(from: self, at: column)
        } catch {
            throw Row(statement: self).readError(error, at: column)
        }
    }

    /// Why ``columnIndexIfReadable(_:)`` refused `index`.
    @usableFromInline
    func unreadableError(_ index: Int) -> DatabaseError {
        isFinalized ? finalizedError() : columnRangeError(index)
    }

    @usableFromInline
    func columnRangeError(_ index: Int) -> DatabaseError {
        DatabaseError.range(
            "column index \(index) is out of range: the statement has \(columnCount) columns",
            sql: sql,
            reason: .columnIndexOutOfRange(index: index, count: Int(columnCount))
        )
    }

    /// The index of the leftmost result column named `name`, compared case-insensitively, or `nil` when no
    /// column has that name. Resolve a name once and read by index in a loop to skip the lookup per row.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/column_name.html>
    public func columnIndex(forName name: String) throws -> Int? {
        try checkUsable()
        if nameIndex == nil { nameIndex = ColumnNameIndex(names: columnNames) }
        return nameIndex?.index(of: name, guess: &nameGuess).map(Int.init)
    }

    /// The index of the leftmost column named `name`, compared case-insensitively. The names are read once per
    /// statement; a name spelled as the statement spells it is found without lowercasing or hashing.
    ///
    /// Rows are usually read column after column in the same order, so the column after the one found last is
    /// tried first, inline: when `name` is the same string as that column's name (a short name of the same
    /// spelling, or the same string storage), its 16 bytes are equal, and the index is found with one comparison
    /// and no reference counting. Anything else takes the full lookup.
    ///
    /// It also checks that the statement is usable: finalizing it empties the inlined lookup, so the full lookup
    /// runs, and throws.
    @inlinable
    func columnIndex(named name: String) throws -> Int32 {
        // A constant: where a `String` is not two words (32-bit platforms), only the full lookup runs.
        if MemoryLayout<String>.size == MemoryLayout<ColumnNameIndex.Bits>.size {
            let entry = nameLookup + nameGuess
            if entry.pointee.bits == ColumnNameIndex.Entry.bits(of: name) {
                nameGuess = Int(truncatingIfNeeded: entry.pointee.next)
                return entry.pointee.leftmost
            }
        }
        return try resolveColumnIndex(named: name)
    }

    @usableFromInline
    func resolveColumnIndex(named name: String) throws -> Int32 {
        guard !isFinalized else { throw finalizedError() }
        if nameIndex == nil { nameIndex = ColumnNameIndex(names: columnNames) }
        guard let index = nameIndex?.index(of: name, guess: &nameGuess) else {
            throw DatabaseError.range(
                "no column named \"\(name)\"; the columns are \(columnNames)", sql: sql, reason: .columnNotFound(name))
        }
        return index
    }

    /// The name of parameter `index` (from 1, as SQLite numbers parameters) as the SQL spells it, with its prefix
    /// (`:name`, `@name`, `$name`, `?3`); `nil` for a nameless `?`, an index out of range, or a finalized statement.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_parameter_name.html>
    public func parameterName(at index: Int) -> String? {
        guard !isFinalized, index >= 1, index <= Int(parameterCount) else { return nil }
        return handle.bindParameterName(Int32(index))
    }

    /// The parameters' names without their prefix, read once per statement.
    @usableFromInline
    func parameterNamesWithoutPrefix() -> [String?] {
        if let bareParameterNames { return bareParameterNames }
        let names = (0..<parameterCount).map { index -> String? in
            guard let name = handle.bindParameterName(index + 1), name.first != "?" else { return nil }
            return String(name.dropFirst())
        }
        bareParameterNames = names
        return names
    }

}

@available(*, unavailable, message: "a statement belongs to its connection's thread")
extension Statement: Sendable {}
