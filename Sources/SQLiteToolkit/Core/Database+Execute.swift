import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Database {
    /// Runs one statement with positional arguments, through the statement cache. A statement that returns rows
    /// runs to completion and its rows are discarded.
    ///
    /// ```swift
    /// try db.execute("INSERT INTO player (name, score) VALUES (?, ?)", "Arthur", 100)
    /// ```
    ///
    /// - Throws: ``DatabaseError``; with a wrong argument count nothing runs.
    @inlinable
    public func execute<each Value: DatabaseValueConvertible>(
        _ sql: String,
        _ arguments: repeat each Value
    ) throws {
        try executeCached(
            sql, { try $0.execute(repeat each arguments) },
            describing: { StatementArguments(describing: repeat each arguments) })
    }

    /// Runs `body` on the cached statement for `sql` and checks the statement in again; adds the arguments to an
    /// error when the configuration allows it. The one body of every positional `execute`, the pack form above and
    /// the fixed-arity forms of `Database+ArgumentOverloads.swift`.
    @inlinable
    func executeCached(
        _ sql: String,
        _ body: (Statement) throws -> Void,
        describing arguments: () -> StatementArguments
    ) throws {
        let statement = try cachedStatement(sql)
        defer { statementCache.checkIn(statement) }
        do {
            try body(statement)
        } catch {
            throw withArguments(error, arguments)
        }
    }

    /// Runs one statement with positional or named arguments, through the statement cache.
    ///
    /// ```swift
    /// try db.execute("UPDATE player SET score = :score WHERE id = :id", arguments: ["score": 1, "id": 2])
    /// ```
    public func execute(_ sql: String, arguments: StatementArguments) throws {
        let statement = try cachedStatement(sql)
        defer { statementCache.checkIn(statement) }
        do {
            try statement.execute(arguments: arguments)
        } catch {
            throw withArguments(error) { arguments }
        }
    }

    /// Runs SQL built with interpolation: every interpolated value becomes a bound argument, never SQL text.
    ///
    /// ```swift
    /// try db.execute(sql: "DELETE FROM player WHERE name = \(name)")
    /// ```
    public func execute(sql: SQL) throws {
        try execute(sql.text, arguments: sql.statementArguments)
    }

    /// Adds the arguments to `error` when the configuration allows it.
    @usableFromInline
    func withArguments(_ error: any Error, _ arguments: () -> StatementArguments) -> any Error {
        guard configuration.includesArgumentsInErrors, var error = error as? DatabaseError else { return error }
        error.arguments = arguments().description
        return error
    }

    /// Runs a script of statements separated by `;`, calling `rowHandler` with every row any of them returns.
    /// Stops at the first failing statement and throws its error (statements before it stay applied, unless the
    /// script runs in a transaction). FMDB's `executeStatements:withResultBlock:`.
    ///
    /// - Throws: ``DatabaseError``; SQL holding a NUL character throws ``DatabaseError/Reason/embeddedNUL(offset:)``
    ///   before anything runs (SQLite would silently ignore the statements after it).
    public func executeScript(_ sql: String, rowHandler: ((Row) throws -> Void)? = nil) throws {
        if let offset = Database.nulOffset(in: sql) { throw Database.nulError(offset: offset, sql: sql) }
        try sql.withCString { start in
            try runScript(start, byteCount: sql.utf8.count, text: sql, rowHandler: rowHandler)
        }
    }

    /// Runs a script given as its bytes, as ``executeScript(_:rowHandler:)`` runs a `String`: for text that is not
    /// UTF-8 (a dump of a Latin-1 database), which SQLite stores as the bytes it is given, as the sqlite3 shell
    /// does, where a `String` holds U+FFFD in place of each such byte.
    ///
    /// ```swift
    /// try db.executeScript(bytes: Array("INSERT INTO t VALUES ('caf".utf8) + [0xE9] + Array("');".utf8))
    /// ```
    ///
    /// - Throws: ``DatabaseError``, whose SQL is the text decoded with U+FFFD for the bytes that are not UTF-8; SQL
    ///   holding a NUL byte throws ``DatabaseError/Reason/embeddedNUL(offset:)`` before anything runs.
    public func executeScript(bytes sql: [UInt8], rowHandler: ((Row) throws -> Void)? = nil) throws {
        let text = String(decoding: sql, as: UTF8.self)
        if let offset = sql.firstIndex(of: 0) { throw Database.nulError(offset: offset, sql: text) }
        try (sql + [0]).withUnsafeBufferPointer { bytes in
            try bytes.withMemoryRebound(to: CChar.self) { characters in
                guard let start = characters.baseAddress else { return }
                try runScript(start, byteCount: sql.count, text: text, rowHandler: rowHandler)
            }
        }
    }

    /// The statements of the NUL-terminated script at `start`, `byteCount` bytes long, run one after the other;
    /// `text` is the script as errors name it.
    private func runScript(
        _ start: UnsafePointer<CChar>, byteCount: Int, text sql: String, rowHandler: ((Row) throws -> Void)?
    ) throws {
        var cursor = start
        while cursor.pointee != 0 {
            // Skip the white space before a statement, so its text and SQLite's error offset start together.
            // C's `isspace` in the C locale: space, tab, newline, vertical tab, form feed, carriage return.
            let byte = UInt8(bitPattern: cursor.pointee)
            if byte == 0x20 || (0x09...0x0D).contains(byte) {
                cursor += 1
                continue
            }
            // A row handler may close the connection: check before each statement.
            let connection = try connection(for: sql)
            let (code, statementHandle, tail) = connection.prepare(sql: cursor, byteCount: -1, flags: [])
            // The script holds no NUL (checked by the callers), so its C string ends after its bytes.
            let end = tail ?? start + byteCount
            // The white space after the statement (before the end of a script without a final `;`) is dropped
            // here: ASCII white space byte by byte (Foundation's trimming cost more than the statement's prepare
            // and step), then, only when a non-ASCII byte ends the text, the rest of Foundation's set by
            // character.
            var textEnd = end
            while textEnd > cursor {
                let last = UInt8(bitPattern: (textEnd - 1).pointee)
                guard last == 0x20 || (0x09...0x0D).contains(last) else { break }
                textEnd -= 1
            }
            var text = String(
                decoding: UnsafeRawBufferPointer(start: cursor, count: textEnd - cursor), as: UTF8.self)
            if textEnd > cursor, UInt8(bitPattern: (textEnd - 1).pointee) >= 0x80 {
                while let last = text.last, Database.isTrimmedWhitespace(last) { text.removeLast() }
            }
            guard code == .ok else { throw error(code, sql: text) }
            cursor = end
            guard let statementHandle else { continue }  // only white space or a comment was left
            let statement = register(Statement(handle: statementHandle, sql: text, database: self, isCached: false))
            if let rowHandler {
                let rows = try Rows(statement: statement, returnsToCache: false)
                while let row = try rows.next() { try rowHandler(row) }
            } else {
                try statement.run()
            }
        }
    }

    /// A cursor over the rows of a query with positional arguments, through the statement cache.
    ///
    /// The cursor holds the cached statement until it reaches the end or is dropped.
    @inlinable
    public func query<each Value: DatabaseValueConvertible>(
        _ sql: String,
        _ arguments: repeat each Value
    ) throws -> Rows {
        try queryCached(
            sql, { try $0.bind(repeat each arguments) },
            describing: { StatementArguments(describing: repeat each arguments) })
    }

    /// A cursor over the rows of the cached statement for `sql`, bound by `bind`. The one body of every positional
    /// `query`, the pack form above and the fixed-arity forms of `Database+ArgumentOverloads.swift`.
    @inlinable
    func queryCached(
        _ sql: String,
        _ bind: (Statement) throws -> Void,
        describing arguments: () -> StatementArguments
    ) throws -> Rows {
        let statement = try cachedStatement(sql)
        do {
            try bind(statement)
            return try Rows(statement: statement, returnsToCache: true)
        } catch {
            statementCache.checkIn(statement)
            throw withArguments(error, arguments)
        }
    }

    /// A cursor over the rows of a query with positional or named arguments.
    public func query(_ sql: String, arguments: StatementArguments) throws -> Rows {
        let statement = try cachedStatement(sql)
        do {
            try statement.bind(arguments)
            return try Rows(statement: statement, returnsToCache: true)
        } catch {
            statementCache.checkIn(statement)
            throw withArguments(error) { arguments }
        }
    }

    /// A cursor over the rows of SQL built with interpolation (values become bound arguments).
    public func query(sql: SQL) throws -> Rows {
        try query(sql.text, arguments: sql.statementArguments)
    }

    /// The first column of the first row, or `nil` when there is no row (FMDB's `intForQuery:` family, throwing).
    ///
    /// ```swift
    /// let count = try db.queryValue("SELECT COUNT(*) FROM player", as: Int.self) ?? 0
    /// ```
    @inlinable
    public func queryValue<T: DatabaseValueConvertible, each Value: DatabaseValueConvertible>(
        _ sql: String,
        _ arguments: repeat each Value,
        as type: T.Type = T.self
    ) throws -> T? {
        try queryValueCached(
            sql, as: T.self, required: false, { try $0.bind(repeat each arguments) },
            describing: { StatementArguments(describing: repeat each arguments) })
    }

    /// The first column of the first row; throws ``DatabaseError/Reason/noRow`` (code `SQLITE_NOTFOUND`) when the
    /// query returns no row. Use ``queryValue(_:_:as:)`` to get `nil` instead.
    ///
    /// ```swift
    /// let name = try db.queryRequiredValue("SELECT name FROM player WHERE id = ?", 1, as: String.self)
    /// ```
    @inlinable
    public func queryRequiredValue<T: DatabaseValueConvertible, each Value: DatabaseValueConvertible>(
        _ sql: String,
        _ arguments: repeat each Value,
        as type: T.Type = T.self
    ) throws -> T {
        let value = try queryValueCached(
            sql, as: T.self, required: true, { try $0.bind(repeat each arguments) },
            describing: { StatementArguments(describing: repeat each arguments) })
        guard let value else { throw Database.noRowError(sql: sql) }  // `required` threw already
        return value
    }

    /// The first column of the first row of the cached statement for `sql`, bound by `bind`: `nil` when there is
    /// no row, or the ``DatabaseError/Reason/noRow`` error when `required`. The one body of every positional
    /// `queryValue` and `queryRequiredValue`, the pack forms above and the fixed-arity forms of
    /// `Database+ArgumentOverloads.swift`.
    @inlinable
    func queryValueCached<T: DatabaseValueConvertible>(
        _ sql: String,
        as type: T.Type,
        required: Bool,
        _ bind: (Statement) throws -> Void,
        describing arguments: () -> StatementArguments
    ) throws -> T? {
        // No cursor: the statement is stepped once, read, and reset right here.
        let statement = try cachedStatement(sql)
        defer {
            // Once retired (a callback closed the connection), the handle may be finalized: never touch it, and
            // release the connection now that the statement that ran the callback has returned.
            if statement.isFinalized { finishDeferredClose() } else { _ = statement.handle.reset() }
            // Out of line, so that this function stays small enough to inline into its callers.
            if observation.isActive { observation.statementReset(statement) }
            statementCache.checkIn(statement)
        }
        do {
            try bind(statement)
            // One step, without `step()`'s check for a re-preparation: that check refreshes the column count and
            // names, and this read uses neither (a statement that gives a row has a column 0). The flag that asks
            // for the check stays set, so the statement's next `step()` or cursor still makes it.
            try statement.checkUsable()
            let code = statement.handle.step()
            guard code == .row else {
                if code != .done { throw error(code, sql: sql) }
                if required { throw Database.noRowError(sql: sql) }
                return nil
            }
            return try statement.columnValue(at: 0, as: T.self)
        } catch {
            throw withArguments(error, arguments)
        }
    }

    /// The error of a required value whose query returned no row.
    @usableFromInline
    static func noRowError(sql: String) -> DatabaseError {
        DatabaseError(extendedCode: .notfound, message: "the query returned no row", sql: sql, reason: .noRow)
    }

    /// The first row as a dictionary from column names to values, or `nil` when there is no row.
    @inlinable
    public func queryRow<each Value: DatabaseValueConvertible>(
        _ sql: String,
        _ arguments: repeat each Value
    ) throws -> [String: DatabaseValue]? {
        let rows = try query(sql, repeat each arguments)
        defer { rows.close() }
        return try rows.next()?.dictionary
    }
}

extension Database {
    /// Whether a script trims `character` around a statement's text: the characters of Foundation's
    /// `CharacterSet.whitespacesAndNewlines` (a test compares them scalar by scalar), without needing Foundation's
    /// `trimmingCharacters(in:)`, which FoundationEssentials lacks. That set is Unicode's White_Space property
    /// (`Character.isWhitespace`) plus the zero width space, U+200B.
    static func isTrimmedWhitespace(_ character: Character) -> Bool {
        character.isWhitespace || character == "\u{200B}"
    }
}
