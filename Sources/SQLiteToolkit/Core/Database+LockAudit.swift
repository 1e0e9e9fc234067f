import SQLiteBindings

/// A statement of a connection that has started stepping and has not been reset or finalized: it keeps a read
/// transaction open, and with it a lock on the database, until it is.
public struct SteppingStatement: Sendable, Hashable {
    /// The statement's SQL as it was prepared, with key literals (`KEY 'secret'`, a URI's `key=`) hidden as errors
    /// hide them. Never the bound values.
    public var sql: String
    /// Whether the statement only reads (`sqlite3_stmt_readonly`).
    public var isReadOnly: Bool
}

extension Database {
    /// The connection's statements that are still stepping, in the order SQLite lists them: the lock audit of a
    /// connection that keeps a read transaction (and its lock) open when it should not, for example a statement
    /// stepped once and never reset. A cursor in progress inside an access is listed too; the accesses of a
    /// ``DatabaseQueue`` or ``DatabasePool`` reset their statements when they end, those the body kept included
    /// (a kept statement's next step runs its query again, on the state of its new access).
    ///
    /// ```swift
    /// for statement in try db.steppingStatements() {
    ///     print("still stepping:", statement.sql)
    /// }
    /// ```
    ///
    /// - Throws: ``DatabaseError/Reason/connectionClosed`` once the connection is closed.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/next_stmt.html>,
    /// <https://sqlite.org/c3ref/stmt_busy.html>
    public func steppingStatements() throws -> [SteppingStatement] {
        let connection = try connection()
        var found: [SteppingStatement] = []
        var statement = connection.nextStatement(after: nil)
        while let current = statement {
            if current.isBusy() {
                let sql = DatabaseError.hidingKeys(in: current.sql() ?? "").sql
                found.append(SteppingStatement(sql: sql, isReadOnly: current.isReadOnly()))
            }
            statement = connection.nextStatement(after: current)
        }
        return found
    }

    /// Resets the statements still stepping when the connection holds a transaction outside any `BEGIN`: what an
    /// access of a queue or pool leaves behind when its body stepped a statement and kept it. One call to
    /// `sqlite3_txn_state` when there is none. Whether it reset any.
    func resetStatementsKeptStepping() -> Bool {
        guard let handle, handle.transactionState(schema: nil) != .none else { return false }
        var statement = handle.nextStatement(after: nil)
        while let current = statement {
            if current.isBusy() { _ = current.reset() }
            statement = handle.nextStatement(after: current)
        }
        return true
    }
}
