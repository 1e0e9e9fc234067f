import SQLiteBindings

/// A row that a committed transaction inserted, updated or deleted, as SQLite's update hook reports it.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/update_hook.html>
public struct DatabaseRowChange: Sendable, Hashable {
    /// What happened to a row.
    public enum Kind: Sendable, Hashable {
        /// The row was inserted.
        case insert
        /// The row was updated (its rowid may have changed: an update that sets the rowid reports the new one).
        case update
        /// The row was deleted.
        case delete
    }

    /// What happened to the row.
    public var kind: Kind
    /// The schema of the table: `main`, `temp`, or the name of an attached database.
    public var schema: String
    /// The table's name, as its `CREATE TABLE` spells it.
    public var table: String
    /// The row's rowid.
    public var rowID: Int64

    /// Makes a row change.
    public init(kind: Kind, schema: String, table: String, rowID: Int64) {
        self.kind = kind
        self.schema = schema
        self.table = table
        self.rowID = rowID
    }
}

/// What one committed transaction changed, as a transaction observer receives it: the tables it changed, and the
/// rows of those tables that SQLite's update hook reported.
///
/// ``tables`` names every table the transaction changed, of every kind: it comes from the statements that changed
/// at least one row (SQLite's authorizer names the tables each statement may write, its triggers' included). It can
/// also name a table such a statement's triggers could have written but did not (a trigger whose `WHEN` was
/// false): never a table left out. ``rowChanges`` lists rows of rowid tables only: SQLite reports no row of a `WITHOUT ROWID` table or a virtual table (a change to an
/// FTS5 table shows as changes to its shadow tables, `name_content` and the like), and none of its own `sqlite_`
/// tables.
public struct DatabaseTransactionChanges: Sendable {
    /// The tables the transaction changed (of the observer's tables, when it named some), as their `CREATE TABLE`
    /// statements spell them.
    public var tables: Set<String>
    /// The rows SQLite reported, in the order the statements changed them (of the observer's tables, when it
    /// named some); empty for an observer registered without row changes.
    public var rowChanges: [DatabaseRowChange]
    /// Whether the database changed outside this connection: another connection, in this process or another,
    /// committed since the connection last looked. ``tables`` and ``rowChanges`` are then empty, since SQLite does
    /// not say what another connection changed, and ``changed(table:)`` answers `true` for every table.
    ///
    /// Only the connection of a ``DatabaseQueue`` and the writer of a ``DatabasePool`` learn of such commits, while
    /// an observer is registered (see ``ExternalChangeDetection``). Several commits made close together outside the
    /// connection can come as one such change. It may also come with no commit: SQLite's `data_version`, which
    /// the connection reads, changes too when another process's checkpoint resets the WAL, and a database file that
    /// another process renames over this one's path is never seen (the connection keeps the file it opened).
    public var isExternal = false

    /// Whether the transaction changed the schema: observed queries without a table list run again.
    var schemaChanged = false
    /// The commit's number among those the connection's observers were told of, from 1.
    var commitNumber = 0

    /// Makes a description of a transaction's changes.
    public init(tables: Set<String>, rowChanges: [DatabaseRowChange]) {
        self.tables = tables
        self.rowChanges = rowChanges
    }

    /// Whether the transaction changed `table`, compared as SQLite compares names: without regard to ASCII case.
    /// Always `true` for a change made outside the connection (``isExternal``), which may have changed any table.
    public func changed(table: String) -> Bool {
        isExternal || tables.contains { TransactionObservationBroker.namesMatch($0, table) }
    }
}

/// The identity of a transaction observer, to remove it with ``Database/removeTransactionObserver(_:)``.
public struct TransactionObserverID: Sendable, Hashable {
    let value: Int
}

