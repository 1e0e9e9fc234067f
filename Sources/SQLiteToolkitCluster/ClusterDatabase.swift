import SQLiteToolkit

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One database of a dqlite cluster, reached through its leader.
///
/// ```swift
/// let cluster = try ClusterDatabase(nodes: ["10.0.0.1:9001", "10.0.0.2:9001"], name: "app.db")
/// try cluster.write { db in
///     try db.execute("INSERT INTO player (name, score) VALUES (?, ?)", "Arthur", 42)
/// }
/// let names = try cluster.read { db in
///     try db.fetchAll("SELECT name FROM player ORDER BY name").map { try $0.value(at: 0, as: String.self) }
/// }
/// ```
///
/// It keeps one connection to the leader and runs one access at a time on it, like a `DatabaseQueue`:
/// open several for parallel work. When the leader goes away, the next access finds the new one. An access that
/// fails because the leader changed throws a ``ClusterError``; nothing is retried behind the caller's back (see
/// ``retrying(_:_:)``).
public final class ClusterDatabase: @unchecked Sendable {
    // @unchecked Sendable: `connection` and `closed` change only with `mutex` held, for a whole access.

    /// How long the client waits.
    public struct Timeouts: Sendable, Hashable {
        /// For one node to accept a connection, in seconds.
        public var connect: Double
        /// For one response, in seconds (a commit waits for a majority of the nodes).
        public var request: Double
        /// For some node to name a leader that accepts the connection, in seconds (an election takes a few).
        public var leaderSearch: Double

        /// Timeouts in seconds.
        public init(connect: Double = 1, request: Double = 10, leaderSearch: Double = 10) {
            self.connect = connect
            self.request = request
            self.leaderSearch = leaderSearch
        }

        /// The longest timeout, in seconds: a wait is one `poll` of at most `Int32.max` milliseconds (about 24 days).
        static let longest: Double = 2_000_000

        /// Throws for a timeout the client cannot wait for: not finite (a NaN search never ended, an infinite one
        /// trapped in the conversion to milliseconds), negative, or longer than ``longest``.
        func validate() throws(ClusterError) {
            for (name, value) in [("connect", connect), ("request", request), ("leaderSearch", leaderSearch)] {
                guard value.isFinite, value >= 0, value <= Timeouts.longest else {
                    throw ClusterError(
                        .unsupportedArgument(
                            "timeouts.\(name) is \(value) s; it must be between 0 and \(Int(Timeouts.longest)) s"))
                }
            }
        }
    }

    /// The addresses the client looks for the leader at (`host:port` of the nodes' wire protocol).
    public let nodes: [String]
    /// The database's name on the cluster.
    public let name: String
    /// The timeouts given to the initializer.
    public let timeouts: Timeouts

    private let mutex = PthreadMutex()
    private var connection: NodeConnection?
    private var closed = false

    /// Finds the leader among `nodes` and opens the database `name` (created when new).
    ///
    /// - Throws: ``ClusterError/Reason/noLeader(addresses:)`` or ``ClusterError/Reason/nodeUnreachable(address:cause:)``
    ///   when no leader answers within `timeouts.leaderSearch`; ``ClusterError/Reason/unsupportedArgument(_:)`` for a
    ///   timeout that is negative, not finite, or longer than 2,000,000 seconds.
    public init(nodes: [String], name: String, timeouts: Timeouts = Timeouts()) throws(ClusterError) {
        try timeouts.validate()
        guard !nodes.isEmpty else { throw ClusterError(.noLeader(addresses: [])) }
        self.nodes = nodes
        self.name = name
        self.timeouts = timeouts
        try mutex.withLock { () throws(ClusterError) in _ = try connectedLeader() }
    }

    /// The address of the leader the client is connected to, or nil when it is not connected (after a failure).
    public var leaderAddress: String? {
        // Inside an access the calling thread holds the mutex already.
        let address = { self.connection?.socket.isOpen == true ? self.connection?.address : nil }
        return mutex.withLockUnlessHeld(address) ?? address()
    }

