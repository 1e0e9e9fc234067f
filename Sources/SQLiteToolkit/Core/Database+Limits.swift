import SQLiteBindings

extension Database {
    /// The current value of a run-time limit of this connection (`sqlite3_limit` with a negative new value).
    ///
    /// ```swift
    /// let maximumLength = try db.limit(.length)
    /// ```
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/limit.html>
    public func limit(_ category: LimitCategory) throws -> Int {
        Int(try connection().limit(category, -1))
    }

    /// Changes a run-time limit of this connection and returns its previous value. SQLite lowers a value above the
    /// limit's compile-time maximum to that maximum; read the limit back to see the value in force.
    ///
    /// ```swift
    /// try db.setLimit(.length, to: 1_000_000)  // no string or blob over 1 MB
    /// ```
    ///
    /// - Throws: ``DatabaseError/Reason/valueMismatch`` (`SQLITE_RANGE`) for a negative value or one above
    ///   `Int32.max`, and ``DatabaseError/Reason/connectionClosed`` once closed.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/limit.html>
    @discardableResult
    public func setLimit(_ category: LimitCategory, to value: Int) throws -> Int {
        let connection = try connection()
        guard let newValue = Int32(exactly: value), newValue >= 0 else {
            throw DatabaseError.range(
                "a limit is a value from 0 to \(Int32.max); \(value) is outside it", reason: .valueMismatch)
        }
        return Int(connection.limit(category, newValue))
    }
}
