import Foundation
import SQLiteToolkit

extension Shell {
    // MARK: - Schema

    /// The databases of the connection in the sqlite3 shell's order: main, temp (once it exists), then the
    /// attached ones, in the order they were attached.
    private func databaseNames() throws -> [String] {
        try strings("SELECT name FROM pragma_database_list ORDER BY seq")
    }

    /// `name` as the sqlite3 shell shows an object of `schema`: as it is in main, `schema.name` elsewhere.
    private static func qualified(_ name: String, in schema: String) -> String {
        schema == "main" ? name : schema + "." + name
    }

    /// `.tables [PATTERN]`: the tables and views of every database (`temp.t`, `aux.t` outside main) whose name is
    /// LIKE the pattern, in columns. A virtual table's shadow tables are left out (pragma_table_list tells them
    /// apart).
    func listTables(matching pattern: String?) throws {
        var names: [String] = []
        for schema in try databaseNames() {
            let tables = try strings(
                """
                SELECT name FROM pragma_table_list
                WHERE schema = ?1 AND type IN ('table', 'view', 'virtual')
                  AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name LIKE ?2
                """, [schema, pattern ?? "%"])
            names += tables.map { Self.qualified($0, in: schema) }
        }
        writeInColumns(names)
    }

    /// `.indexes [TABLE]`: the indexes of every database on tables whose name is LIKE TABLE, in columns.
    func listIndexes(of table: String?) throws {
        var names: [String] = []
        for schema in try databaseNames() {
            let indexes = try strings(
                "SELECT name FROM \(try Database.quoteIdentifier(schema)).sqlite_schema "
                    + "WHERE type = 'index' AND tbl_name LIKE ?1", [table ?? "%"])
            names += indexes.map { Self.qualified($0, in: schema) }
        }
        writeInColumns(names)
    }

    /// `names` sorted (by bytes, as SQL's ORDER BY sorts them) in columns as the sqlite3 shell writes them: each
    /// name padded to the longest, two spaces apart, as many columns as fit 80 characters, filled down then across.
    private func writeInColumns(_ unsorted: [String]) {
        // Bytes, as sqlite3 sorts and measures them: a Latin-1 name's byte is one (see RawText).
        let names = unsorted.sorted { RawText.bytes(of: $0).lexicographicallyPrecedes(RawText.bytes(of: $1)) }
        guard !names.isEmpty else { return }
        let width = names.map { RawText.bytes(of: $0).count }.max() ?? 0
        let columnCount = max(1, 80 / (width + 2))
        let rowCount = (names.count + columnCount - 1) / columnCount
        var text = ""
        for row in 0..<rowCount {
            for index in stride(from: row, to: names.count, by: rowCount) {
                let name = names[index]
                text += (index < rowCount ? "" : "  ") + name
                text += String(repeating: " ", count: width - RawText.bytes(of: name).count)
            }
            text += "\n"
        }
        writeOutput(text)
    }

    /// `.schema [PATTERN]`: the CREATE statements of every database, main's first, those of other databases with
    /// the database's name before the object's (`CREATE TABLE temp.t(…)`), so they rebuild what they show. With
    /// PATTERN, the objects whose name or table is LIKE it; `aux.%` names the database too. A virtual table's
    /// shadow tables are left out.
    func showSchema(matching pattern: String?) throws {
        var schemaPattern = "%"
        var namePattern = pattern ?? "%"
        if let pattern, let dot = pattern.firstIndex(of: ".") {
            schemaPattern = String(pattern[..<dot])
            namePattern = String(pattern[pattern.index(after: dot)...])
        }
        var text = ""
        for schema in try databaseNames() {
            let rows = try database.query(
                """
                SELECT sql, name FROM \(try Database.quoteIdentifier(schema)).sqlite_schema
                WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
                  AND name NOT IN (SELECT name FROM pragma_table_list WHERE schema = ?3 AND type = 'shadow')
                  AND (name LIKE ?1 OR tbl_name LIKE ?1) AND ?3 LIKE ?2
                ORDER BY rowid
                """, arguments: [namePattern, schemaPattern, schema]
            ).map { (sql: try Self.rawText(of: $0, at: 0), name: try Self.rawText(of: $0, at: 1)) }
            for (sql, name) in rows {
                text += Self.qualifiedCreate(sql, in: schema)
                if sql.hasPrefix("CREATE VIEW "), let columns = viewColumns(name, in: schema) {
                    text += "\n/* \(columns) */"
                }
                text += ";\n"
            }
        }
        writeOutput(text)
    }

    /// A view's name and columns as sqlite3 3.40's `.schema` adds them in a comment after its CREATE statement,
    /// `v(x,"2")` (each name quoted when not a plain word, or a keyword); `nil` when SQLite cannot tell its columns
    /// (a view on a table dropped since), where sqlite3 adds nothing.
    private func viewColumns(_ view: String, in schema: String) -> String? {
        var columns: [String] = []
        let sql =
            "SELECT name FROM pragma_table_info(\(Self.stringLiteral(view)), \(Self.stringLiteral(schema))) ORDER BY cid"
        do {
            try forEachRow(of: sql) { columns.append(OutputSettings.sqlName(try Self.rawText(of: $0, at: 0))) }
        } catch {
            return nil
        }
        guard !columns.isEmpty else { return nil }
        return OutputSettings.sqlName(view) + "(" + columns.joined(separator: ",") + ")"
    }

    /// The CREATE statement `sql` of an object of `schema`, with the schema's name put before the object's when
    /// it is not main, as the sqlite3 shell shows it (SQLite stores the statement without it).
    static func qualifiedCreate(_ sql: String, in schema: String) -> String {
        guard schema != "main" else { return sql }
        let kinds = ["TABLE", "VIEW", "TRIGGER", "INDEX", "UNIQUE INDEX", "VIRTUAL TABLE"]
        let upper = sql.uppercased()
        for kind in kinds where upper.hasPrefix("CREATE \(kind) ") {
            let split = sql.utf8.index(sql.startIndex, offsetBy: "CREATE \(kind) ".utf8.count)
            return String(sql[..<split]) + quotedSchemaName(schema) + "." + String(sql[split...])
        }
        return sql
    }

    /// A database's name as the sqlite3 shell writes it before an object's: bare when it is a plain word, in
    /// double quotes otherwise.
    private static func quotedSchemaName(_ name: String) -> String {
        let isPlain =
            name.utf8.first.map { !(0x30...0x39).contains($0) } ?? false
            && name.utf8.allSatisfy { $0 == UInt8(ascii: "_") || (isalnum(Int32($0)) != 0 && $0 < 0x80) }
        return isPlain ? name : "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
