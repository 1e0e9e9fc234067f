import SQLiteBindings

/// The transaction observers of one connection, and what the transaction in progress changed so far.
///
/// SQLite tells a connection three things, through hooks that must not use it: a transaction is about to commit
/// (the commit hook, which cannot tell whether the commit will succeed), a transaction was rolled back (the rollback
/// hook), and a row of a rowid table changed (the update hook). It says nothing when a savepoint is rolled back to, nor
/// which tables a statement wrote when they have no rowid. So the broker also learns, through the authorizer, which
/// tables each statement may write (at prepare time, kept by the ``Statement``), and hears from the statements
/// themselves when each one ends (``statementEnded(_:succeeded:on:database:)``): a statement that changed rows
/// records its tables; `SAVEPOINT`, `RELEASE` and `ROLLBACK TO` move marks in what was recorded; and a statement
/// that ends in autocommit mode after the commit hook ran has committed, which is when the observers are told.
///
/// Belongs to its connection's thread, like the connection.
@usableFromInline
final class TransactionObservationBroker {
    /// One registered observer.
    private struct Observer {
        let id: Int
        /// The lowercased names of the tables it watches; `nil` for all.
        let tables: Set<String>?
        let includingRowChanges: Bool
        let callback: (DatabaseTransactionChanges) -> Void
    }

    private var observers: [Observer] = []
    private var nextID = 0
    /// Changes on each add and remove, so that a statement recomputes which of its tables are watched.
    private(set) var generation = 0
    /// Every watched table's lowercased name, or `nil` when an observer watches all.
    private var watchedTables: Set<String>? = []
    /// The lowercased UTF-8 names of the tables whose rows an observer wants, or `nil` for all; empty when none
    /// wants rows (the update hook is then not installed).
    private var rowTables: [[UInt8]]? = []
    private var wantsRows: Bool { rowTables.map { !$0.isEmpty } ?? true }

    // The transaction in progress.
    /// Tables changed, in order, with repeats: marks of savepoints are counts of this list.
    private var changedTables: [String] = []
    /// Rows changed, in order.
    private var rowChanges: [DatabaseRowChange] = []
    /// The open savepoints, outermost first: each one's name and the counts of the lists when it began.
    private var savepoints: [(name: String, tableCount: Int, rowCount: Int)] = []
    /// The count of ``rowChanges`` when the last statement ended: the rows after it belong to the running statement.
    private var statementRowMark = 0
    /// Set by the commit hook: the statement running now commits, unless its commit fails.
    private var commitRequested = false
    /// Tables the authorizer saw written since the last statement took them: by the statement being prepared, or by
    /// the one being re-prepared while it runs.
    private var authorizedWrites: [String] = []

    var isEmpty: Bool { observers.isEmpty }

    // MARK: - Observers

    func add(
        tables: Set<String>?, includingRowChanges: Bool, _ callback: @escaping (DatabaseTransactionChanges) -> Void
    ) -> TransactionObserverID {
        nextID += 1
        observers.append(
            Observer(
                id: nextID, tables: tables.map { Set($0.map { $0.lowercased() }) },
                includingRowChanges: includingRowChanges, callback: callback))
        observersChanged()
        return TransactionObserverID(value: nextID)
    }

    func remove(_ id: TransactionObserverID) {
        observers.removeAll { $0.id == id.value }
        observersChanged()
    }

    private func observersChanged() {
        generation &+= 1
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
        rowTables = rows.map { $0.map { Array($0.utf8) } }
    }

    /// Whether an observer watches `table`.
    private func isWatched(_ table: String) -> Bool {
        guard let watchedTables else { return true }
        return watchedTables.contains(table.lowercased())
    }

    /// Whether an observer wants the rows of `table`, compared without making a `String`: the update hook asks for
    /// every changed row, and most rows of a busy database are of tables nobody watches.
    private func wantsRows(of table: UnsafePointer<CChar>) -> Bool {
        guard let rowTables else { return true }
        for name in rowTables where Self.cString(table, equalsLowercased: name) { return true }
        return false
    }

