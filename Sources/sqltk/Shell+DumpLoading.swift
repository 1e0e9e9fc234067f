import SQLiteToolkit

/// Loading a sqlite3 dump that holds virtual tables.
///
/// The sqlite3 shell dumps a virtual table (FTS5, R*Tree, ...) as a row it writes straight into the schema table,
/// then its shadow tables as ordinary tables with their rows:
///
/// ```sql
/// PRAGMA writable_schema=ON;
/// INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table','ft','ft',0,'CREATE VIRTUAL TABLE ...');
/// CREATE TABLE IF NOT EXISTS 'ft_data'(id INTEGER PRIMARY KEY, block BLOB);
/// INSERT INTO ft_data VALUES(...);
/// ...
/// PRAGMA writable_schema=OFF;
/// ```
///
/// A defensive connection (the toolkit's default) refuses both the pragma and the insert. When a script or
/// `.read` file holds such an insert, and only then, the shell checks that it is exactly that shape (one row:
/// type `table`, name and table name equal, root page 0, SQL that is one `CREATE VIRTUAL TABLE` statement naming
/// no existing object) and writes that one row itself, with defensive mode off for that statement alone. The
/// schema is read again at the dump's `PRAGMA writable_schema=OFF` (or at the end of the input), after the shadow
/// tables were filled as ordinary tables, so the virtual table then finds its data. Anything else that writes the
/// schema table fails as it always does.
extension Shell {
    /// What a run of lines remembers about the dump it may be loading.
    struct DumpLoad {
        /// Whether the input may hold a dump (scripts and `.read` files, never typed SQL).
        var isEnabled: Bool
        /// Whether a virtual table's row was written and the schema must be read again.
        var needsSchemaReload = false
    }

    /// Runs `sql` when it is a statement of a sqlite3 dump that a defensive connection refuses, and returns
    /// `true`; returns `false` for any other SQL, which the caller runs as usual.
    func runDumpStatement(_ sql: String, in load: inout DumpLoad, location: Location?) -> Bool {
        guard load.isEnabled else { return false }
        if let values = Self.schemaRowValues(in: sql) {
            do {
                try insertVirtualTableRow(values: values)
                load.needsSchemaReload = true
            } catch {
                report(error, at: location)
            }
            return true
        }
        if load.needsSchemaReload && Self.isWritableSchemaOff(sql) {
            finish(&load)
            return true
        }
        return false
    }

    /// Reads the schema again after virtual tables were written into it.
    func finish(_ load: inout DumpLoad) {
        guard load.needsSchemaReload else { return }
        load.needsSchemaReload = false
        // RESET turns writable_schema off (it is off already) and makes the connection read the schema again.
        do { try database.execute("PRAGMA writable_schema = RESET") } catch { report(error) }
    }

    /// The `VALUES(...)` part of `sql` when it is the insert into the schema table that the sqlite3 shell writes for a
    /// virtual table, else `nil`.
    static func schemaRowValues(in sql: String) -> Substring? {
        // Most statements of a dump are inserts into other tables: decide on the bytes, without String indices.
        var sql = sql
        let valuesOffset: Int? = sql.withUTF8 { bytes in
            for expected in schemaInsertPrefixes {
                if let offset = matchSchemaInsert(bytes, expected: expected) { return offset }
            }
            return nil
        }
        guard let valuesOffset else { return nil }
        return sql[sql.utf8.index(sql.startIndex, offsetBy: valuesOffset)...]
    }

    /// What the sqlite3 shell writes before a virtual table's row, lowercased and without spaces, under the schema
    /// table's two names.
    private static let schemaInsertPrefixes = ["sqlite_schema", "sqlite_master"].map {
        Array("insertinto\($0)(type,name,tbl_name,rootpage,sql)values(".utf8)
    }

