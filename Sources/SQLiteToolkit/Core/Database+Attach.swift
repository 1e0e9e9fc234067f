import SQLiteBindings

extension Database {
    /// A database of the connection, as `PRAGMA database_list` lists it.
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_database_list>
    public struct AttachedDatabase: Sendable, Hashable {
        /// The schema name: `main`, `temp`, or the name given to ``Database/attach(path:as:key:cipher:)``.
        public var name: String
        /// The file's absolute path; empty for an in-memory or temporary database.
        public var path: String
        /// Whether the connection can only read it (opened read-only, or attached from a read-only file).
        public var isReadOnly: Bool = false
    }

    /// Attaches the database at `path` to this connection under the schema name `schema`, so one statement can
    /// read and write tables of both (`SELECT ... FROM main.t JOIN user.t ...`).
    ///
    /// ```swift
    /// try db.attach(path: userDatabasePath, as: "user")
    /// try db.execute("INSERT INTO user.note (text) SELECT text FROM main.draft")
    /// try db.detach("user")
    /// try db.attach(path: "/path/archive.db", as: "archive", key: .raw(archiveKey))  // encrypted, its own key
    /// ```
    ///
    /// `path` takes the same forms as ``Database/init(path:configuration:)``: a file path (created when missing,
    /// if the connection may create files), `":memory:"`, `""`, or a `file:` URI. The path, the name and the key are
    /// bound as arguments, never pasted into the SQL. With a key, the attached database uses `key` and `cipher`
    /// (`ATTACH … KEY`) and the key is checked by reading its schema; without one the attached file is plain —
    /// never the main database's key, which the codec would use for an `ATTACH` with no `KEY`.
    ///
    /// - Throws: ``DatabaseError``: with a name already in use, a file that cannot be opened, past the limit of
    ///   attached databases (`SQLITE_LIMIT_ATTACHED`, 10 by default), ``DatabaseError/Reason/wrongKeyOrNotADatabase``
    ///   for a wrong key or cipher, ``DatabaseError/Reason/keyForPlainDatabase`` for a key given for a plain file,
    ///   or ``DatabaseError/Reason/notADatabase`` for an encrypted file (or one that is not a database) attached
    ///   without a key. Nothing stays attached after an error.
    ///
    /// Related SQLite documentation: <https://sqlite.org/lang_attach.html>
    public func attach(path: String, as schema: String, key: DatabaseKey? = nil, cipher: Cipher = .default) throws {
        guard !schema.utf8.contains(0) else {
            throw DatabaseError.misuse("a schema name cannot hold a NUL character", reason: .invalidIdentifier)
        }
        let connection = try connection()
        try applyCipher(cipher, to: connection)
        defer { try? applyCipher(mainCipher ?? .default, to: connection) }
        if let key { try checkRawKey(key, cipher: cipher) }
        if key != nil { try refuseKeyForPlainFile(atPath: path) }
        let sql = "ATTACH DATABASE ? AS ? KEY ?"
        let (prepareCode, prepared) = connection.prepare(sql: sql, flags: [])
        guard prepareCode == .ok, let statement = prepared else { throw error(prepareCode, sql: sql) }
        // The key is bound without a copy (SQLITE_STATIC) and the statement finalized while its buffer, zeroed
        // afterwards, is alive: SQLite keeps no copy of the key outside the codec.
        let runCode = try { () throws -> ResultCode in
            defer { _ = statement.finalize() }
            var code = statement.bindText(1, path)
            if code == .ok { code = statement.bindText(2, schema) }
            guard code == .ok else { return code }
            if let key {
                return try key.withCodecBytes { bytes in
                    let bound = statement.bindBlob(
                        3, bytes.baseAddress, byteCount: UInt64(bytes.count), destructor: nil)
                    return bound == .ok ? statement.step() : bound
                }
            }
            code = statement.bindBlob(3, UnsafeRawBufferPointer(start: nil, count: 0))
            return code == .ok ? statement.step() : code
        }()
        guard runCode == .done else {
            // ATTACH reads the schema of the new database, so a wrong key fails the statement itself; without a
            // key, an encrypted file fails the same way, and no key was wrong.
            if runCode.primary == .notadb, key != nil {
                throw DatabaseError(
                    extendedCode: .notadb,
                    message: "wrong key or cipher (\(cipher.name)) for \(schema), or the file is not a database",
                    sql: sql,
                    reason: .wrongKeyOrNotADatabase)
            }
            if runCode.primary == .notadb {
                var error = DatabaseError(
                    extendedCode: .notadb,
                    message: "\(schema): the file is encrypted, or not a database: attach an encrypted file with its "
                        + "key, attach(path:as:key:cipher:)",
                    sql: sql,
                    reason: .notADatabase)
                error.path = path
                throw error
            }
            throw error(runCode, sql: sql)
        }
        if key != nil {
            do {
                try verifyKey(schema: schema, cipher: cipher)
            } catch {
                try? detach(schema)
                throw error
            }
        }
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
        let connection = try connection()
        return try query("SELECT name, file FROM pragma_database_list ORDER BY seq").map { row in
            let name: String = try row.value(at: 0)
            return AttachedDatabase(
                name: name, path: try row.value(at: 1, as: String?.self) ?? "",
                isReadOnly: connection.readOnlyState(name) == 1)
        }
    }

    /// Whether a database is attached under the schema name `schema` (`main` and `temp` count).
    public func isAttached(_ schema: String) throws -> Bool {
        try schemaNames().contains { SQLiteLibrary.compareCaseInsensitive($0, schema) == 0 }
    }
}
