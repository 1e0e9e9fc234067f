import SQLiteToolkit

/// The table side of `.import`: writes the records `CSVReader` read into a table. Apart from the shell so the CSV
/// fuzz target (Fuzz/Sources/FuzzCSVImport) compiles this very file.
enum CSVImport {
    /// A record whose number of fields differs from the table's columns.
    struct FieldCountMismatch: Error {
        var line: Int
        var fields: Int
        var headerFields: Int
    }

    /// Writes `records` into `table` of `schema`, in one transaction of `database` (all or nothing), as the sqlite3
    /// shell's `.import` does: a missing table is created with the columns the first record names (typed TEXT)
    /// and receives the other records; an existing table receives every record, in column order. Every record
    /// must have as many fields as the table has columns (sqlite3 pads or cuts a record and goes on; a silent
    /// NULL or a lost value is refused here). `progress` gets the rows written and the rows to write after each
    /// row. Does nothing without records.
    static func insert(
        _ records: [(line: Int, fields: [String])], into table: String, schema: String = "main",
        in database: Database, progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) throws {
        guard let first = records.first else { return }
        let quotedSchema = try Database.quoteIdentifier(schema)
        let quotedTable = quotedSchema + "." + (try Database.quoteIdentifier(table))
        let existingColumns =
            try database.queryValue(
                "SELECT count(*) FROM pragma_table_info(?1, ?2)", table, schema, as: Int.self) ?? 0
        try database.transaction { db in
            let columnCount: Int
            let rows: ArraySlice<(line: Int, fields: [String])>
            if existingColumns == 0 {
                // The text sqlite3 writes, so the schema reads the same after either shell's import.
                let definitions = try first.fields.map { try Database.quoteIdentifier($0) + " TEXT" }.joined(
                    separator: ", ")
                try db.execute("CREATE TABLE \(quotedTable)(\n\(definitions))")
                columnCount = first.fields.count
                rows = records.dropFirst()
            } else {
                columnCount = existingColumns
                rows = records[...]
            }
            let placeholders = Array(repeating: "?", count: columnCount).joined(separator: ",")
            let insert = try db.prepare("INSERT INTO \(quotedTable) VALUES(\(placeholders))")
            for (index, record) in rows.enumerated() {
                guard record.fields.count == columnCount else {
                    throw FieldCountMismatch(line: record.line, fields: record.fields.count, headerFields: columnCount)
                }
                try insert.execute(arguments: StatementArguments(record.fields.map { DatabaseValue.text($0) }))
                progress(index + 1, rows.count)
            }
        }
    }
}
