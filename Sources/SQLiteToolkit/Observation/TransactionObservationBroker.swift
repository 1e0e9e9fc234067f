import SQLiteBindings

/// The transaction observers of one connection, and what the transaction in progress changed so far.
///
/// SQLite tells a connection three things, through hooks that must not use it: a transaction is about to commit
/// (the commit hook, which cannot tell whether the commit will succeed), a transaction was rolled back (the rollback
/// hook), and a row of a rowid table changed (the update hook). It says nothing when a savepoint is rolled back to, nor
/// which tables a statement wrote when they have no rowid. So the broker also learns, through the authorizer, which
/// tables each statement may write and what it does to savepoints (at prepare time, kept by the ``Statement``), and
/// hears from the statements themselves when each one ends (``statementEnded(_:succeeded:)``): a statement that
/// changed rows records its tables; `SAVEPOINT`, `RELEASE` and `ROLLBACK TO` move marks in what was recorded; and a
/// statement that ends in autocommit mode after the commit hook ran has committed, which is when the observers are
/// told.
///
/// Whether a statement changed anything is read from `sqlite3_total_changes64`, which counts the rows that trigger
/// programs change too, not from `sqlite3_changes`, which SQLite documents as 0 for a write to a view (whose
/// `INSTEAD OF` trigger writes the real table) and which leaves out a row a `BEFORE` trigger skipped with
/// `RAISE(IGNORE)` after writing elsewhere. Each run of a statement is reported once: a statement stepped to its end
/// and then reset (the FMDB-style reuse) reports its end at the step, and ``Statement/reset()`` reports only a run
/// still under way (`sqlite3_stmt_busy`), so the reset after the end, or a second reset, reports nothing.
///
/// One broker per connection, made with it and shared by its statements, which check ``isActive`` as they end (a
/// `let` of theirs: no reference counting). Belongs to its connection's thread, like the connection.
@usableFromInline
final class TransactionObservationBroker {
    /// One registered observer.
    private struct Observer {
        let id: Int
        /// The lowercased names of the tables it watches; `nil` for all.
        let tables: Set<String>?
        let includingRowChanges: Bool
        /// Whether it is told of a commit that changed the schema and no table (an observed query without a table
        /// list, whose views may read other tables now).
        let wantsSchemaChanges: Bool
        let callback: (DatabaseTransactionChanges) -> Void
    }

    @exclusivity(unchecked) private var observers: [Observer] = []
    @exclusivity(unchecked) private var nextID = 0
    /// Changes on each add and remove, so that a statement recomputes which of its tables are watched.
    @exclusivity(unchecked) private(set) var generation = 0
    /// Every watched table's lowercased name, or `nil` when an observer watches all.
    @exclusivity(unchecked) private var watchedTables: Set<String>? = []
    /// Whether an observer wants the rows of every table.
    @exclusivity(unchecked) private var wantsAllRows = false
    /// The lowercased UTF-8 names of the tables whose rows an observer wants, each followed by a 0, then one more 0;
    /// `nil` when none wants rows of named tables. A buffer of its own, read by the update hook for every changed
    /// row without reference counting.
    @exclusivity(unchecked) private var rowTableNames: UnsafeMutableBufferPointer<UInt8>?
    /// For each byte, whether one of those names starts with it, in either ASCII case: most changed rows are of a
    /// table whose name starts with none of them, and are dropped after one load.
    private let rowTableFirstBytes = UnsafeMutableBufferPointer<Bool>.allocate(capacity: 256)
    private var wantsRows: Bool { wantsAllRows || rowTableNames != nil }
    /// Whether observers are registered and the hooks installed: statements tell the broker when they end only then.
    @exclusivity(unchecked) @usableFromInline private(set) var isActive = false

