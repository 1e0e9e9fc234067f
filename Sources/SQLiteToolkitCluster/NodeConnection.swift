import SQLiteToolkit

/// One client connection to a dqlite node: the handshake, then one request and its response at a time (the server
/// does not take a second request before it answered the first).
final class NodeConnection {
    let socket: NodeSocket
    /// The database opened on this connection (a connection opens at most one).
    private(set) var databaseID: UInt32?
    private(set) var requestTimeout: Double
    /// Whether `PRAGMA query_only` is on for this connection (SQLite starts with it off), so that reads in a row
    /// switch it once, not once each.
    var queryOnly = false

    /// Connects and sends the protocol version.
    init(address: String, connectTimeout: Double, requestTimeout: Double) throws(ClusterError) {
        socket = try NodeSocket(address: address, timeout: connectTimeout)
        self.requestTimeout = requestTimeout
        var version = WireEncoder()
        version.uint64(Wire.protocolVersion)
        try socket.send(version.body, deadline: Deadline(in: requestTimeout))
    }

    var address: String { socket.address }

    /// The connection, now waiting `timeout` seconds for each response.
    func withRequestTimeout(_ timeout: Double) -> NodeConnection {
        requestTimeout = timeout
        return self
    }

    func close() { socket.close() }

    /// The leader this node knows of: nil when it knows none.
    func leader() throws(ClusterError) -> String? {
        try droppingOnViolation { () throws(ClusterError) in try askLeader() }
    }

    private func askLeader() throws(ClusterError) -> String? {
        var body = WireEncoder()
        body.uint64(0)
        var response = try call(
            .leader, body, afterSending: { ClusterError(.connectionLost(address: address, cause: $0)) })
        guard response.type == .node else { throw unexpected(response.type, "LEADER") }
        _ = try response.decoder.uint64()
        let leader = try response.decoder.text()
        return leader.isEmpty ? nil : leader
    }

    /// Opens the database `name` (created on first use).
    func open(_ name: String) throws(ClusterError) {
        try droppingOnViolation { () throws(ClusterError) in try openDatabase(name) }
    }

    private func openDatabase(_ name: String) throws(ClusterError) {
        // The node reads the name up to its first NUL: "app\0.db" would open "app".
        guard !name.utf8.contains(0) else {
            throw ClusterError(.unsupportedArgument("the database name contains a NUL"))
        }
        var body = WireEncoder()
        body.text(name)
        body.uint64(0)
        // The server keeps its databases in its own in-memory VFS and takes this name for it.
        body.text("volatile")
        var response = try call(
            .open, body, afterSending: { ClusterError(.connectionLost(address: address, cause: $0)) })
        guard response.type == .database else { throw unexpected(response.type, "OPEN") }
        databaseID = try response.decoder.uint32()
    }

    /// Runs `sql` with `arguments`. `afterSending` makes the error for a connection that breaks, or a leader that
    /// steps down, once the request is sent.
    func exec(
        _ sql: String, _ arguments: [DatabaseValue], afterSending: (String) -> ClusterError
    ) throws(ClusterError) -> ExecutionResult {
        try droppingOnViolation { () throws(ClusterError) in try execute(sql, arguments, afterSending: afterSending) }
    }

    private func execute(
        _ sql: String, _ arguments: [DatabaseValue], afterSending: (String) -> ClusterError
    ) throws(ClusterError) -> ExecutionResult {
        var response = try call(.execSQL, try statementBody(sql, arguments), afterSending: afterSending)
        guard response.type == .result else { throw unexpected(response.type, "EXEC_SQL") }
        let lastID = try response.decoder.uint64()
        let changes = try response.decoder.uint64()
        return ExecutionResult(lastInsertedRowID: Int64(bitPattern: lastID), changes: Int(clamping: changes))
    }

    /// Runs a query and reads every row, across the several responses a large result set takes.
    func query(
        _ sql: String, _ arguments: [DatabaseValue], afterSending: (String) -> ClusterError
    ) throws(ClusterError) -> (columns: [String], rows: [[DatabaseValue]]) {
        try droppingOnViolation { () throws(ClusterError) in try readQuery(sql, arguments, afterSending: afterSending) }
    }

    private func readQuery(
        _ sql: String, _ arguments: [DatabaseValue], afterSending: (String) -> ClusterError
    ) throws(ClusterError) -> (columns: [String], rows: [[DatabaseValue]]) {
        var response = try call(.querySQL, try statementBody(sql, arguments), afterSending: afterSending)
        var columns: [String] = []
        var rows: [[DatabaseValue]] = []
        while true {
            guard response.type == .rows else { throw unexpected(response.type, "QUERY_SQL") }
            let count = try response.decoder.uint64()
            guard count <= UInt64(response.decoder.body.count) else {
                throw ClusterError(.protocolViolation("a result set announces \(count) columns"))
            }
            columns = []
            for _ in 0..<count { columns.append(try response.decoder.text()) }
            let more = try Self.readRows(&response.decoder, columns: columns.count, into: &rows)
            if !more { return (columns, rows) }
            response = try receive(afterSending: afterSending)
        }
    }

