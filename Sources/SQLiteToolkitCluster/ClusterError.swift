/// An error of a dqlite cluster: a node that cannot be reached, a leader that changed, SQLite's own error on the
/// leader, or a statement whose outcome is unknown.
///
/// Like the toolkit's `DatabaseError`, it carries no user data: no argument values, only
/// addresses, codes and SQLite's messages (which name tables and columns, never values).
public struct ClusterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Hashable {
        /// No connection could be made to the node at `address` (refused, timed out, not resolvable).
        case nodeUnreachable(address: String, cause: String)
        /// None of the given nodes knows a leader (no quorum, or an election in progress).
        case noLeader(addresses: [String])
        /// The connection to the node broke, or it did not answer in time, before a request was sent or while a
        /// request that changes nothing (a read) was in flight.
        case connectionLost(address: String, cause: String)
        /// The node the client talks to is no longer the leader (it said so, or it went away) in the middle of a
        /// transaction: the transaction is rolled back on the cluster; run it again from the start.
        case leadershipLost(address: String)
        /// A statement was sent and the connection broke, or the leader lost its leadership, before its answer: it
        /// may or may not be committed. The client never sends it again by itself; the caller decides (see
        /// ``ClusterDatabase/retrying(_:_:)``).
        case outcomeUnknown(address: String, cause: String)
        /// SQLite's error on the leader, with its extended result code and message.
        case sqlite(code: Int, message: String)
        /// The node answered something the protocol does not allow here.
        case protocolViolation(String)
        /// An argument the wire protocol cannot carry (more than 255 arguments in one statement, a text with a NUL, a
        /// NaN), or a timeout or retry delay the client cannot wait for.
        case unsupportedArgument(String)
        /// The database was closed by ``ClusterDatabase/close()``, or a ``ClusterConnection`` was used after its
        /// access ended.
        case closed
        /// An access of a ``ClusterDatabase`` began inside another access of the same database on the same
        /// thread: it would wait for itself. Use the ``ClusterConnection`` the outer access gives.
        case reentrantAccess
        /// A statement a body ran begins with `BEGIN`, `COMMIT`, `END`, `ROLLBACK`, `SAVEPOINT` or `RELEASE`
        /// (`keyword`, upper-cased): transactions belong to ``ClusterDatabase`` (``ClusterDatabase/write(_:)``), which
        /// alone knows whether a break left something committed. Nothing of the statement was sent.
        case transactionControl(keyword: String)
        /// A row has no such column.
        case columnNotFound(String)
        /// A column's value cannot be read as the type asked for (the storage class and size, never the value).
        case typeMismatch(column: String, stored: String, type: String)
    }

    /// What went wrong.
    public let reason: Reason

    /// An error for `reason`.
    public init(_ reason: Reason) {
        self.reason = reason
    }

    /// SQLite's primary result code (the low byte of the extended one), or nil when the error is not SQLite's.
    public var sqliteCode: Int? {
        if case .sqlite(let code, _) = reason { return code & 0xff }
        return nil
    }

    /// Whether running the work again from the start may succeed: the leader changed or could not be reached, and
    /// nothing is known to be half-done. ``Reason/outcomeUnknown(address:cause:)`` is not retryable: whether
    /// sending it again is safe depends on the statement, which only the caller knows.
    public var isRetryable: Bool {
        switch reason {
        case .nodeUnreachable, .noLeader, .connectionLost, .leadershipLost: true
        case .sqlite(let code, _): code & 0xff == 5 || code & 0xff == 6  // SQLITE_BUSY, SQLITE_LOCKED
        case .outcomeUnknown, .protocolViolation, .unsupportedArgument, .closed, .reentrantAccess,
            .transactionControl, .columnNotFound, .typeMismatch:
            false
        }
    }

    /// A one-line description.
    public var description: String {
        switch reason {
        case .nodeUnreachable(let address, let cause): "dqlite node \(address) unreachable: \(cause)"
        case .noLeader(let addresses): "no dqlite leader known to \(addresses.joined(separator: ", "))"
        case .connectionLost(let address, let cause): "connection to dqlite node \(address) lost: \(cause)"
        case .leadershipLost(let address): "dqlite node \(address) lost its leadership during a transaction"
        case .outcomeUnknown(let address, let cause):
            "outcome unknown: the statement was sent to \(address), then \(cause)"
        case .sqlite(let code, let message): "SQLite error \(code) on the leader: \(message)"
        case .protocolViolation(let what): "dqlite protocol violation: \(what)"
        case .unsupportedArgument(let what): "unsupported argument: \(what)"
        case .closed: "the cluster database is closed"
        case .reentrantAccess: "an access of a cluster database began inside another access of it on the same thread"
        case .transactionControl(let keyword):
            "\(keyword) in an access of a cluster database: transactions are the client's (use write)"
        case .columnNotFound(let what): "column not found: \(what)"
        case .typeMismatch(let column, let stored, let type): "column \(column) holds \(stored), not a \(type)"
        }
    }
}