    // The transaction in progress.
    /// Tables changed, in order, with repeats: marks of savepoints are counts of this list.
    @exclusivity(unchecked) private var changedTables: [String] = []
    /// Whether a statement of the transaction changed the schema (kept through a `ROLLBACK TO`: at worst an extra
    /// run of an observed query).
    @exclusivity(unchecked) private var schemaChanged = false
    /// The commits delivered so far, the one being delivered included: each delivery carries its number.
    @exclusivity(unchecked) private(set) var commitCount = 0
    /// Rows changed, in order.
    @exclusivity(unchecked) private var rowChanges: [DatabaseRowChange] = []
    /// The open savepoints, outermost first: each one's name and the counts of the lists when it began.
    @exclusivity(unchecked) private var savepoints: [(name: String, tableCount: Int, rowCount: Int)] = []
    /// ``rowChanges``'s count, kept beside it so that a statement's end reads it without reference counting.
    @exclusivity(unchecked) private var rowChangeCount = 0
    /// The count of ``rowChanges`` when the last statement ended: the rows after it belong to the running statement.
    @exclusivity(unchecked) private var statementRowMark = 0
    /// Set by the commit hook: the statement running now commits, unless its commit fails.
    @exclusivity(unchecked) private var commitRequested = false
    /// Tables the authorizer saw written since the last statement took them: by the statement being prepared, or by
    /// the one being re-prepared while it runs.
    @exclusivity(unchecked) private var authorizedWrites: [WrittenTable] = []
    /// Whether the authorizer saw the statement being prepared write the schema.
    @exclusivity(unchecked) private var authorizedSchemaWrite = false
    /// What the authorizer saw the statement being prepared do to a savepoint.
    @exclusivity(unchecked) private var authorizedSavepoint = SavepointCommand.none
    /// Whether the authorizer saw a statement prepared since the last statement took what it saw.
    @exclusivity(unchecked) private var hasAuthorizedWrites = false
    /// `sqlite3_total_changes64` when the last statement's end was recorded: a statement whose end finds another
    /// count changed rows, itself or through its triggers.
    @exclusivity(unchecked) private var lastTotalChanges: Int64 = 0

    /// The connection whose hooks report to this broker, set when they are installed.
    @exclusivity(unchecked) private var connection: ConnectionHandle?

    /// The tables (lowercased) the statements prepared since ``beginRecordingReads(on:)`` read, and `nil` when no
    /// recording runs: what an observed query without a table list watches.
    @exclusivity(unchecked) private var recordedReads: Set<String>?
    /// How many recordings are under way (a run of an observed query can commit, and so start another run inside).
    @exclusivity(unchecked) private var recordingDepth = 0
    /// Commits made while observers were being told of an earlier one (an observer that wrote), told after it, in
    /// order: each is the tables and the rows it changed.
    @exclusivity(unchecked) private var pendingDeliveries: [DatabaseTransactionChanges] = []
    @exclusivity(unchecked) private var isDelivering = false

    /// The watch for other connections' commits of the queue or pool whose connection this is (`nil` on any other
    /// connection): it runs while an observer is registered.
    @exclusivity(unchecked) var externalChanges: ExternalChangeWatch?
    /// Whether ``externalChanges`` was started for the observers registered now.
    @exclusivity(unchecked) var watchesExternalChanges = false
    /// The connection's `PRAGMA data_version` when it last looked, while ``watchesExternalChanges``; `nil` when it
    /// could not read it.
    @exclusivity(unchecked) var dataVersion: Int64?

    var isEmpty: Bool { observers.isEmpty }

    /// Records a row the update hook reported, when an observer wants the rows of its table: the hook asks for
    /// every changed row, and most rows of a busy database are of tables nobody watches, so the first test is one
    /// load (``rowTableFirstBytes``), inlined into the hook.
    /// The rest is a call the compiler can make as a jump, so that the hook saves no register for the rows it
    /// drops.
    @inline(__always)
    fileprivate func rowChanged(
        _ operation: Int32, schema: UnsafePointer<CChar>, table: UnsafePointer<CChar>, rowid: Int64
    ) {
        guard wantsAllRows || rowTableFirstBytes[Int(UInt8(bitPattern: table[0]))] else { return }
        recordRow(operation, schema: schema, table: table, rowid: rowid)
    }

