import SQLiteToolkit
import Testing

extension TestDatabase {
    /// The content of every table of the main schema, as text for a test's log: each table's name and row count,
    /// its column names, then its rows (values as SQL writes them), tables by name, rows in the order SQLite
    /// returns them.
    ///
    /// ```swift
    /// let dump = try TestDatabase.dump(db)
    /// #expect(count == 2, "\(dump)")
    /// ```
    ///
    /// The dump is built before the expectation runs, because a comment cannot throw. It holds your data: use it in
    /// tests, not in errors or logs of an app.
    public static func dump(_ db: Database) throws -> String {
        let names = try db.query(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
                + "ORDER BY name"
        ).map { try $0.value(at: 0) as String }
        if names.isEmpty { return "(no tables)" }
        return try names.map { name in
            let table = try RowTable(db, table: name)
            return "table \(name): \(table.rows.count) row(s)\n\(table.text)"
        }.joined(separator: "\n")
    }

    /// ``dump(_:)-(Database)`` read in a read access of a queue or pool (for example ``current``).
    public static func dump(_ database: some DatabaseReader) throws -> String {
        try database.read { db in try dump(db) }
    }

    /// Writes the dump of the running test's database (``current``) to the test's log as a warning, which does not
    /// fail the test: call it before an expectation you expect to need it for.
    ///
    /// - Throws: ``TestDatabaseError/noDatabaseTrait`` without a trait, or the error of reading the database.
    public static func logDump(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let text = try dump(current)
        Issue.record(
            Comment(rawValue: "Content of the test database:\n\(text)"), severity: .warning,
            sourceLocation: sourceLocation)
    }
}
