import SQLiteToolkit

/// The leader connection an access of ``ClusterDatabase`` runs on: valid only inside the closure it is given to.
///
/// A statement that fails because the leader changed throws a ``ClusterError``; in a transaction the whole
/// transaction is lost (it is rolled back on the cluster) and the error says so.
///
/// A body may not control transactions: a statement (any of several in one text) that begins with `BEGIN`, `COMMIT`,
/// `END`, `ROLLBACK`, `SAVEPOINT` or `RELEASE` throws ``ClusterError/Reason/transactionControl(keyword:)`` before
/// anything is sent. In ``ClusterDatabase/read(_:)`` and ``ClusterDatabase/fetchAll(_:_:)`` the connection is
/// read-only (`PRAGMA query_only`): the node refuses a statement that writes (`SQLITE_READONLY`).
public final class ClusterConnection {
    private var node: NodeConnection?
    private let inTransaction: Bool
    private let reading: Bool

    init(node: NodeConnection, inTransaction: Bool, reading: Bool) {
        self.node = node
        self.inTransaction = inTransaction
        self.reading = reading
    }

    func invalidate() { node = nil }

    /// Runs `sql` with `arguments` bound in order.
    @discardableResult
    public func execute(_ sql: String, _ arguments: (any DatabaseValueConvertible)?...) throws -> ExecutionResult {
        try execute(sql, arguments: arguments)
    }

    /// Runs `sql` with `arguments` bound in order.
    @discardableResult
    public func execute(_ sql: String, arguments: [(any DatabaseValueConvertible)?]) throws -> ExecutionResult {
        try refuseTransactionControl(sql)
        let node = try current()
        return try node.exec(sql, values(arguments), afterSending: failure(node))
    }

    /// The rows of `sql` with `arguments` bound in order.
    public func fetchAll(_ sql: String, _ arguments: (any DatabaseValueConvertible)?...) throws -> [ClusterRow] {
        try fetchAll(sql, arguments: arguments)
    }

    /// The rows of `sql` with `arguments` bound in order.
    public func fetchAll(_ sql: String, arguments: [(any DatabaseValueConvertible)?]) throws -> [ClusterRow] {
        try refuseTransactionControl(sql)
        let node = try current()
        let result = try node.query(sql, values(arguments), afterSending: failure(node))
        let index = ClusterRow.ColumnIndex(result.columns)
        return result.rows.map { ClusterRow(columns: index, values: $0) }
    }

    /// The first row of `sql`, or nil when there is none.
    public func fetchOne(_ sql: String, _ arguments: (any DatabaseValueConvertible)?...) throws -> ClusterRow? {
        try fetchAll(sql, arguments: arguments).first
    }

    /// The first column of the first row of `sql` as `T`, or nil when there is no row or the value is NULL.
    public func fetchValue<T: DatabaseValueConvertible>(
        _ sql: String, _ arguments: (any DatabaseValueConvertible)?..., as type: T.Type = T.self
    ) throws -> T? {
        guard let row = try fetchAll(sql, arguments: arguments).first, row.count > 0 else { return nil }
        return try row.value(at: 0, as: T?.self)
    }

    /// A `COMMIT` a body sends itself would be reported like one of its statements (retryable in a transaction), and
    /// a `BEGIN` outside one would stay open on the leader connection, holding later acknowledged statements.
    private func refuseTransactionControl(_ sql: String) throws(ClusterError) {
        if let keyword = TransactionControl.keyword(in: sql) {
            throw ClusterError(.transactionControl(keyword: keyword))
        }
    }

    private func current() throws(ClusterError) -> NodeConnection {
        guard let node, node.socket.isOpen else {
            throw ClusterError(node == nil ? .closed : .connectionLost(address: node?.address ?? "", cause: "closed"))
        }
        return node
    }

    private func values(_ arguments: [(any DatabaseValueConvertible)?]) -> [DatabaseValue] {
        arguments.map { $0?.databaseValue ?? .null }
    }

    /// What a break after sending means here: in a transaction, the transaction is lost (it was not committed, and
    /// the body cannot send a `COMMIT` of its own); in a read, nothing changed (`query_only` refuses every write);
    /// otherwise the statement may have committed.
    private func failure(_ node: NodeConnection) -> (String) -> ClusterError {
        let address = node.address
        if inTransaction { return { _ in ClusterError(.leadershipLost(address: address)) } }
        if reading { return { ClusterError(.connectionLost(address: address, cause: $0)) } }
        return { ClusterError(.outcomeUnknown(address: address, cause: $0)) }
    }
}

/// A row read from the cluster: its values, copied out of the response, with the toolkit's value conversions.
///
/// Reads convert with `DatabaseValueConvertible.fromDatabaseValue(_:)`, which is stricter than
/// `Row`'s reads on a local connection (those follow SQLite's own conversions, text `'5'` read as the
/// integer 5): the values were converted on the node already, so a mismatch throws.
public struct ClusterRow: Sendable, Hashable {
    /// Column names and their positions, shared by every row of one result.
    final class ColumnIndex: Sendable, Hashable {
        let names: [String]
        let positions: [String: Int]

        init(_ names: [String]) {
            self.names = names
            var positions: [String: Int] = [:]
            // The leftmost column of a name wins, as in the toolkit's Row; names compare case-insensitively.
            for (index, name) in names.enumerated().reversed() { positions[name.lowercased()] = index }
            self.positions = positions
        }

        static func == (lhs: ColumnIndex, rhs: ColumnIndex) -> Bool { lhs.names == rhs.names }
        func hash(into hasher: inout Hasher) { hasher.combine(names) }
    }

    let columns: ColumnIndex
    /// The row's values, in column order.
    public let values: [DatabaseValue]

    init(columns: ColumnIndex, values: [DatabaseValue]) {
        self.columns = columns
        self.values = values
    }

    /// The column names, in order.
    public var columnNames: [String] { columns.names }

    /// The number of columns.
    public var count: Int { values.count }

    /// The value of column `index` (0-based) as `T`; NULL reads as nil for an optional `T` and throws otherwise.
    public func value<T: DatabaseValueConvertible>(at index: Int, as type: T.Type = T.self) throws -> T {
        guard values.indices.contains(index) else {
            throw ClusterError(.columnNotFound("index \(index) of \(values.count) columns"))
        }
        let value = values[index]
        if value.isNull { return try T.readNull() }
        guard let converted = T.fromDatabaseValue(value) else {
            throw ClusterError(
                .typeMismatch(column: columns.names[index], stored: value.storageDescription, type: "\(T.self)"))
        }
        return converted
    }

    /// The value of the leftmost column named `name` (case-insensitive) as `T`.
    public func value<T: DatabaseValueConvertible>(named name: String, as type: T.Type = T.self) throws -> T {
        guard let index = columns.positions[name.lowercased()] else {
            throw ClusterError(.columnNotFound("no column named \(name)"))
        }
        return try value(at: index, as: T.self)
    }
}