    @inline(never)
    private func recordRow(
        _ operation: Int32, schema: UnsafePointer<CChar>, table: UnsafePointer<CChar>, rowid: Int64
    ) {
        guard wantsAllRows || wantsRows(ofCandidate: table) else { return }
        let action = AuthorizerAction(rawValue: operation)
        let kind: DatabaseRowChange.Kind = action == .insert ? .insert : action == .delete ? .delete : .update
        rowChanges.append(
            DatabaseRowChange(kind: kind, schema: String(cString: schema), table: String(cString: table), rowID: rowid))
        rowChangeCount += 1
    }

    // MARK: - Observers

    func add(
        tables: Set<String>?, includingRowChanges: Bool, wantsSchemaChanges: Bool = false,
        _ callback: @escaping (DatabaseTransactionChanges) -> Void
    ) -> TransactionObserverID {
        nextID += 1
        observers.append(
            Observer(
                id: nextID, tables: tables.map { Set($0.map { $0.lowercased() }) },
                includingRowChanges: includingRowChanges, wantsSchemaChanges: wantsSchemaChanges, callback: callback))
        observersChanged()
        return TransactionObserverID(value: nextID)
    }

    func remove(_ id: TransactionObserverID) {
        observers.removeAll { $0.id == id.value }
        observersChanged()
    }

    private func observersChanged() {
        generation &+= 1
        if observers.isEmpty && watchesExternalChanges {
            // The last observation ended, or the connection closes: nothing needs to look any more.
            watchesExternalChanges = false
            dataVersion = nil
            externalChanges?.stop()
        }
        var watched: Set<String>? = []
        var rows: Set<String>? = []
        for observer in observers {
            if let tables = observer.tables {
                watched?.formUnion(tables)
                if observer.includingRowChanges { rows?.formUnion(tables) }
            } else {
                watched = nil
                if observer.includingRowChanges { rows = nil }
            }
        }
        watchedTables = watched
        wantsAllRows = rows == nil
        rowTableNames?.deallocate()
        rowTableNames = nil
        rowTableFirstBytes.update(repeating: false)
        for name in rows ?? [] {
            guard let first = name.utf8.first else { continue }
            rowTableFirstBytes[Int(first)] = true
            if first >= UInt8(ascii: "a") && first <= UInt8(ascii: "z") { rowTableFirstBytes[Int(first - 0x20)] = true }
        }
        if let rows, !rows.isEmpty {
            var bytes: [UInt8] = []
            for name in rows { bytes += Array(name.utf8) + [0] }
            bytes.append(0)
            let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
            _ = buffer.initialize(from: bytes)
            rowTableNames = buffer
        }
    }

    init() {
        rowTableFirstBytes.initialize(repeating: false)
    }

    deinit {
        rowTableNames?.deallocate()
        rowTableFirstBytes.deallocate()
    }

    /// Whether an observer watches `table`.
    private func isWatched(_ table: String) -> Bool {
        guard let watchedTables else { return true }
        return watchedTables.contains(table.lowercased())
    }

    /// Whether an observer wants the rows of `table`, whose name starts as a watched one does: compares it with
    /// each, without making a `String`.
    @inline(never)
    private func wantsRows(ofCandidate table: UnsafePointer<CChar>) -> Bool {
        guard let names = rowTableNames else { return false }
        var start = 0
        while names[start] != 0 {
            // Compare `table` with the name at `start`, then move to the next name.
            var index = 0
            var matches = true
            while names[start + index] != 0 {
                if matches {
                    let byte = UInt8(bitPattern: table[index])
                    matches = byte != 0 && Self.asciiLowercase(byte) == names[start + index]
                }
                index += 1
            }
            if matches && table[index] == 0 { return true }
            start += index + 1
        }
        return false
    }

    private static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    /// Whether two names are the same to SQLite: equal but for ASCII case.
    static func namesMatch(_ first: String, _ second: String) -> Bool {
        first.utf8.elementsEqual(second.utf8) { asciiLowercase($0) == asciiLowercase($1) }
    }

