import SQLiteBindings

extension Database {
    /// Compiles every statement of `sql` without running any, and throws the error of the first that does not
    /// compile, with its byte offset counted from the start of `sql` (FMDB's `validateSQL:error:`, for scripts).
    ///
    /// Each statement is compiled against the schema as it is now: in a script that creates a table and then
    /// inserts into it, the insert does not compile until the table exists.
    ///
    /// ```swift
    /// try db.validate("UPDATE player SET score = 0; DELETE FROM player WHERE id = ?")
    /// ```
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/prepare.html>
    public func validate(_ sql: String) throws {
        let connection = try connection(for: sql)
        try sql.withCString { start in
            var cursor = start
            while cursor.pointee != 0 {
                let (code, statement, tail) = connection.prepare(sql: cursor, byteCount: -1, flags: [])
                if code != .ok {
                    var error = error(code, sql: sql)
                    if let offset = error.errorOffset { error.errorOffset = offset + (cursor - start) }
                    throw error
                }
                _ = statement?.finalize()
                guard let tail, tail != cursor else { break }
                cursor = tail
            }
        }
    }
}
