import CSQLiteToolkit

extension ConnectionHandle {
    /// The absolute path of the database file of the schema `schema` (`main`, `temp`, an attached name; nil
    /// means `main`): an empty string for an in-memory or temporary database, `nil` when there is no such schema.
    ///
    /// Hand-written rather than generated because `sqlite3_db_filename` returns `sqlite3_filename`, a typedef of
    /// `const char *` that Swift imports as an implicitly unwrapped pointer: a generated wrapper would trap on the
    /// NULL returned for an unknown schema.
    ///
    /// C function: `sqlite3_db_filename`. Related SQLite documentation: <https://sqlite.org/c3ref/db_filename.html>
    @inlinable
    public func filename(schema: String?) -> String? {
        let filename: UnsafePointer<CChar>? = withOptionalCString(schema) { sqltk_sqlite3_db_filename(rawValue, $0) }
        return filename.map { String(cString: $0) }
    }
}