    // MARK: - Hooks

    /// Installs the hooks and the authorizer (again, after the observers changed: setting the authorizer makes
    /// SQLite prepare every statement again, so each learns its tables anew).
    func install(on connection: ConnectionHandle) {
        self.connection = connection
        isActive = true
        connection.setCommitHook { [self] in
            commitRequested = true
            return false
        }
        connection.setRollbackHook { [self] in clearTransaction() }
        // The update hook is called for every row every statement changes, so it is a C function given this broker
        // unretained, not a closure in a box: the broker lives as long as its ``Database``, which uninstalls the hook
        // when the last observer goes and before the connection closes.
        if wantsRows {
            _ = connection.updateHook(brokerUpdateHook, Unmanaged.passUnretained(self).toOpaque())
        } else {
            _ = connection.updateHook(nil, nil)
        }
        lastTotalChanges = connection.totalChanges()
        installAuthorizer(on: connection)
    }

    /// Sets the authorizer: it records the tables each statement may write and what it does to savepoints while
    /// observers are registered, and the tables it reads while ``recordedReads`` records. Setting it makes SQLite
    /// prepare every statement again before its next step, so statements prepared earlier report too.
    private func installAuthorizer(on connection: ConnectionHandle) {
        let deletesRowByRow = wantsRows
        let tracksWrites = isActive
        _ = connection.setAuthorizer { [self] action, table, detail, schema, _ in
            if action == .read {
                // `table` is the table read (a view's reads are of its tables), `detail` the column.
                if let table, recordedReads != nil, !table.utf8.starts(with: "sqlite_".utf8) {
                    recordedReads?.insert(table.lowercased())
                }
                return .ok
            }
            guard tracksWrites else { return .ok }
            if action == .savepoint {
                // `table` is the operation (BEGIN, RELEASE or ROLLBACK), `detail` the savepoint's name.
                authorizedSavepoint = SavepointCommand(operation: table, name: detail)
                hasAuthorizedWrites = true
                return .ok
            }
            guard action == .insert || action == .update || action == .delete, let table else { return .ok }
            if table.utf8.starts(with: "sqlite_".utf8) {
                // SQLite's own tables are never reported; a write to the schema table is a schema change.
                if Self.isSchemaTable(table) {
                    authorizedSchemaWrite = true
                    hasAuthorizedWrites = true
                }
                return .ok
            }
            let written = WrittenTable(name: table, schema: schema)
            if authorizedWrites.last != written { authorizedWrites.append(written) }
            hasAuthorizedWrites = true
            // SQLite's documented way to turn off the truncate optimization, which deletes every row of a table
            // without reporting one: the DELETE still runs, row by row.
            return action == .delete && deletesRowByRow ? .ignore : .ok
        }
    }

    /// Starts recording the tables the connection's statements read: the authorizer is set again, so that every
    /// statement, a cached one too, is prepared again before its next step and reports its reads. A recording
    /// started inside another (a run that commits, and so runs a query again) joins it.
    func beginRecordingReads(on connection: ConnectionHandle) {
        recordingDepth += 1
        guard recordingDepth == 1 else { return }
        recordedReads = []
        installAuthorizer(on: connection)
    }

    /// Stops a recording and returns the tables read since it began (those of the recordings it joined included).
    /// The authorizer stays: it records nothing until the next recording, and setting it again would make SQLite
    /// prepare every statement once more.
    func endRecordingReads(on connection: ConnectionHandle) -> Set<String> {
        let reads = recordedReads ?? []
        recordingDepth = max(0, recordingDepth - 1)
        if recordingDepth == 0 { recordedReads = nil }
        return reads
    }

    /// Whether `table` (one of SQLite's `sqlite_` tables) is the schema table, under any of its names.
    static func isSchemaTable(_ table: String) -> Bool {
        namesMatch(table, "sqlite_master") || namesMatch(table, "sqlite_temp_master")
            || namesMatch(table, "sqlite_schema") || namesMatch(table, "sqlite_temp_schema")
    }

