import SQLiteBindings

extension Database {
    /// Compiles `sql`, given as its bytes and holding exactly one statement, into a ``Statement``, as
    /// ``prepare(_:)`` compiles a `String`: for SQL that is not UTF-8 (a Latin-1 name or literal), which SQLite
    /// reads as the bytes it is given, where a `String` would hold U+FFFD in place of each such byte.
    ///
    /// ```swift
    /// let statement = try db.prepare(bytes: Array("SELECT hex('caf".utf8) + [0xE9] + Array("')".utf8))
    /// ```
    ///
    /// - Throws: ``DatabaseError``, whose SQL (as the statement's ``Statement/sql``) is the text decoded with
    ///   U+FFFD for the bytes that are not UTF-8; SQL holding a NUL byte throws
    ///   ``DatabaseError/Reason/embeddedNUL(offset:)``, SQL holding a second statement `SQLITE_MISUSE`.
    public func prepare(bytes sql: [UInt8]) throws -> Statement {
        let text = String(decoding: sql, as: UTF8.self)
        if let offset = sql.firstIndex(of: 0) { throw Database.nulError(offset: offset, sql: text) }
        let connection = try connection(for: text)
        let (code, statementHandle, tailOffset) = (sql + [0]).withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { characters -> (ResultCode, StatementHandle?, Int) in
                guard let start = characters.baseAddress else { return (.misuse, nil, 0) }
                let (code, statement, tail) = connection.prepare(sql: start, byteCount: -1, flags: [])
                return (code, statement, tail.map { $0 - start } ?? sql.count)
            }
        }
        // A callback SQLite ran while preparing may have closed the connection, as in prepare(_:).
        guard handle != nil else {
            _ = statementHandle?.finalize()
            throw closedError(sql: text)
        }
        guard code == .ok else { throw error(code, sql: text) }
        if tailOffset < sql.count {
            let rest = String(decoding: sql[tailOffset...], as: UTF8.self)
            if !Database.isOnlyComments(rest[...]) {
                _ = statementHandle?.finalize()
                let tail = String(rest.drop { $0.isWhitespace || $0 == ";" }.prefix(40))
                throw DatabaseError.misuse(
                    "the SQL holds more than one statement (unused: \"\(tail)\"); use executeScript(bytes:) to run "
                        + "several",
                    sql: text,
                    reason: .multipleStatements(tail: tail)
                )
            }
        }
        guard let statementHandle else {
            throw DatabaseError.misuse("the SQL holds no statement", sql: text, reason: .noStatement)
        }
        return register(Statement(handle: statementHandle, sql: text, database: self, isCached: false))
    }
}
