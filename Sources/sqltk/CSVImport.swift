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

    /// Writes `records` into `table` of `schema`, all or nothing (in a transaction of `database`, or in a savepoint of
    /// the one already open, so `.import` between BEGIN and COMMIT joins it), as the sqlite3 shell's `.import` does: a
    /// missing table is created in `schema` (main without one) with the columns the first record names (typed TEXT) and
    /// receives the other records; an existing table receives every record, in column order. Without `schema`, the
    /// table is found as SQL finds a name without one: TEMP first, then main, then the attached databases. Every record
    /// must have as many fields as the table has columns (sqlite3 pads or cuts a record and goes on; a silent NULL or a
    /// lost value is refused here). `progress` gets the rows written and the rows to write after each row. Does nothing
    /// without records.
    static func insert(
        _ records: [(line: Int, fields: [String])], into table: String, schema: String? = nil,
        in database: Database, progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) throws {
        guard let first = records.first else { return }
        let existing = try existingTable(table, schema: schema, in: database)
        let quotedTable =
            try Database.quoteIdentifier(existing?.schema ?? schema ?? "main") + "."
            + Database.quoteIdentifier(table)
        let existingColumns = existing?.columnCount ?? 0
        let body = { (db: Database) throws in
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
        if database.isInTransaction {
            try database.savepoint(body)
        } else {
            try database.transaction(.immediate, body)
        }
    }

    /// The database that holds `table` (`schema` itself when given) and the number of its columns, or `nil` when
    /// there is no such table.
    static func existingTable(
        _ table: String, schema: String?, in database: Database
    ) throws -> (schema: String, columnCount: Int)? {
        var schemas = ["temp", "main"]
        if let schema {
            schemas = [schema]
        } else {
            let attached = try database.query("SELECT name FROM pragma_database_list ORDER BY seq").map {
                try $0.value(at: 0) as String
            }
            schemas += attached.filter { !schemas.contains($0) }
        }
        for schema in schemas {
            let count =
                try database.queryValue(
                    "SELECT count(*) FROM pragma_table_info(?1, ?2)", table, schema, as: Int.self) ?? 0
            if count > 0 { return (schema, count) }
        }
        return nil
    }
}
