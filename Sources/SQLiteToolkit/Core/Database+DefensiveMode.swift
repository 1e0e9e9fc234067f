import SQLiteBindings

extension Database {
    /// Whether the connection is in defensive mode now (`SQLITE_DBCONFIG_DEFENSIVE`): SQL cannot write the schema
    /// table or a virtual table's shadow tables, nor take other steps that can corrupt the file. On by default
    /// (``Configuration/isDefensive``).
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/c_dbconfig_defensive.html>
    public var isDefensive: Bool {
        get throws {
            let (code, value) = try connection().configure(.defensive, -1)
            if code != .ok { throw error(code, sql: nil) }
            return value != 0
        }
    }

    /// Runs `body` with defensive mode off, then turns it back on, whether `body` returned or threw: for the rare
    /// tool that must write what defensive mode protects, such as a shell loading a dump whose virtual tables
    /// were written as rows of `sqlite_schema` under `PRAGMA writable_schema`.
    ///
    /// ```swift
    /// try db.withDefensiveModeDisabled { db in
    ///     try db.execute("PRAGMA writable_schema = ON")
    ///     defer { try? db.execute("PRAGMA writable_schema = OFF") }
    ///     try db.execute(
    ///         "INSERT INTO sqlite_schema (type, name, tbl_name, rootpage, sql) VALUES ('table', ?1, ?1, 0, ?2)",
    ///         name, createVirtualTableSQL)
    /// }
    /// ```
    ///
    /// Keep `body` to the statements that need it, on SQL you wrote or checked: without defensive mode, a wrong
    /// write to the schema table can leave a file SQLite no longer opens. A connection opened with
    /// ``Configuration/isDefensive`` `false` stays that way: `body` just runs.
    ///
    /// - Throws: ``DatabaseError`` when the setting cannot change (a closed connection), or what `body` throws.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/c_dbconfig_defensive.html>
    public func withDefensiveModeDisabled<T>(_ body: (Database) throws -> T) throws -> T {
        let connection = try connection()
        // sqlite3_db_config reports the setting after the call: -1 reads it without changing it.
        let (readCode, previous) = connection.configure(.defensive, -1)
        if readCode != .ok { throw error(readCode, sql: nil) }
        let (code, _) = connection.configure(.defensive, 0)
        if code != .ok { throw error(code, sql: nil) }
        defer {
            // Turning a setting back on cannot fail on an open connection; the check is for a body that closed it.
            if previous != 0, isOpen { _ = connection.configure(.defensive, 1) }
        }
        return try body(self)
    }
}
