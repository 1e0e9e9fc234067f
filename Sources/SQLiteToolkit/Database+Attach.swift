import SQLiteBindings

extension Database {
    /// A database of the connection, as `PRAGMA database_list` lists it.
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_database_list>
    public struct AttachedDatabase: Sendable, Hashable {
        /// The schema name: `main`, `temp`, or the name given to ``Database/attach(path:as:)``.
        public var name: String
        /// The file's absolute path; empty for an in-memory or temporary database.
        public var path: String
    }

    /// Attaches the database at `path` to this connection under the schema name `schema`, so one statement can
    /// read and write tables of both (`SELECT ... FROM main.t JOIN user.t ...`).
    ///
    /// ```swift
    /// try db.attach(path: userDatabasePath, as: "user")
    /// try db.execute("INSERT INTO user.note (text) SELECT text FROM main.draft")
    /// try db.detach("user")
    /// ```
    ///
    /// `path` takes the same forms as ``Database/init(path:configuration:)``: a file path (created when missing,
    /// if the connection may create files), `":memory:"`, `""`, or a `file:` URI. The path and the name are bound
    /// as arguments, never pasted into the SQL. An attached database uses the connection's cipher settings; a
    /// database with a key of its own needs `ATTACH ... KEY`, which this method does not issue.
    ///
    /// - Throws: ``DatabaseError``: with a name already in use, a file that cannot be opened, or past the limit
    ///   of attached databases (`SQLITE_LIMIT_ATTACHED`, 10 by default).
    ///
    /// Related SQLite documentation: <https://sqlite.org/lang_attach.html>
    public func attach(path: String, as schema: String) throws {
        try attach(path: path, as: schema, keyClause: nil)
    }

    /// The one place that builds `ATTACH`: `keyClause` is the SQL after the schema name and its arguments, so a
    /// keyed form (`KEY ?`, with the key bound) adds a parameter here and nothing else.
    func attach(path: String, as schema: String, keyClause: (sql: String, arguments: [DatabaseValue])?) throws {
        guard !schema.utf8.contains(0) else {
            throw DatabaseError.misuse("a schema name cannot hold a NUL character", reason: .invalidIdentifier)
        }
        // ATTACH takes expressions for the file name and the schema name, so both are bound.
        var sql = "ATTACH DATABASE ? AS ?"
        var arguments: [DatabaseValue] = [.text(path), .text(schema)]
        if let keyClause {
            sql += " " + keyClause.sql
            arguments += keyClause.arguments
        }
        // Not through the statement cache: an attached database's file name should not stay in a kept statement.
        let statement = try prepare(sql)
        try statement.execute(arguments: StatementArguments(arguments))
    }

    /// Detaches the database attached as `schema`.
    ///
    /// - Throws: ``DatabaseError``: while a statement or the open transaction uses it ("database is locked"), or
    ///   when no database is attached under that name (`main` and `temp` cannot be detached).
    ///
    /// Related SQLite documentation: <https://sqlite.org/lang_detach.html>
    public func detach(_ schema: String) throws {
        guard !schema.utf8.contains(0) else {
            throw DatabaseError.misuse("a schema name cannot hold a NUL character", reason: .invalidIdentifier)
        }
        // Cached statements may refer to the schema; they are re-prepared if it comes back, but a finished
        // statement kept in the cache holds nothing that would stop DETACH.
        let statement = try prepare("DETACH DATABASE ?")
        try statement.execute(schema)
    }

    /// The connection's databases: `main`, `temp` once it is used, and every attached database, in order.
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_database_list>
    public func attachedDatabases() throws -> [AttachedDatabase] {
        try query("SELECT name, file FROM pragma_database_list ORDER BY seq").map { row in
            AttachedDatabase(name: try row.value(at: 0), path: try row.value(at: 1, as: String?.self) ?? "")
        }
    }

    /// Whether a database is attached under the schema name `schema` (`main` and `temp` count).
    public func isAttached(_ schema: String) throws -> Bool {
        try schemaNames().contains { SQLiteLibrary.compareCaseInsensitive($0, schema) == 0 }
    }
}