    func uninstall(from connection: ConnectionHandle) {
        connection.setCommitHook(nil)
        connection.setRollbackHook(nil)
        _ = connection.updateHook(nil, nil)
        _ = connection.setAuthorizer(nil)
        clearTransaction()
        isActive = false
        self.connection = nil
        recordedReads = nil
        recordingDepth = 0
    }

    /// Removes every observer and the hooks: the connection closes.
    func removeAll(from connection: ConnectionHandle) {
        if isActive { uninstall(from: connection) }
        observers.removeAll()
        observersChanged()
    }

    private func clearTransaction() {
        changedTables.removeAll(keepingCapacity: true)
        schemaChanged = false
        rowChanges.removeAll(keepingCapacity: true)
        rowChangeCount = 0
        savepoints.removeAll()
        statementRowMark = 0
        commitRequested = false
    }

    // MARK: - Statements

    /// The tables the authorizer saw written since the last call, and what it saw done to a savepoint: those of the
    /// statement just prepared.
    func takeAuthorizedWrites() -> (tables: [WrittenTable], savepoint: SavepointCommand, writesSchema: Bool) {
        hasAuthorizedWrites = false
        defer {
            authorizedWrites.removeAll()
            authorizedSavepoint = .none
            authorizedSchemaWrite = false
        }
        return (authorizedWrites, authorizedSavepoint, authorizedSchemaWrite)
    }

    /// A statement ended (its step gave no row, or it was reset): records the tables it changed, follows savepoints,
    /// and delivers a commit.
    @usableFromInline
    func statementEnded(_ statement: Statement, succeeded: Bool) {
        guard let connection else { return }
        // The common end: a statement that writes tables nobody watches, no commit, nothing new from the
        // authorizer. Only the count of changes must be kept current.
        if succeeded && !hasAuthorizedWrites && !commitRequested && statement.watchedWritesGeneration == generation
            && !statement.hasWatchedWrites && statement.writesTables
        {
            lastTotalChanges = connection.totalChanges()
            statementRowMark = rowChangeCount
            return
        }
        recordAndFinish(statement, succeeded: succeeded, on: connection)
    }

    /// The rest of ``statementEnded(_:succeeded:)``, out of line so that its common end needs no stack frame.
    @inline(never)
    private func recordAndFinish(_ statement: Statement, succeeded: Bool, on connection: ConnectionHandle) {
        record(statement, succeeded: succeeded, on: connection)
        finishStatement(on: connection)
    }

    /// ``statementEnded(_:succeeded:)`` for a statement just reset, whose success the connection's error code tells:
    /// `sqlite3_reset` sets it to the outcome of the statement's last step, or of the commit the reset made.
    @usableFromInline
    func statementReset(_ statement: Statement) {
        guard let connection else { return }
        statementEnded(statement, succeeded: connection.errorCode() == .ok)
    }

    /// An access of a queue or a pool ended: delivers a commit that no statement's end reported (one made by a
    /// reset, or by a statement run through `handle`).
    func accessEnded() {
        guard let connection else { return }
        finishStatement(on: connection)
    }

    /// Marks where the next statement's rows start, and delivers the commit the statement made, if any.
    private func finishStatement(on connection: ConnectionHandle) {
        statementRowMark = rowChangeCount
        guard commitRequested else { return }
        if !connection.isAutocommit() {
            // The commit failed and its transaction is still open (a busy lock, a deferred foreign key): the changes
            // stay pending until the next commit or the rollback.
            commitRequested = false
            return
        }
        // Committed, whether the statement that ended succeeded or not: an autocommit statement `OR FAIL` that failed
        // midway commits the rows it changed before the failure. A commit that failed instead rolled back, and the
        // rollback hook cleared `commitRequested`.
        deliver()
    }

