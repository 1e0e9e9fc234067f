import CSQLiteToolkit

extension StatementHandle {
    /// The statement's SQL text with every parameter replaced by the literal of its current binding, or `nil`
    /// when memory runs out or the text would exceed the length limit.
    ///
    /// Hand-written rather than generated because `sqlite3_expanded_sql` returns memory the caller must release
    /// with `sqlite3_free`: this copies it into a `String` and frees it.
    ///
    /// C function: `sqlite3_expanded_sql`. Related SQLite documentation: <https://sqlite.org/c3ref/expanded_sql.html>
    @inlinable
    public func expandedSQL() -> String? {
        guard let text = sqltk_sqlite3_expanded_sql(rawValue) else { return nil }
        defer { sqltk_sqlite3_free(text) }
        return String(cString: text)
    }
}