extension Database {
    /// Registers `observer`, which learns of each transaction this connection commits that changed a table it
    /// watches: all tables when `tables` is `nil`, else those named (without regard to ASCII case, in any schema).
    ///
    /// ```swift
    /// let id = try db.addTransactionObserver(tables: ["player"]) { changes in
    ///     print("committed:", changes.tables, changes.rowChanges.count)
    /// }
    /// try db.execute("INSERT INTO player (name) VALUES (?)", "Arthur")  // the observer runs once, after the commit
    /// db.removeTransactionObserver(id)
    /// ```
    ///
    /// The observer runs on the connection's thread right after the commit succeeded, when the statement that
    /// committed (`COMMIT`, `RELEASE` of the outermost savepoint, or a statement run outside a transaction) has
    /// returned, before that call returns to its caller. It never runs for a transaction that was rolled back, for
    /// the changes of a savepoint rolled back (`ROLLBACK TO`, ``inSavepoint(_:)`` answering `.rollback`), for a
    /// statement that failed and whose changes SQLite undid, or for a `COMMIT` that failed; each commit is delivered
    /// once. It may use the connection (a read, even a write, whose commit is delivered in turn) and may close it.
    /// An observer that captures the connection keeps it alive until it is removed or the connection is closed:
    /// capture it `unowned` or `weak`, or close the connection when done.
    ///
    /// On the connection of a ``DatabaseQueue`` or the writer of a ``DatabasePool``, the observer also learns that
    /// another connection or process committed, with ``DatabaseTransactionChanges/isExternal`` set and no table
    /// named, whatever `tables` it watches (see <doc:SharingADatabase>).
    ///
    /// While an observer is registered the connection installs SQLite's commit, rollback and update hooks and an
    /// authorizer: setting any of those through ``handle`` replaces the connection's and stops the observers.
    /// With `includingRowChanges`, a `DELETE` without `WHERE` deletes its rows one by one, so that each is reported
    /// (SQLite's truncate optimization reports none). Changes made through ``handle`` with statements this
    /// connection did not prepare are reported in ``DatabaseTransactionChanges/rowChanges`` but not always in
    /// ``DatabaseTransactionChanges/tables``.
    ///
    /// - Parameters:
    ///   - tables: the tables to watch; `nil` for every table.
    ///   - includingRowChanges: whether the observer wants ``DatabaseTransactionChanges/rowChanges``; without them
    ///     a write costs nothing per row.
    ///   - observer: the closure, released by ``removeTransactionObserver(_:)`` or when the connection closes.
    /// - Returns: the observer's identity, for ``removeTransactionObserver(_:)``.
    /// - Throws: ``DatabaseError/Reason/connectionClosed`` on a closed connection;
    ///   ``DatabaseError/Reason/unknownTable(_:)`` for a name in `tables` that is neither a table nor a view of any
    ///   schema of the connection (a misspelled name would never be written, and the observer never told).
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/commit_hook.html>
    @discardableResult
    public func addTransactionObserver(
        tables: Set<String>? = nil,
        includingRowChanges: Bool = true,
        _ observer: @escaping (DatabaseTransactionChanges) -> Void
    ) throws -> TransactionObserverID {
        if let tables { try checkTablesExist(tables) }
        return try addTransactionObserverUnchecked(
            tables: tables, includingRowChanges: includingRowChanges, observer)
    }

    /// ``addTransactionObserver(tables:includingRowChanges:_:)`` without checking that the tables exist: for
    /// observers whose tables were checked when each was named, and may have been dropped since.
    func addTransactionObserverUnchecked(
        tables: Set<String>?,
        includingRowChanges: Bool,
        wantsSchemaChanges: Bool = false,
        _ observer: @escaping (DatabaseTransactionChanges) -> Void
    ) throws -> TransactionObserverID {
        let connection = try connection()
        let id = observation.add(
            tables: tables, includingRowChanges: includingRowChanges, wantsSchemaChanges: wantsSchemaChanges, observer)
        observation.install(on: connection)
        startWatchingExternalChanges()
        return id
    }

    /// Removes a transaction observer and releases its closure; does nothing for one already removed, or once the
    /// connection is closed (closing released them all).
    public func removeTransactionObserver(_ id: TransactionObserverID) {
        guard observation.isActive, let connection = handle else { return }
        observation.remove(id)
        if observation.isEmpty {
            observation.uninstall(from: connection)
        } else {
            observation.install(on: connection)
        }
    }
}