    static func cString(_ string: UnsafePointer<CChar>, equalsLowercased name: [UInt8]) -> Bool {
        var index = 0
        while true {
            let byte = UInt8(bitPattern: string[index])
            if index == name.count { return byte == 0 }
            if byte == 0 || asciiLowercase(byte) != name[index] { return false }
            index += 1
        }
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
        connection.setCommitHook { [self] in
            commitRequested = true
            return false
        }
        connection.setRollbackHook { [self] in clearTransaction() }
        if wantsRows {
            connection.setUnsafeUpdateHook({ [self] operation, schema, table, rowid in
                guard wantsRows(of: table) else { return }
                let kind: DatabaseRowChange.Kind =
                    operation == .insert ? .insert : operation == .delete ? .delete : .update
                rowChanges.append(
                    DatabaseRowChange(
                        kind: kind, schema: String(cString: schema), table: String(cString: table), rowID: rowid))
            })
        } else {
            connection.setUnsafeUpdateHook(nil)
        }
        let deletesRowByRow = wantsRows
        _ = connection.setAuthorizer { [self] action, table, _, _, _ in
            guard action == .insert || action == .update || action == .delete, let table,
                !table.utf8.starts(with: "sqlite_".utf8)
            else { return .ok }
            if authorizedWrites.last != table { authorizedWrites.append(table) }
            // SQLite's documented way to turn off the truncate optimization, which deletes every row of a table
            // without reporting one: the DELETE still runs, row by row.
            return action == .delete && deletesRowByRow ? .ignore : .ok
        }
    }

    func uninstall(from connection: ConnectionHandle) {
        connection.setCommitHook(nil)
        connection.setRollbackHook(nil)
        connection.setUnsafeUpdateHook(nil)
        _ = connection.setAuthorizer(nil)
        clearTransaction()
    }

    private func clearTransaction() {
        changedTables.removeAll(keepingCapacity: true)
        rowChanges.removeAll(keepingCapacity: true)
        savepoints.removeAll()
        statementRowMark = 0
        commitRequested = false
    }

    // MARK: - Statements

    /// The tables the authorizer saw written since the last call: those of the statement just prepared.
    func takeAuthorizedWrites() -> [String] {
        defer { authorizedWrites.removeAll() }
        return authorizedWrites
    }

    /// A statement ended (`statement` is `nil` at the end of an access, for a commit nothing else reported): records
    /// the tables it changed, follows savepoints, and delivers a commit.
    func statementEnded(
        _ statement: Statement?, succeeded: Bool, on connection: ConnectionHandle, database: Database
    ) {
        if let statement { record(statement, succeeded: succeeded, on: connection) }
        statementRowMark = rowChanges.count
        guard commitRequested else { return }
        if !connection.isAutocommit() {
            // The commit failed and its transaction is still open (a busy lock, a deferred foreign key): the changes
            // stay pending until the next commit or the rollback.
            commitRequested = false
            return
        }
        guard succeeded else {
            clearTransaction()
            return
        }
        deliver()
    }

    private func record(_ statement: Statement, succeeded: Bool, on connection: ConnectionHandle) {
        if !authorizedWrites.isEmpty {
            // Re-prepared while it ran (the schema or the authorizer changed): its program, and its tables, are new.
            for table in takeAuthorizedWrites() where !statement.writtenTables.contains(table) {
                statement.writtenTables.append(table)
            }
            statement.watchedWritesGeneration = generation &- 1
        }
        if statement.watchedWritesGeneration != generation {
            statement.watchedWrites = statement.writtenTables.filter(isWatched)
            statement.watchedWritesGeneration = generation
        }
        if succeeded {
            // `changes()` is the count of the rows the statement changed itself: no row, no trigger ran either.
            if !statement.watchedWrites.isEmpty && connection.changes() > 0 {
                changedTables.append(contentsOf: statement.watchedWrites)
            }
            // Only a statement that writes no table can be a savepoint's: parsed once, for those alone.
            if statement.writtenTables.isEmpty { followSavepoint(statement.savepointCommand) }
        } else if connection.changes() == 0 {
            // SQLite undid the failed statement's changes (its default, ABORT, sets the count to 0; FAIL keeps the
            // rows done and their count): forget the rows the update hook reported meanwhile.
            if statementRowMark < rowChanges.count { rowChanges.removeSubrange(statementRowMark...) }
        } else if !statement.watchedWrites.isEmpty {
            changedTables.append(contentsOf: statement.watchedWrites)
        }
    }

    private func followSavepoint(_ command: SavepointCommand) {
        switch command {
        case .none:
            return
        case .begin(let name):
            savepoints.append((name, changedTables.count, rowChanges.count))
        case .release(let name):
            guard let index = savepoints.lastIndex(where: { Self.namesMatch($0.name, name) }) else { return }
            savepoints.removeSubrange(index...)
        case .rollback(let name):
            guard let index = savepoints.lastIndex(where: { Self.namesMatch($0.name, name) }) else { return }
            let mark = savepoints[index]
            changedTables.removeSubrange(mark.tableCount...)
            rowChanges.removeSubrange(mark.rowCount...)
            statementRowMark = rowChanges.count
            savepoints.removeSubrange((index + 1)...)
        }
    }

