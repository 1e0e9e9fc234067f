import Foundation
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

    /// A header name `.import` changed to make the new table's columns distinct, as sqlite3 3.40 does.
    struct Rename: Equatable {
        var from: String
        var to: String
    }

    /// Writes `records` into `table` of `schema`, all or nothing (in a transaction of `database`, or in a savepoint of
    /// the one already open, so `.import` between BEGIN and COMMIT joins it), as the sqlite3 shell's `.import` does: a
    /// missing table is created in `schema` (main without one) with the columns the first record names (typed TEXT,
    /// renamed as ``columnNames(for:)`` says) and receives the other records; an existing table receives every record,
    /// in column order. Without `schema`, the table is found as SQL finds a name without one: TEMP first, then main,
    /// then the attached databases. Every record must have as many fields as the table has columns (sqlite3 pads or
    /// cuts a record and goes on; a silent NULL or a lost value is refused here). `progress` gets the rows written and
    /// the rows to write after each row. Does nothing without records.
    ///
    /// - Returns: the header names renamed for a new table.
    @discardableResult
    static func insert(
        _ records: [(line: Int, fields: [String])], into table: String, schema: String? = nil,
        in database: Database, progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) throws -> [Rename] {
        guard let first = records.first else { return [] }
        let existing = try existingTable(table, schema: schema, in: database)
        let quotedTable =
            try Database.quoteIdentifier(existing?.schema ?? schema ?? "main") + "."
            + Database.quoteIdentifier(table)
        var renames: [Rename] = []
        let body = { (db: Database) throws in
            let columnCount: Int
            let rows: ArraySlice<(line: Int, fields: [String])>
            if let existing {
                columnCount = existing.columnCount
                rows = records[...]
            } else {
                let names = columnNames(for: first.fields)
                renames = zip(first.fields, names).map { Rename(from: $0.isEmpty ? "?" : $0, to: $1) }.filter {
                    $0.from != $0.to
                }
                // The text sqlite3 writes, so the schema reads the same after either shell's import.
                let definitions = try names.map { try Database.quoteIdentifier($0) + " TEXT" }.joined(separator: ", ")
                try db.executeScript(bytes: RawText.bytes(of: "CREATE TABLE \(quotedTable)(\n\(definitions))"))
                columnCount = names.count
                rows = records.dropFirst()
            }
            // A field holding bytes that are not UTF-8 is bound as a blob of those bytes and cast, so the table
            // gets the text the file holds (a text binding cannot carry them); TEXT of TEXT changes nothing. A
            // UTF-16 database casts a blob as UTF-16 and cannot hold those bytes anyway: there the field is bound
            // as its text with U+FFFD for them, as SQLite converts the UTF-8 sqlite3 binds.
            let keepsRawBytes = try db.queryValue("PRAGMA encoding", as: String.self) == "UTF-8"
            let placeholders = Array(repeating: "CAST(? AS TEXT)", count: columnCount).joined(separator: ",")
            let insert = try prepare("INSERT INTO \(quotedTable) VALUES(\(placeholders))", in: db)
            for (index, record) in rows.enumerated() {
                guard record.fields.count == columnCount else {
                    throw FieldCountMismatch(line: record.line, fields: record.fields.count, headerFields: columnCount)
                }
                let values = record.fields.map { field -> DatabaseValue in
                    guard RawText.holdsRawBytes(field) else { return .text(field) }
                    let bytes = RawText.bytes(of: field)
                    return keepsRawBytes ? .blob(Data(bytes)) : .text(String(decoding: bytes, as: UTF8.self))
                }
                try insert.execute(arguments: StatementArguments(values))
                progress(index + 1, rows.count)
            }
        }
        if database.isInTransaction {
            try insideSavepoint(of: database, body)
        } else {
            try database.transaction(.immediate, body)
        }
        return renames
    }

    /// Runs `body` in a savepoint of the open transaction, rolled back to when `body` throws. A trigger's
    /// `RAISE(ROLLBACK)` or a constraint's `ON CONFLICT ROLLBACK` rolls back the whole transaction, savepoint
    /// included: the error is then `body`'s own, and the shell goes on in autocommit, as sqlite3 does. (The toolkit's
    /// ``Database/savepoint(_:)`` would open a transaction that can only roll back in its place, right for a
    /// program that believes its transaction open, not for a shell whose user sees it was rolled back.)
    private static func insideSavepoint(of database: Database, _ body: (Database) throws -> Void) throws {
        try database.execute("SAVEPOINT sqltk_import")
        do {
            try body(database)
        } catch {
            if database.isInTransaction {
                try database.execute("ROLLBACK TO SAVEPOINT sqltk_import")
                try database.execute("RELEASE SAVEPOINT sqltk_import")
            }
            throw error
        }
        try database.execute("RELEASE SAVEPOINT sqltk_import")
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
            // The names as literals, so a Latin-1 name's bytes reach SQLite (a binding cannot carry them).
            let count =
                try prepare(
                    "SELECT count(*) FROM pragma_table_info(\(literal(table)), \(literal(schema)))", in: database
                ).query().map { try $0.value(at: 0) as Int }.first ?? 0
            if count > 0 { return (schema, count) }
        }
        return nil
    }

    /// The statement `sql`, whose bytes that are not UTF-8 (see ``RawText``) reach SQLite as they are.
    private static func prepare(_ sql: String, in database: Database) throws -> Statement {
        RawText.holdsRawBytes(sql) ? try database.prepare(bytes: RawText.bytes(of: sql)) : try database.prepare(sql)
    }

    /// `text` as an SQL string literal.
    private static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// The columns of a new table, from the header's names, as sqlite3 3.40 names them: an empty name is `?`; each
    /// name that appears more than once (ignoring ASCII case, as SQL compares them) gets `_` and its column's
    /// number (`a,a` gives `a_1,a_2`), with as many leading zeros as it takes for every name to differ from the
    /// others (`a,a_1,a` gives `a_01,a_1,a_03`).
    static func columnNames(for header: [String]) -> [String] {
        let names = header.map { $0.isEmpty ? "?" : $0 }
        let folded = names.map(foldedCase)
        var counts: [String: Int] = [:]
        for name in folded { counts[name, default: 0] += 1 }
        guard counts.count < names.count else { return names }
        // Renamed names differ from each other (their numbers do); enough zeros make them longer than any name.
        let longest = names.map(\.utf8.count).max() ?? 0
        for zeros in 0...longest {
            let padding = String(repeating: "0", count: zeros)
            let candidate = names.indices.map { index in
                (counts[folded[index]] ?? 0) > 1 ? "\(names[index])_\(padding)\(index + 1)" : names[index]
            }
            if Set(candidate.map(foldedCase)).count == candidate.count { return candidate }
        }
        return names
    }

    /// `text` with ASCII letters in lower case: how SQLite's NOCASE (and its column names) compare.
    private static func foldedCase(_ text: String) -> String {
        String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}