    @inline(__always)
    private func record(_ statement: Statement, succeeded: Bool, on connection: ConnectionHandle) {
        if hasAuthorizedWrites {
            // Re-prepared while it ran (the schema or the authorizer changed): its program, and its tables, are new.
            let authorized = takeAuthorizedWrites()
            for table in authorized.tables where !statement.writtenTables.contains(table) {
                statement.writtenTables.append(table)
            }
            if authorized.savepoint != .none { statement.savepointCommand = authorized.savepoint }
            if authorized.writesSchema { statement.writesSchema = true }
            statement.watchedWritesGeneration = generation &- 1
        }
        // Flags rather than the arrays on this path, which every statement takes: no reference counting.
        if statement.watchedWritesGeneration != generation {
            // A view the statement writes is not a table that changes: its `INSTEAD OF` triggers write the tables,
            // and the authorizer names those too. (`sqlite3_table_column_metadata` fails for a view; it runs once
            // per statement and observer change, after the statement's error, if any, was read.)
            statement.watchedWrites = statement.writtenTables.filter {
                isWatched($0.name)
                    && connection.tableColumnMetadata(schema: $0.schema, table: $0.name, column: nil).code == .ok
            }.map(\.name)
            statement.hasWatchedWrites = !statement.watchedWrites.isEmpty
            statement.writesTables = !statement.writtenTables.isEmpty
            statement.watchedWritesGeneration = generation
        }
        // Read at the end of every statement that may write (the count must stay that of the last such end, or a
        // later statement would count rows changed before it as its own); a statement that writes no table, a
        // `SELECT` or a savepoint's, changes no row itself.
        var changedRows = false
        if statement.writesTables {
            let totalChanges = connection.totalChanges()
            changedRows = totalChanges != lastTotalChanges
            lastTotalChanges = totalChanges
        }
        if succeeded {
            if statement.writesSchema { schemaChanged = true }
            // Rows the statement changed, itself or through its triggers (a view's `INSTEAD OF` trigger included).
            if statement.hasWatchedWrites && changedRows {
                changedTables.append(contentsOf: statement.watchedWrites)
            }
            // Only a statement that writes no table can be a savepoint's: parsed once, for those alone.
            if !statement.writesTables { followSavepoint(statement.savepointCommand) }
        } else if connection.changes() == 0 {
            // SQLite undid the failed statement's changes (its default, ABORT, sets the count to 0; FAIL keeps the
            // rows done and their count): forget the rows the update hook reported meanwhile. The total count is no
            // guide here: it keeps what the statement's triggers changed before SQLite undid it.
            if statementRowMark < rowChangeCount { rowChanges.removeSubrange(statementRowMark...) }
            rowChangeCount = rowChanges.count
        } else if statement.hasWatchedWrites {
            changedTables.append(contentsOf: statement.watchedWrites)
        }
    }

    private func followSavepoint(_ command: SavepointCommand) {
        switch command {
        case .none:
            return
        case .begin(let name):
            savepoints.append((name, changedTables.count, rowChangeCount))
        case .release(let name):
            guard let index = savepoints.lastIndex(where: { Self.namesMatch($0.name, name) }) else { return }
            savepoints.removeSubrange(index...)
        case .rollback(let name):
            guard let index = savepoints.lastIndex(where: { Self.namesMatch($0.name, name) }) else { return }
            let mark = savepoints[index]
            changedTables.removeSubrange(mark.tableCount...)
            rowChanges.removeSubrange(mark.rowCount...)
            rowChangeCount = rowChanges.count
            statementRowMark = rowChangeCount
            savepoints.removeSubrange((index + 1)...)
        }
    }

    /// Tells each observer what the committed transaction changed of its tables, after clearing the transaction's
    /// record: an observer may use the connection, and commit again. The commit an observer makes is told to every
    /// observer after the one being told: all observers hear the commits in the order they were made.
    private func deliver() {
        var tables = Set(changedTables)
        for change in rowChanges { tables.insert(change.table) }
        let rows = rowChanges
        let changedSchema = schemaChanged
        clearTransaction()
        guard !tables.isEmpty || changedSchema else { return }
        commitCount += 1
        var changes = DatabaseTransactionChanges(tables: tables, rowChanges: rows)
        changes.schemaChanged = changedSchema
        changes.commitNumber = commitCount
        pendingDeliveries.append(changes)
        deliverPending()
    }

