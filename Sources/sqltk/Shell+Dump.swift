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
        // Names and SQL are read with the bytes that are not UTF-8 kept (a Latin-1 schema, see RawText).
        let objects = try database.query(
            """
            SELECT s.type, s.name, s.tbl_name, s.sql, coalesce(t.type, '')
            FROM sqlite_schema AS s LEFT JOIN pragma_table_list AS t ON t.schema = 'main' AND t.name = s.name
            WHERE s.sql IS NOT NULL
            ORDER BY s.rowid
            """
        ).map { row in
            let texts = try (0..<5).map { try Self.rawText(of: row, at: $0) }
            return SchemaObject(type: texts[0], name: texts[1], tableName: texts[2], sql: texts[3], tableKind: texts[4])
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
                try forEachRow(of: "SELECT count(*) FROM \(try Database.quoteIdentifier(table.name))") {
                    total += try $0.value(at: 0) as Int
                }
            }
        }
        var done = 0

        writeOutput("PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\n")
        let userVersion = try database.queryValue("PRAGMA user_version", as: Int.self) ?? 0
        if userVersion != 0 { writeOutput("PRAGMA user_version=\(userVersion);\n") }
        for table in tables {
            if table.name == "sqlite_sequence" {
                writeOutput("DELETE FROM sqlite_sequence;\n")
            } else if table.sql.hasPrefix("CREATE TABLE \"") || table.sql.hasPrefix("CREATE TABLE '") {
                // As sqlite3 writes a table whose name is quoted, so loading into a database that has it
                // already goes on to its rows.
                writeOutput("CREATE TABLE IF NOT EXISTS " + table.sql.dropFirst(13) + ";\n")
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
        var columns: [(name: String, hidden: Int)] = []
        try forEachRow(of: "SELECT name, hidden FROM pragma_table_xinfo(\(Self.stringLiteral(table)))") { row in
            columns.append((name: try Self.rawText(of: row, at: 0), hidden: try row.value(at: 1) as Int))
        }
        let stored = try columns.filter { $0.hidden == 0 }.map { try Database.quoteIdentifier($0.name) }
        guard !stored.isEmpty else { return }
        let prefix = RawText.bytes(
            of: stored.count == columns.count
                ? "INSERT INTO \(name) VALUES(" : "INSERT INTO \(name)(\(stored.joined(separator: ","))) VALUES(")
        let output = OutputBuffer.standardOutput
        let columnCount = stored.count
        try forEachRow(of: "SELECT \(stored.joined(separator: ", ")) FROM \(name)") { row in
            output.append(prefix)
            // Integers and text, most of a dump, are written from SQLite's own bytes: no `DatabaseValue`, no
            // `String` per value.
            for index in 0..<columnCount {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                switch row.datatype(at: index) {
                case .integer: output.append(decimal: try row.value(at: index, as: Int64.self))
                case .text: try row.withUnsafeBytes(at: index) { Self.appendTextLiteral($0, to: output) }
                default: Self.appendLiteral(row[index], to: output)
                }
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
        case .text(var text):
            text.withUTF8 { appendTextLiteral(UnsafeRawBufferPointer($0), to: output) }
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
    ///
    /// Works on the bytes, searched with `memchr` and copied in runs between the bytes to escape: this is the
    /// inner loop of `.dump`.
    private static func appendTextLiteral(_ text: UnsafeRawBufferPointer, to output: OutputBuffer) {
        guard let base = text.baseAddress, !text.isEmpty else {
            output.append(emptyText)
            return
        }
        let count = text.count
        if memchr(base, 0, count) != nil {
            output.append("CAST(X'")
            for byte in text { output.appendHex(byte) }
            output.append("' AS TEXT)")
            return
        }
        let hasLineBreak =
            memchr(base, Int32(UInt8(ascii: "\n")), count) != nil
            || memchr(base, Int32(UInt8(ascii: "\r")), count) != nil
        guard hasLineBreak else {
            output.append(UInt8(ascii: "'"))
            if memchr(base, Int32(UInt8(ascii: "'")), count) != nil {
                appendEscaped(text, lineFeed: [], carriageReturn: [], to: output)
            } else {
                output.append(text)
            }
            output.append(UInt8(ascii: "'"))
            return
        }
        let lineFeed = unusedMarker(in: text, base: "\\n")
        let carriageReturn = unusedMarker(in: text, base: "\\r")
        output.append("replace(replace('")
        appendEscaped(text, lineFeed: lineFeed, carriageReturn: carriageReturn, to: output)
        output.append("','")
        output.append(lineFeed)
        output.append("',char(10)),'")
        output.append(carriageReturn)
        output.append("',char(13))")
    }

    private static let emptyText = Array("''".utf8)
    private static let doubledQuote = Array("''".utf8)

    /// Appends `text` with each `'` doubled and each LF and CR replaced by its marker.
    private static func appendEscaped(
        _ text: UnsafeRawBufferPointer, lineFeed: [UInt8], carriageReturn: [UInt8], to output: OutputBuffer
    ) {
        var start = 0
        for index in 0..<text.count {
            let byte = text[index]
            guard byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") else {
                continue
            }
            output.append(UnsafeRawBufferPointer(rebasing: text[start..<index]))
            switch byte {
            case UInt8(ascii: "'"): output.append(doubledQuote)
            case UInt8(ascii: "\n"): output.append(lineFeed)
            default: output.append(carriageReturn)
            }
            start = index + 1
        }
        output.append(UnsafeRawBufferPointer(rebasing: text[start...]))
    }

    /// `base`, or `base` followed by a number, whichever `text` does not hold.
    private static func unusedMarker(in text: UnsafeRawBufferPointer, base: String) -> [UInt8] {
        let marker = Array(base.utf8)
        guard contains(text, marker) else { return marker }
        var number = 0
        while contains(text, marker + Array(String(number).utf8)) { number += 1 }
        return marker + Array(String(number).utf8)
    }

    /// Whether `text` holds the bytes of `needle` (a backslash and more): `memchr` finds each backslash.
    private static func contains(_ text: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, text.count >= needle.count else { return false }
        var index = 0
        while index + needle.count <= text.count {
            guard let base = text.baseAddress,
                let found = memchr(base + index, Int32(first), text.count - needle.count + 1 - index)
            else { return false }
            let position = base.distance(to: UnsafeRawPointer(found))
            if text[position..<(position + needle.count)].elementsEqual(needle) { return true }
            index = position + 1
        }
        return false
    }
}
