import SQLiteBindings

extension Database {
    /// Whether SQLite reads `word` as one of its keywords (`SELECT`, `order`, `Group`: ASCII case does not matter),
    /// so that it must be quoted to name a table or column.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/keyword_check.html>
    public static func isKeyword(_ word: String) -> Bool {
        var word = word
        return word.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { text in
                SQLiteLibrary.isKeyword(text.baseAddress, byteCount: Int32(clamping: text.count))
            }
        }
    }

    /// `name` as a quoted SQL identifier: wrapped in double quotes, each double quote inside doubled.
    ///
    /// Use it when SQL text must name a table, column, index or schema that comes from a variable; values are
    /// bound as arguments instead. Every name the toolkit and `sqltk` put into SQL text goes through here, so
    /// `a"b`, `234 fds` or `x"; DROP TABLE t; --` name one object and never run as SQL:
    ///
    /// ```swift
    /// let table = try Database.quoteIdentifier("order items")  // "\"order items\""
    /// let count = try db.queryValue("SELECT count(*) FROM " + table, as: Int.self)
    /// ```
    ///
    /// - Throws: ``DatabaseError/Reason/invalidIdentifier`` for a name holding a NUL character, which would end
    ///   the SQL text early.
    ///
    /// Related SQLite documentation: <https://sqlite.org/lang_keywords.html>
    public static func quoteIdentifier(_ name: String) throws -> String {
        guard !name.utf8.contains(0) else {
            throw DatabaseError.misuse("an identifier cannot hold a NUL character", reason: .invalidIdentifier)
        }
        var quoted = "\""
        quoted.reserveCapacity(name.utf8.count + 2)
        for character in name.unicodeScalars {
            if character == "\"" { quoted.unicodeScalars.append("\"") }
            quoted.unicodeScalars.append(character)
        }
        quoted.unicodeScalars.append("\"")
        return quoted
    }

    /// The quoted `sqlite_schema` table of `schema`; `temp` has its own.
    static func schemaTable(_ schema: String) throws -> String {
        try "\(quoteIdentifier(schema)).sqlite_schema"
    }

    /// Throws ``DatabaseError/Reason/noSuchSchema(_:)`` unless the connection has a schema named `schema`.
    func checkSchemaExists(_ schema: String) throws {
        guard try schemaNames().contains(where: { $0.isSameIdentifier(as: schema) }) else {
            throw DatabaseError(
                extendedCode: .error, message: "no such schema: \(schema)", reason: .noSuchSchema(schema))
        }
    }

    /// The names of the connection's schemas, in SQLite's order: `main`, `temp`, then attached databases.
    func schemaNames() throws -> [String] {
        let connection = try connection()
        var names: [String] = []
        var index: Int32 = 0
        while let name = connection.databaseName(index) {
            names.append(name)
            index += 1
        }
        return names
    }
}

extension String {
    /// ASCII case-insensitive equality, as SQLite compares identifiers.
    func isSameIdentifier(as other: String) -> Bool {
        SQLiteLibrary.compareCaseInsensitive(self, other) == 0
    }
}
