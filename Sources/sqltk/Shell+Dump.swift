import Foundation
import SQLiteToolkit

extension Shell {
    /// One object of the schema, as `.dump` sees it.
    private struct SchemaObject {
        var type: String
        var name: String
        var tableName: String
        var sql: String
        /// `table`, `view`, `virtual` or `shadow` (a table a virtual table keeps its data in), per `pragma_table_list`.
        var tableKind: String
    }

    /// Prints SQL text that rebuilds the database: the tables with their rows (in creation order), then the indexes,
    /// triggers and views, in one transaction.
    ///
    /// A virtual table's shadow tables are not dumped: creating the virtual table creates them, and its rows are
    /// inserted through it (an external-content full-text table is rebuilt from its content table instead). The
    /// statistics tables of `ANALYZE` are left out; run `ANALYZE` again after loading.
    func dump() throws {
        let objects = try database.query(
            """
            SELECT s.type, s.name, s.tbl_name, s.sql, coalesce(t.type, '')
            FROM sqlite_schema AS s LEFT JOIN pragma_table_list AS t ON t.schema = 'main' AND t.name = s.name
            WHERE s.sql IS NOT NULL
            ORDER BY s.rowid
            """
        ).map { row in
            SchemaObject(
                type: try row.value(at: 0), name: try row.value(at: 1), tableName: try row.value(at: 2),
                sql: try row.value(at: 3), tableKind: try row.value(at: 4))
        }
        let shadowTables = Set(objects.filter { $0.tableKind == "shadow" }.map(\.name))
        let tables = objects.filter {
            $0.type == "table" && $0.tableKind != "shadow" && !$0.name.hasPrefix("sqlite_stat")
        }

        // Counting rows costs a scan per table: only when a progress bar will show.
        let progress = ProgressBar("dump", enabled: isErrorTerminal && !isOutputTerminal)
        defer { progress.finish() }
        var total = 0
        if isErrorTerminal && !isOutputTerminal {
            for table in tables where table.tableKind != "virtual" {
                total +=
                    try database.queryValue(
                        "SELECT count(*) FROM \(try Database.quoteIdentifier(table.name))", as: Int.self) ?? 0
            }
        }
        var done = 0

        writeOutput("PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\n")
        let userVersion = try database.queryValue("PRAGMA user_version", as: Int.self) ?? 0
        if userVersion != 0 { writeOutput("PRAGMA user_version=\(userVersion);\n") }
        for table in tables {
            if table.name == "sqlite_sequence" {
                writeOutput("DELETE FROM sqlite_sequence;\n")
            } else {
                writeOutput(table.sql + ";\n")
            }
            if table.tableKind == "virtual" {
                let options = table.sql.lowercased().replacingOccurrences(of: " ", with: "")
                if options.contains("content=''") || options.contains("content=\"\"") { continue }
                if options.contains("content=") {
                    let name = try Database.quoteIdentifier(table.name)
                    writeOutput("INSERT INTO \(name)(\(name)) VALUES('rebuild');\n")
                    continue
                }
            }
            try dumpRows(of: table.name) {
                done += 1
                progress.update(done: done, total: total)
            }
        }
        for object in objects where object.type != "table" && !shadowTables.contains(object.tableName) {
            writeOutput(object.sql + ";\n")
        }
        writeOutput("COMMIT;\n")
    }

    /// Prints an `INSERT` for every row of `table`, leaving out generated columns (which the `CREATE TABLE`
    /// computes again).
    private func dumpRows(of table: String, afterEachRow: () -> Void) throws {
        let name = try Database.quoteIdentifier(table)
        // table_xinfo's `hidden`: 0 for an ordinary column, 1 for a virtual table's hidden column, 2 and 3 for
        // generated ones.
        let columns = try database.query("SELECT name, hidden FROM pragma_table_xinfo(?)", table).map { row in
            (name: try row.value(at: 0) as String, hidden: try row.value(at: 1) as Int)
        }
        let stored = try columns.filter { $0.hidden == 0 }.map { try Database.quoteIdentifier($0.name) }
        guard !stored.isEmpty else { return }
        let prefix =
            stored.count == columns.count
            ? "INSERT INTO \(name) VALUES(" : "INSERT INTO \(name)(\(stored.joined(separator: ","))) VALUES("
        let rows = try database.query("SELECT \(stored.joined(separator: ", ")) FROM \(name)")
        while let row = try rows.next() {
            writeOutput(prefix + row.values.map(Self.sqlLiteral).joined(separator: ",") + ");\n")
            afterEachRow()
        }
    }

    /// `value` as an SQL literal that reads back as the same value and storage class.
    static func sqlLiteral(_ value: DatabaseValue) -> String {
        switch value {
        case .null:
            return "NULL"
        case .integer(let number):
            return String(number)
        case .real(let number):
            // 1e999 overflows to infinity when SQLite parses it: the dump keeps infinite values.
            if number.isInfinite { return number < 0 ? "-1e999" : "1e999" }
            return String(number)
        case .text(let text):
            // A NUL cannot appear in a string literal: such text goes through a blob of its bytes.
            if text.utf8.contains(0) {
                return "CAST(X'" + text.utf8.map { hexByte($0) }.joined() + "' AS TEXT)"
            }
            return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let bytes):
            return "X'" + bytes.map { hexByte($0) }.joined() + "'"
        }
    }

    private static func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