    /// The offset of `VALUES` when `bytes` start with `expected` (`INSERT INTO sqlite_schema(…)VALUES(`), in any
    /// case and with any white space between the words.
    private static func matchSchemaInsert(_ bytes: UnsafeBufferPointer<UInt8>, expected: [UInt8]) -> Int? {
        let valuesIndex = expected.count - 7
        var index = 0
        var matched = 0
        var valuesOffset = 0
        while index < bytes.count && matched < expected.count {
            let byte = bytes[index]
            index += 1
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { continue }
            let lowered = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
            guard lowered == expected[matched] else { return nil }
            if matched == valuesIndex { valuesOffset = index - 1 }
            matched += 1
        }
        return matched == expected.count ? valuesOffset : nil
    }

    /// Whether `sql` is `PRAGMA writable_schema=OFF` (or `=0`, `=RESET`), however spaced, with its semicolon.
    static func isWritableSchemaOff(_ sql: String) -> Bool {
        // Most statements of a dump are long inserts: rule them out before lowercasing anything.
        guard sql.utf8.count < 80, let first = firstNonBlankByte(of: sql), first | 0x20 == UInt8(ascii: "p") else {
            return false
        }
        let compact = String(sql.lowercased().unicodeScalars.filter { !$0.properties.isWhitespace })
        return ["pragmawritable_schema=off;", "pragmawritable_schema=0;", "pragmawritable_schema=reset;"].contains(
            compact)
    }

    /// Checks the row `values` (`VALUES('table','ft','ft',0,'CREATE VIRTUAL TABLE ...');`) and writes it into the
    /// schema table, with defensive mode off for that one statement.
    private func insertVirtualTableRow(values: Substring) throws {
        // VALUES is a statement of its own: reading it runs nothing (the connection is defensive meanwhile). Its
        // text keeps bytes that are not UTF-8 (a Latin-1 name, see RawText), written back as those bytes below.
        let rows = try Self.prepare(String(values), in: database).query().map { row in
            try (0..<row.count).map { index -> DatabaseValue in
                row.datatype(at: index) == .text ? .text(try Self.rawText(of: row, at: index)) : row[index]
            }
        }
        guard rows.count == 1, rows[0].count == 5,
            case .text(let type) = rows[0][0], case .text(let name) = rows[0][1],
            case .text(let tableName) = rows[0][2], case .integer(let rootPage) = rows[0][3],
            case .text(let sql) = rows[0][4],
            type == "table", name == tableName, rootPage == 0
        else {
            throw Failure("only a virtual table's row (type table, root page 0) is written into sqlite_schema")
        }
        guard Self.isCreateVirtualTable(sql) else {
            throw Failure("the row written into sqlite_schema must hold one CREATE VIRTUAL TABLE statement")
        }
        // The name and SQL go in as literals: a binding cannot carry bytes that are not UTF-8.
        let existing = try Self.prepare(
            "SELECT count(*) FROM sqlite_schema WHERE name = \(Self.stringLiteral(name)) COLLATE NOCASE", in: database
        ).query().map { try $0.value(at: 0) as Int }.first
        guard existing == 0 else { throw Failure("\(name) already exists; its row is not written again") }
        // Compiling it proves it is one statement SQLite reads back when it loads the schema.
        _ = try Self.prepare(sql, in: database)
        let insert = RawText.bytes(
            of: "INSERT INTO sqlite_schema (type, name, tbl_name, rootpage, sql) VALUES ('table', "
                + "\(Self.stringLiteral(name)), \(Self.stringLiteral(name)), 0, \(Self.stringLiteral(sql)))")
        try database.withDefensiveModeDisabled { db in
            try db.execute("PRAGMA writable_schema = ON")
            defer { try? db.execute("PRAGMA writable_schema = OFF") }
            try db.executeScript(bytes: insert)
        }
    }

    /// Whether `sql` starts with `CREATE VIRTUAL TABLE`, in any case and spacing.
    static func isCreateVirtualTable(_ sql: String) -> Bool {
        let words = sql.split(whereSeparator: { $0.isWhitespace }).prefix(3).map { $0.uppercased() }
        return words == ["CREATE", "VIRTUAL", "TABLE"]
    }
}