    /// Reads rows up to the end marker: returns whether another response follows (the "part" marker).
    private static func readRows(
        _ decoder: inout WireDecoder, columns: Int, into rows: inout [[DatabaseValue]]
    ) throws(ClusterError) -> Bool {
        while true {
            let marker = try decoder.peek()
            if marker == 0xff { return false }
            if marker == 0xee { return true }
            guard columns > 0 else { throw ClusterError(.protocolViolation("a row of no columns")) }
            // The row's header: a 4-bit type per column, low nibble first, padded to a word.
            var types: [UInt8] = []
            types.reserveCapacity(columns)
            let headerBytes = (columns + 1) / 2
            for index in 0..<headerBytes {
                let byte = try decoder.byte()
                types.append(byte & 0x0f)
                if index * 2 + 1 < columns { types.append(byte >> 4) }
            }
            decoder.skipToWord()
            var row: [DatabaseValue] = []
            row.reserveCapacity(columns)
            for type in types {
                switch Wire.ValueType(rawValue: type) {
                case .integer, .unixTime, .boolean: row.append(.integer(Int64(bitPattern: try decoder.uint64())))
                case .float: row.append(.real(Double(bitPattern: try decoder.uint64())))
                case .text, .iso8601: row.append(.text(try decoder.text()))
                case .blob: row.append(.blob(try decoder.blob()))
                case .null:
                    _ = try decoder.uint64()
                    row.append(.null)
                case nil: throw ClusterError(.protocolViolation("a column of unknown type \(type)"))
                }
            }
            rows.append(row)
        }
    }

    /// Runs `body`, closing the connection when the node broke the protocol: the rest of what it sent (the next
    /// part of a result set, say) would otherwise be read as the answer to the next request.
    private func droppingOnViolation<T>(_ body: () throws(ClusterError) -> T) throws(ClusterError) -> T {
        do {
            return try body()
        } catch {
            if case .protocolViolation = error.reason { socket.close() }
            throw error
        }
    }

    private func statementBody(_ sql: String, _ arguments: [DatabaseValue]) throws(ClusterError) -> WireEncoder {
        guard let databaseID else { throw ClusterError(.protocolViolation("no database is open")) }
        guard !sql.utf8.contains(0) else { throw ClusterError(.unsupportedArgument("the SQL contains a NUL")) }
        var body = WireEncoder()
        body.uint64(UInt64(databaseID))
        body.text(sql)
        try body.parameters(arguments)
        return body
    }

    struct Response {
        var type: Wire.Response
        var decoder: WireDecoder
    }

    /// Sends a request and reads its response; a failure response becomes ``ClusterError/Reason/sqlite(code:message:)``.
    /// A break while sending is `connectionLost` (the node got no whole request, so it ran nothing); once the request
    /// is sent, `afterSending` decides.
    private func call(
        _ type: Wire.Request, _ body: WireEncoder, afterSending: (String) -> ClusterError
    ) throws(ClusterError) -> Response {
        try socket.send(body.message(type), deadline: Deadline(in: requestTimeout))
        return try receive(afterSending: afterSending)
    }

    private func receive(afterSending: (String) -> ClusterError) throws(ClusterError) -> Response {
        let header: [UInt8]
        let body: [UInt8]
        // One deadline for the header and the body: `requestTimeout` bounds the whole response.
        let deadline = Deadline(in: requestTimeout)
        do {
            header = try socket.receive(8, deadline: deadline)
            var words: UInt32 = 0
            for index in (0..<4).reversed() { words = words << 8 | UInt32(header[index]) }
            body = try socket.receive(Int(words) * 8, deadline: deadline)
        } catch {
            if case .connectionLost(_, let cause) = error.reason { throw afterSending(cause) }
            throw error
        }
        guard let type = Wire.Response(rawValue: header[4]) else {
            socket.close()
            throw ClusterError(.protocolViolation("a response of unknown type \(header[4])"))
        }
        var decoder = WireDecoder(body)
        if type == .failure {
            let code = try decoder.uint64()
            let message = try decoder.text()
            if Wire.notLeaderCodes.contains(code) {
                // Refused before running anything: the node is not the leader.
                socket.close()
                throw ClusterError(.leadershipLost(address: address))
            }
            if Wire.leadershipLostCodes.contains(code) {
                // The node stepped down while the statement's commit waited for a majority: the new leader may or
                // may not have the commit.
                socket.close()
                throw afterSending("the node lost its leadership before the commit was confirmed")
            }
            throw ClusterError(.sqlite(code: Int(truncatingIfNeeded: code), message: message))
        }
        return Response(type: type, decoder: decoder)
    }

    private func unexpected(_ type: Wire.Response, _ request: String) -> ClusterError {
        socket.close()
        return ClusterError(.protocolViolation("response \(type) to \(request)"))
    }
}

/// What a statement that returns no rows did.
public struct ExecutionResult: Sendable, Hashable {
    /// The rowid of the last row inserted on the connection (SQLite's `last_insert_rowid()` on the leader).
    public var lastInsertedRowID: Int64
    /// The rows the last statement changed (SQLite's `changes()` on the leader).
    public var changes: Int
}
