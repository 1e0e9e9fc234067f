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
        let prefix = Array(
            (stored.count == columns.count
                ? "INSERT INTO \(name) VALUES(" : "INSERT INTO \(name)(\(stored.joined(separator: ","))) VALUES(").utf8)
        let rows = try database.query("SELECT \(stored.joined(separator: ", ")) FROM \(name)")
        let output = OutputBuffer.standardOutput
        let columnCount = stored.count
        while let row = try rows.next() {
            output.append(prefix)
            for index in 0..<columnCount {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.appendLiteral(row[index], to: output)
            }
            output.append(Self.statementEnd)
            afterEachRow()
        }
        output.flush()
    }

    private static let statementEnd = Array(");\n".utf8)

    /// `value` as an SQL literal that reads back as the same value and storage class.
    static func sqlLiteral(_ value: DatabaseValue) -> String {
        let buffer = OutputBuffer(descriptor: nil)
        appendLiteral(value, to: buffer)
        return String(decoding: buffer.bytes, as: UTF8.self)
    }

    /// Appends `value` as an SQL literal that reads back as the same value and storage class, on one line.
    static func appendLiteral(_ value: DatabaseValue, to output: OutputBuffer) {
        switch value {
        case .null:
            output.append("NULL")
        case .integer(let number):
            output.append(String(number))
        case .real(let number):
            // 1e999 overflows to infinity when SQLite parses it: the dump keeps infinite values.
            if number.isInfinite {
                output.append(number < 0 ? "-1e999" : "1e999")
            } else {
                output.append(String(number))
            }
        case .text(let text):
            appendTextLiteral(text, to: output)
        case .blob(let bytes):
            output.append(UInt8(ascii: "X"))
            output.append(UInt8(ascii: "'"))
            for byte in bytes { output.appendHex(byte) }
            output.append(UInt8(ascii: "'"))
        }
    }

    /// Text as a literal. A NUL cannot appear in a string literal: such text goes through a blob of its bytes. A
    /// CR or LF would put a line break in the dump, and a CR before a line break is dropped when a dump is read
    /// back (by sqlite3 too): both are written as `\r` and `\n` inside `replace()`, which turns them back into
    /// char(13) and char(10), with markers the text itself does not hold.
    private static func appendTextLiteral(_ text: String, to output: OutputBuffer) {
        var hasLineBreak = false
        for byte in text.utf8 {
            if byte == 0 {
                output.append("CAST(X'")
                for byte in text.utf8 { output.appendHex(byte) }
                output.append("' AS TEXT)")
                return
            }
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { hasLineBreak = true }
        }
        guard hasLineBreak else {
            output.append(UInt8(ascii: "'"))
            for byte in text.utf8 {
                if byte == UInt8(ascii: "'") { output.append(byte) }
                output.append(byte)
            }
            output.append(UInt8(ascii: "'"))
            return
        }
        let lineFeed = unusedMarker(in: text, base: "\\n")
        let carriageReturn = unusedMarker(in: text, base: "\\r")
        output.append("replace(replace('")
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "'"): output.append("''")
            case UInt8(ascii: "\n"): output.append(lineFeed)
            case UInt8(ascii: "\r"): output.append(carriageReturn)
            default: output.append(byte)
            }
        }
        output.append("','\(lineFeed)',char(10)),'\(carriageReturn)',char(13))")
    }

    /// `base`, or `base` followed by a number, whichever `text` does not hold.
    private static func unusedMarker(in text: String, base: String) -> String {
        guard text.contains(base) else { return base }
        var number = 0
        while text.contains(base + String(number)) { number += 1 }
        return base + String(number)
    }
}