    /// Tells each observer what the committed transaction changed of its tables, after clearing the transaction's
    /// record: an observer may use the connection, and commit again.
    private func deliver() {
        var tables = Set(changedTables)
        for change in rowChanges { tables.insert(change.table) }
        let rows = rowChanges
        clearTransaction()
        guard !tables.isEmpty else { return }
        // A copy: an observer may add or remove observers.
        for observer in observers {
            var changes = DatabaseTransactionChanges(
                tables: tables, rowChanges: observer.includingRowChanges ? rows : [])
            if let watched = observer.tables {
                changes.tables = tables.filter { watched.contains($0.lowercased()) }
                if changes.tables.isEmpty { continue }
                if observer.includingRowChanges {
                    changes.rowChanges = rows.filter { watched.contains($0.table.lowercased()) }
                }
            }
            observer.callback(changes)
        }
    }
}

@available(*, unavailable, message: "a transaction observation broker belongs to its connection's thread")
extension TransactionObservationBroker: Sendable {}

/// What a statement does to savepoints, read once from its SQL.
enum SavepointCommand: Equatable {
    /// Nothing: the statement is not `SAVEPOINT`, `RELEASE` or `ROLLBACK TO`.
    case none
    /// `SAVEPOINT name`.
    case begin(String)
    /// `RELEASE [SAVEPOINT] name`.
    case release(String)
    /// `ROLLBACK [TRANSACTION] TO [SAVEPOINT] name`.
    case rollback(String)

    /// Reads the command of `sql`, skipping white space and comments between its words as SQLite does.
    init(sql: String) {
        var tokens = SQLWords(sql)
        switch tokens.nextKeyword() {
        case "savepoint":
            self = tokens.nextName().map { .begin($0) } ?? .none
        case "release":
            var name = tokens.nextName()
            if name.map({ TransactionObservationBroker.namesMatch($0, "savepoint") }) == true && !tokens.isQuoted {
                name = tokens.nextName() ?? name
            }
            self = name.map { .release($0) } ?? .none
        case "rollback":
            var word = tokens.nextKeyword()
            if word == "transaction" { word = tokens.nextKeyword() }
            guard word == "to" else {
                self = .none
                return
            }
            var name = tokens.nextName()
            if name.map({ TransactionObservationBroker.namesMatch($0, "savepoint") }) == true && !tokens.isQuoted {
                name = tokens.nextName() ?? name
            }
            self = name.map { .rollback($0) } ?? .none
        default:
            self = .none
        }
    }
}

/// The words of a statement's SQL, one at a time: keywords, and names bare or quoted.
struct SQLWords {
    private let bytes: [UInt8]
    private var index = 0
    /// Whether the last name read was quoted (a quoted `"savepoint"` is a name, not the keyword).
    private(set) var isQuoted = false

    init(_ sql: String) {
        bytes = Array(sql.utf8.prefix(512))
    }

    /// The next bare word, lowercased; `nil` at the end or before a quoted name.
    mutating func nextKeyword() -> String? {
        guard let name = nextName(), !isQuoted else { return nil }
        return name.lowercased()
    }

    /// The next name: a bare word, or one in double quotes, brackets, backticks or single quotes.
    mutating func nextName() -> String? {
        skipSpaceAndComments()
        guard index < bytes.count else { return nil }
        let first = bytes[index]
        let closing: UInt8?
        switch first {
        case UInt8(ascii: "\""), UInt8(ascii: "`"), UInt8(ascii: "'"): closing = first
        case UInt8(ascii: "["): closing = UInt8(ascii: "]")
        default: closing = nil
        }
        if let closing {
            isQuoted = true
            index += 1
            var name: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == closing {
                    // A doubled quote stands for one, except in brackets.
                    if closing != UInt8(ascii: "]"), index < bytes.count, bytes[index] == closing {
                        name.append(byte)
                        index += 1
                        continue
                    }
                    return String(decoding: name, as: UTF8.self)
                }
                name.append(byte)
            }
            return nil
        }
        isQuoted = false
        let start = index
        while index < bytes.count, Self.isWordByte(bytes[index]) { index += 1 }
        guard index > start else { return nil }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        byte >= 0x80 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
    }

    private mutating func skipSpaceAndComments() {
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x20 || (0x09...0x0D).contains(byte) {
                index += 1
            } else if byte == UInt8(ascii: "-"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "-") {
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
            } else if byte == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*") {
                index += 2
                while index + 1 < bytes.count,
                    !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/"))
                {
                    index += 1
                }
                index = min(index + 2, bytes.count)
            } else {
                return
            }
        }
    }
}
