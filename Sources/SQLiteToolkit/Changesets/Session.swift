import SQLiteBindings

/// Records the changes made to tables of one schema of a connection, to export them as a ``Changeset``.
///
/// ```swift
/// let session = try Session(database: db)
/// try session.attach("note")             // or attachAll() for every table
/// try db.execute("INSERT INTO note (id, body) VALUES (?, ?)", 1, "Buy milk")
/// let changeset = try session.changeset()
/// ```
///
/// A session records from the moment a table is attached, and only tables with a declared `PRIMARY KEY` (SQLite
/// ignores the others, rowid tables without one included). For each row it keeps the row's original values and
/// its latest ones, so the changeset holds one change per row however many statements touched it.
///
/// A session belongs to its connection and, like a ``Statement``, to the thread that uses it. Closing the
/// connection deletes the session; using it afterwards throws `SQLITE_MISUSE` with reason
/// ``DatabaseError/Reason/sessionDeleted``, and its properties read as empty or off.
///
/// Related SQLite documentation: <https://sqlite.org/sessionintro.html>
public final class Session {
    /// The schema whose tables the session records (`"main"`, or the name of an attached database).
    public let schema: String
    /// The connection. Unowned: closing the connection deletes the session first, so a live handle always has a
    /// live connection.
    unowned let database: Database
    /// The SQLite session; `nil` once deleted.
    private(set) var handle: SessionHandle?
    /// The table filter, kept alive here because SQLite does not retain it.
    private var tableFilter: SessionTableFilter?

    /// Creates a session that records changes to tables of `schema` of `database`. It records nothing until you
    /// attach tables with ``attach(_:)`` or ``attachAll(filter:)``.
    ///
    /// - Throws: ``DatabaseError`` when the connection is closed or `schema` does not exist.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_create.html>
    public init(database: Database, schema: String = "main") throws {
        let connection = try database.connection()
        let (code, created) = SessionHandle.create(connection, schema: schema)
        guard code == .ok, let created else { throw database.error(code, sql: nil) }
        self.schema = schema
        self.database = database
        self.handle = created
        database.register(self)
    }

    deinit {
        delete()
    }

    /// Deletes the session: it stops recording and its changes are dropped. Later calls throw; deleting twice does
    /// nothing. Closing the connection deletes its sessions.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_delete.html>
    public func delete() {
        guard let handle else { return }
        handle.delete()
        self.handle = nil
        tableFilter = nil
        database.forget(self)
    }

    /// Called by the connection when it closes: deletes the session without calling back into the connection.
    func invalidate() {
        guard let handle else { return }
        handle.delete()
        self.handle = nil
        tableFilter = nil
    }

    /// Whether the session can still be used (it was not deleted, and its connection is open).
    public var isValid: Bool { handle != nil }

    /// The live session, or `SQLITE_MISUSE` once deleted.
    private func liveHandle() throws -> SessionHandle {
        guard let handle else {
            throw DatabaseError.misuse(
                "the session was deleted (explicitly, or when its connection closed)", reason: .sessionDeleted)
        }
        return handle
    }

    private func check(_ code: ResultCode) throws {
        guard code == .ok else { throw database.error(code, sql: nil) }
    }

    // MARK: - Tables

    /// Records changes to `table` from now on. A table without a declared `PRIMARY KEY` is accepted but never
    /// recorded (SQLite's rule); attaching twice does nothing.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_attach.html>
    public func attach(_ table: String) throws {
        try check(try liveHandle().attach(table))
    }

    /// Records changes to every table of the schema, including tables created later, or only those for which
    /// `filter` returns `true`. SQLite asks `filter` once per table, the first time a change is made to it.
    ///
    /// ```swift
    /// try session.attachAll { table in table != "cache" }
    /// ```
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_table_filter.html>
    public func attachAll(filter: ((String) -> Bool)? = nil) throws {
        let handle = try liveHandle()
        let box = filter.map(SessionTableFilter.init)
        handle.setTableFilter(box)
        tableFilter = box
        try check(handle.attach(nil))
    }

    // MARK: - Recording

    /// Whether the session records changes (initially `true`). Changes made while it is off are not recorded,
    /// even if they later change recorded rows. Setting it on a deleted session does nothing.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_enable.html>
    public var isEnabled: Bool {
        get { handle?.isEnabled() ?? false }
        set { _ = handle?.enable(newValue) }
    }

    /// Whether the changes recorded from now on are marked indirect, as changes made by triggers and foreign key
    /// actions are (initially `false`); a conflict handler sees it in ``ChangesetChange/isIndirect``. Setting it on
    /// a deleted session does nothing.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_indirect.html>
    public var isIndirect: Bool {
        get { handle?.isIndirect() ?? false }
        set { _ = handle?.setIndirect(newValue) }
    }

    /// Whether no change has been recorded; `true` for a deleted session. A change that was undone later (an insert
    /// then a delete of the same row) still counts as a change, so the session may not be empty though its changeset
    /// is.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_isempty.html>
    public var isEmpty: Bool { handle?.isEmpty() ?? true }

    /// The bytes of heap memory the session uses; 0 once deleted.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_memory_used.html>
    public var memoryUsed: Int64 { handle?.memoryUsed() ?? 0 }

    /// Records the changes that would turn `table` of the schema `fromSchema` (an attached database) into the same
    /// table of the session's schema, as if they had been made. Both tables need the same columns and primary key.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_diff.html>
    public func diff(fromSchema: String, table: String) throws {
        let (code, message) = try liveHandle().diff(fromSchema: fromSchema, table: table)
        guard code == .ok else {
            throw DatabaseError(extendedCode: code, message: message ?? "cannot compare the table \(table)")
        }
    }

    // MARK: - Output

    /// The changes recorded so far, as a changeset: one change per row, with the row's old values (for updates
    /// and deletes) and new values (for inserts and updates). The session keeps recording.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_changeset.html>
    public func changeset() throws -> Changeset {
        let (code, buffer) = try liveHandle().changeset()
        try check(code)
        return Changeset(data: Changeset.data(buffer))
    }

    /// The changes recorded so far, as a patchset: smaller than a changeset (deletes keep only the primary key,
    /// updates only the new values of changed columns), so it detects fewer conflicts and cannot be inverted.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_patchset.html>
    public func patchset() throws -> Changeset {
        let (code, buffer) = try liveHandle().patchset()
        try check(code)
        return Changeset(data: Changeset.data(buffer))
    }
}

@available(*, unavailable, message: "a session belongs to its connection's thread")
extension Session: Sendable {}
