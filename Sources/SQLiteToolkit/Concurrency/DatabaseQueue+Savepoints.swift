extension DatabaseQueue {
    /// Runs `body` in a savepoint and releases it or rolls back to it as `body` answers; a throw rolls back and
    /// rethrows. FMDB's `inSavePoint:` with its `rollback` flag.
    ///
    /// ```swift
    /// try queue.inSavepoint { db in
    ///     try db.execute("DELETE FROM player")
    ///     return try db.queryValue("SELECT count(*) FROM team", as: Int.self) == 0 ? .commit : .rollback
    /// }
    /// ```
    ///
    /// - Throws: the error of `body`, or those of ``inDatabase(_:)-9r380``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/lang_savepoint.html>
    public func inSavepoint(_ body: (Database) throws -> Database.TransactionCompletion) throws {
        try inDatabase { db in try db.inSavepoint(body) }
    }

    /// ``inSavepoint(_:)-4cy78`` for async code.
    public func inSavepoint(
        _ body: @Sendable (Database) throws -> Database.TransactionCompletion
    ) async throws {
        try await inDatabase { db in try db.inSavepoint(body) }
    }
}
