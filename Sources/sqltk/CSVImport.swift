import SQLiteToolkit

/// The table side of `.import`: writes the records `CSVReader` read into a table, the first record naming the
/// columns. Apart from the shell so the CSV fuzz target (Fuzz/Sources/FuzzCSVImport) compiles this very file.
enum CSVImport {
    /// A record whose number of fields differs from the header's.
    struct FieldCountMismatch: Error {
        var line: Int
        var fields: Int
        var headerFields: Int
    }

    /// Writes `records` into `table`, in one transaction of `database` (all or nothing): the first record names the
    /// columns; a missing table is created with those columns (typed TEXT); every other record must have as many
    /// fields as the header. `progress` gets the rows written and the rows to write after each row. Does nothing
    /// without records.
    static func insert(
        _ records: [(line: Int, fields: [String])], into table: String, in database: Database,
        progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) throws {
        guard let header = records.first else { return }
        let columns = try header.fields.map(Database.quoteIdentifier).joined(separator: ", ")
        let quotedTable = try Database.quoteIdentifier(table)
        let exists = try database.queryValue(
            "SELECT count(*) FROM sqlite_schema WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE", table,
            as: Int.self)
        try database.transaction { db in
            if exists == 0 {
                let definitions = try header.fields.map { try Database.quoteIdentifier($0) + " TEXT" }.joined(
                    separator: ", ")
                try db.execute("CREATE TABLE \(quotedTable) (\(definitions))")
            }
            let placeholders = Array(repeating: "?", count: header.fields.count).joined(separator: ", ")
            let insert = try db.prepare("INSERT INTO \(quotedTable) (\(columns)) VALUES (\(placeholders))")
            for (index, record) in records.dropFirst().enumerated() {
                guard record.fields.count == header.fields.count else {
                    throw FieldCountMismatch(
                        line: record.line, fields: record.fields.count, headerFields: header.fields.count)
                }
                try insert.execute(arguments: StatementArguments(record.fields.map { DatabaseValue.text($0) }))
                progress(index + 1, records.count - 1)
            }
        }
    }
}
