import SQLiteBindings

extension Database {
    /// The outcome of `PRAGMA integrity_check` or `PRAGMA quick_check`.
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_integrity_check>
    public struct IntegrityReport: Sendable, Hashable {
        /// SQLite's description of each problem found; empty when the database is sound.
        public var problems: [String]
        /// Whether no problem was found.
        public var isOK: Bool { problems.isEmpty }

        /// A report of these problems.
        public init(problems: [String]) {
            self.problems = problems
        }
    }

    /// One row that breaks a foreign key, from `PRAGMA foreign_key_check`.
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_foreign_key_check>
    public struct ForeignKeyViolation: Sendable, Hashable {
        /// The table holding the row.
        public var table: String
        /// The row's rowid, or `nil` for a `WITHOUT ROWID` table.
        public var rowID: Int64?
        /// The table the foreign key refers to.
        public var destinationTable: String
        /// The foreign key's number, as ``ForeignKeyInfo/id``.
        public var foreignKeyID: Int
    }

    /// Runs `PRAGMA integrity_check` on the schema `schema`: a thorough check of the file, the indexes, and the
    /// `NOT NULL`, `CHECK` and type constraints. It reads the whole database.
    ///
    /// - Parameters:
    ///   - schema: `main` by default, `temp`, or the name of an attached database.
    ///   - maximumProblems: SQLite stops after this many problems (100 by default, as SQLite's own).
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_integrity_check>
    public func integrityCheck(schema: String = "main", maximumProblems: Int = 100) throws -> IntegrityReport {
        try check("integrity_check", schema: schema, maximumProblems: maximumProblems)
    }

    /// Runs `PRAGMA quick_check` on the schema `schema`: like ``integrityCheck(schema:maximumProblems:)``, but
    /// without checking that indexes match their tables, so it runs in linear time.
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_quick_check>
    public func quickCheck(schema: String = "main", maximumProblems: Int = 100) throws -> IntegrityReport {
        try check("quick_check", schema: schema, maximumProblems: maximumProblems)
    }

    private func check(_ pragma: String, schema: String, maximumProblems: Int) throws -> IntegrityReport {
        let sql = "PRAGMA \(try Database.quoteIdentifier(schema)).\(pragma)(\(max(1, maximumProblems)))"
        let messages = try query(sql).map { try $0.value(at: 0, as: String.self) }
        return IntegrityReport(problems: messages == ["ok"] ? [] : messages)
    }

    /// Runs `PRAGMA foreign_key_check`: the rows of `table` (or of every table, when `nil`) in the schema
    /// `schema` whose foreign keys refer to no row. It works whether or not foreign keys are enforced.
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_foreign_key_check>
    public func foreignKeyViolations(in table: String? = nil, schema: String = "main") throws
        -> [ForeignKeyViolation]
    {
        var sql = "PRAGMA \(try Database.quoteIdentifier(schema)).foreign_key_check"
        if let table {
            try checkTableExists(table, in: schema)
            sql += "(\(try Database.quoteIdentifier(table)))"
        }
        return try query(sql).map { row in
            ForeignKeyViolation(
                table: try row.value(at: 0), rowID: try row.value(at: 1), destinationTable: try row.value(at: 2),
                foreignKeyID: try row.value(at: 3))
        }
    }
}
