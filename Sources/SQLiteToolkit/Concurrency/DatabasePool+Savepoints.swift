extension DatabasePool {
    /// Runs `body` with the writer in a savepoint: released when it returns, rolled back when it throws. Outside
    /// a transaction a savepoint is one, so this is ``write(_:)-4mi5h`` with a savepoint in place of `BEGIN IMMEDIATE`
    /// (it takes the write lock at the first write rather than at once).
    ///
    /// Related SQLite documentation: <https://sqlite.org/lang_savepoint.html>
    @discardableResult
    public func savepoint<T>(_ body: (Database) throws -> T) throws -> T {
        try writeWithoutTransaction { db in try db.savepoint(body) }
    }

    /// Runs `body` with the writer in a savepoint and releases it or rolls back to it as `body` answers; a throw
    /// rolls back and rethrows. FMDB's `inSavePoint:` with its `rollback` flag.
    ///
    /// ```swift
    /// try pool.inSavepoint { db in
    ///     try db.execute("DELETE FROM player")
    ///     return try db.queryValue("SELECT count(*) FROM team", as: Int.self) == 0 ? .commit : .rollback
    /// }
    /// ```
    ///
    /// Related SQLite documentation: <https://sqlite.org/lang_savepoint.html>
    public func inSavepoint(_ body: (Database) throws -> Database.TransactionCompletion) throws {
        try writeWithoutTransaction { db in try db.inSavepoint(body) }
    }

    /// ``savepoint(_:)-3u7d2`` for async code.
    @discardableResult
    public func savepoint<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        try await writeWithoutTransaction { db in try db.savepoint(body) }
    }

    /// ``inSavepoint(_:)-5kf5a`` for async code.
    public func inSavepoint(
        _ body: @Sendable (Database) throws -> Database.TransactionCompletion
    ) async throws {
        try await writeWithoutTransaction { db in try db.inSavepoint(body) }
    }
}