    /// Closes the connection; later accesses throw ``ClusterError/Reason/closed``.
    ///
    /// Called inside an access, it closes at once: the access's next statement throws.
    public func close() {
        let closeNow = {
            self.connection?.close()
            self.connection = nil
            self.closed = true
        }
        // Inside an access the calling thread holds the mutex already.
        if mutex.withLockUnlessHeld(closeNow) == nil { closeNow() }
    }

    /// Runs `body` in a transaction (`BEGIN`, then `COMMIT` on the same leader connection): commits when it returns,
    /// rolls back and rethrows when it throws.
    ///
    /// A leader change before the commit throws ``ClusterError/Reason/leadershipLost(address:)``: nothing of the
    /// transaction is committed. A connection that breaks while the `COMMIT` is in flight throws
    /// ``ClusterError/Reason/outcomeUnknown(address:cause:)``: it may be committed.
    ///
    /// `body` may not run `BEGIN`, `COMMIT`, `END`, `ROLLBACK`, `SAVEPOINT` or `RELEASE` (it throws
    /// ``ClusterError/Reason/transactionControl(keyword:)``, and nothing of that statement is sent): the client
    /// could not tell a break during the body's own `COMMIT` from one before it, and would report it as retryable.
    /// To roll back, throw from `body`.
    @discardableResult
    public func write<T>(_ body: (ClusterConnection) throws -> T) throws -> T {
        try access(transaction: true, body)
    }

    /// Runs `body` in a transaction that only reads. dqlite serves every read on the leader, so a read sees every
    /// commit acknowledged before it started.
    ///
    /// The connection is read-only for the read (`PRAGMA query_only`, switched only when the connection goes from
    /// writes to reads or back): the node refuses a statement that writes, an `INSERT … RETURNING` too, with
    /// SQLite's `SQLITE_READONLY` (dqlite 1.11 garbles the code of a refused query, but still refuses it). So a read never changes the database, and a break during one, its `COMMIT`
    /// included, is ``ClusterError/Reason/connectionLost(address:cause:)`` or
    /// ``ClusterError/Reason/leadershipLost(address:)``, which ``retrying(_:_:)`` may run again safely. `body` may
    /// not run transaction control statements either (see ``write(_:)``).
    @discardableResult
    public func read<T>(_ body: (ClusterConnection) throws -> T) throws -> T {
        try access(transaction: true, reading: true, body)
    }

    /// Runs `body` outside any transaction: each statement commits on its own, and one whose connection breaks after
    /// it was sent throws ``ClusterError/Reason/outcomeUnknown(address:cause:)``.
    ///
    /// `body` may not open a transaction of its own (``ClusterError/Reason/transactionControl(keyword:)``, nothing
    /// sent): left open on the leader connection, it would hold every later statement, acknowledged but uncommitted.
    @discardableResult
    public func writeWithoutTransaction<T>(_ body: (ClusterConnection) throws -> T) throws -> T {
        try access(transaction: false, body)
    }

    /// Runs one statement outside any transaction.
    @discardableResult
    public func execute(_ sql: String, _ arguments: (any DatabaseValueConvertible)?...) throws -> ExecutionResult {
        try writeWithoutTransaction { db in try db.execute(sql, arguments: arguments) }
    }

    /// Runs one query outside any transaction and returns its rows, on a read-only connection as in ``read(_:)``: the
    /// node refuses a statement that writes, and a break is retryable.
    public func fetchAll(_ sql: String, _ arguments: (any DatabaseValueConvertible)?...) throws -> [ClusterRow] {
        try access(transaction: false, reading: true) { db in try db.fetchAll(sql, arguments: arguments) }
    }