    /// Tells every observer, whatever tables it watches, that the database changed outside this connection. Not a
    /// commit of this connection: it has no number (observed queries run again whatever they have seen).
    func deliverExternalChange() {
        var changes = DatabaseTransactionChanges(tables: [], rowChanges: [])
        changes.isExternal = true
        pendingDeliveries.append(changes)
        deliverPending()
    }

    /// Tells the observers of the commits waiting, in order, unless a delivery is under way (an observer that
    /// committed), which tells them after its own.
    private func deliverPending() {
        guard !isDelivering else { return }
        isDelivering = true
        defer { isDelivering = false }
        while !pendingDeliveries.isEmpty {
            tell(pendingDeliveries.removeFirst())
            // An observer closed the connection: the observers are gone, and so is what they have not heard.
            if !isActive { pendingDeliveries.removeAll() }
        }
    }

    private func tell(_ commit: DatabaseTransactionChanges) {
        // A copy: an observer may add or remove observers.
        for observer in observers {
            if commit.isExternal {
                // What changed is unknown: it may be any observer's tables.
                observer.callback(commit)
                continue
            }
            var changes = commit
            if !observer.includingRowChanges { changes.rowChanges = [] }
            if let watched = observer.tables {
                changes.tables = commit.tables.filter { watched.contains($0.lowercased()) }
                if changes.tables.isEmpty { continue }
                if observer.includingRowChanges {
                    changes.rowChanges = commit.rowChanges.filter { watched.contains($0.table.lowercased()) }
                }
            } else if changes.tables.isEmpty && !observer.wantsSchemaChanges {
                continue
            }
            observer.callback(changes)
        }
    }
}

/// A table a statement may write, as the authorizer names it, with its schema (`main`, `temp`, an attached
/// database's name), which tells a table from a view of the same name in another schema.
struct WrittenTable: Equatable {
    let name: String
    let schema: String?
}

/// The update hook of a connection with observers: `context` is its broker, unretained.
private func brokerUpdateHook(
    _ context: UnsafeMutableRawPointer?, _ operation: Int32, _ schema: UnsafePointer<CChar>?,
    _ table: UnsafePointer<CChar>?, _ rowid: Int64
) {
    guard let context, let table, let schema else { return }
    Unmanaged<TransactionObservationBroker>.fromOpaque(context)._withUnsafeGuaranteedRef {
        $0.rowChanged(operation, schema: schema, table: table, rowid: rowid)
    }
}

@available(*, unavailable, message: "a transaction observation broker belongs to its connection's thread")
extension TransactionObservationBroker: Sendable {}

/// What a statement does to savepoints, as SQLite's authorizer reports it while the statement is prepared
/// (`SQLITE_SAVEPOINT`, with the operation and the savepoint's name, unquoted): no SQL is parsed here.
enum SavepointCommand: Equatable {
    /// Nothing: the statement is not `SAVEPOINT`, `RELEASE` or `ROLLBACK TO`.
    case none
    /// `SAVEPOINT name`.
    case begin(String)
    /// `RELEASE [SAVEPOINT] name`.
    case release(String)
    /// `ROLLBACK [TRANSACTION] TO [SAVEPOINT] name`.
    case rollback(String)

    /// The command of the authorizer's `SQLITE_SAVEPOINT` call: `operation` is `BEGIN`, `RELEASE` or `ROLLBACK`.
    init(operation: String?, name: String?) {
        guard let operation, let name else {
            self = .none
            return
        }
        switch operation.uppercased() {
        case "BEGIN": self = .begin(name)
        case "RELEASE": self = .release(name)
        case "ROLLBACK": self = .rollback(name)
        default: self = .none
        }
    }
}