    private func access<T>(
        transaction: Bool, reading: Bool = false, _ body: (ClusterConnection) throws -> T
    ) throws -> T {
        let value = try mutex.withLockUnlessHeld { () throws -> T in
            let node = try connectedLeader()
            let handle = ClusterConnection(node: node, inTransaction: transaction, reading: reading)
            defer { handle.invalidate() }
            do {
                if node.queryOnly != reading {
                    // Only a switch between writes and reads costs a round trip. A break before the answer changed
                    // nothing that a retry could repeat: the pragma writes nothing to the database.
                    _ = try node.exec("PRAGMA query_only = \(reading ? 1 : 0)", []) {
                        ClusterError(.connectionLost(address: node.address, cause: $0))
                    }
                    node.queryOnly = reading
                }
                if transaction {
                    _ = try node.exec("BEGIN", []) { ClusterError(.connectionLost(address: node.address, cause: $0)) }
                }
                let value = try body(handle)
                if transaction {
                    // A read's connection is query_only, so its transaction wrote nothing: a break during its COMMIT
                    // is as safe to run again as one before it.
                    _ = try node.exec("COMMIT", []) { cause in
                        reading
                            ? ClusterError(.connectionLost(address: node.address, cause: cause))
                            : ClusterError(.outcomeUnknown(address: node.address, cause: cause))
                    }
                }
                if !node.socket.isOpen { connection = nil }
                return value
            } catch {
                if node.socket.isOpen, transaction {
                    // The leader rolls back by itself when the connection breaks; a live one is told to.
                    _ = try? node.exec("ROLLBACK", []) {
                        ClusterError(.connectionLost(address: node.address, cause: $0))
                    }
                }
                if !node.socket.isOpen { connection = nil }
                throw error
            }
        }
        // The mutex is not recursive: waiting for it on the thread that holds it would wait forever.
        guard let value else { throw ClusterError(.reentrantAccess) }
        return value
    }

    /// The connection to the leader, found again when the last one broke. Called with `mutex` held.
    private func connectedLeader() throws(ClusterError) -> NodeConnection {
        if closed { throw ClusterError(.closed) }
        if let connection, connection.socket.isOpen { return connection }
        connection = nil
        let found = try LeaderSearch(nodes: nodes, timeouts: timeouts).run()
        do {
            try found.open(name)
        } catch {
            found.close()
            throw error
        }
        connection = found
        return found
    }
}

/// Asks the nodes who leads until one connection is to the leader, or the search's time is up.
struct LeaderSearch {
    let nodes: [String]
    let timeouts: ClusterDatabase.Timeouts

    func run() throws(ClusterError) -> NodeConnection {
        let deadline = monotonicSeconds() + timeouts.leaderSearch
        var lastError = ClusterError(.noLeader(addresses: nodes))
        while true {
            for address in nodes {
                do {
                    if let leader = try attempt(address) { return leader }
                } catch {
                    lastError = error
                }
            }
            if monotonicSeconds() >= deadline {
                if case .nodeUnreachable = lastError.reason { throw lastError }
                throw ClusterError(.noLeader(addresses: nodes))
            }
            // An election takes a few hundred milliseconds; asking again at once would only load the nodes.
            usleep(100_000)
        }
    }

    /// A connection to `address` if it is the leader, else to the leader it names if that one agrees; nil when
    /// neither is.
    private func attempt(_ address: String) throws(ClusterError) -> NodeConnection? {
        let node = try NodeConnection(
            address: address, connectTimeout: timeouts.connect, requestTimeout: timeouts.connect)
        guard let leader = try node.leader() else {
            node.close()
            return nil
        }
        if leader == address { return node.withRequestTimeout(timeouts.request) }
        node.close()
        let other = try NodeConnection(
            address: leader, connectTimeout: timeouts.connect, requestTimeout: timeouts.connect)
        if try other.leader() == leader { return other.withRequestTimeout(timeouts.request) }
        other.close()
        return nil
    }
}

/// Seconds on the monotonic clock.
func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// A mutex of the platform that tells a thread when it holds it already (`PTHREAD_MUTEX_ERRORCHECK`);
/// `ClusterDatabase` holds it for a whole access, which serialises its accesses.
final class PthreadMutex: @unchecked Sendable {
    // @unchecked Sendable: a pthread mutex is made to be shared between threads; it stays at one address.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        #if canImport(Glibc) || canImport(Musl)
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        #else
            pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_ERRORCHECK)
        #endif
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// `body`'s value with the mutex held, or nil without running it when the calling thread holds it already.
    func withLockUnlessHeld<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T? {
        guard pthread_mutex_lock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
