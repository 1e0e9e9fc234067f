/// What ``DatabaseQueue`` and ``DatabasePool`` share for reading: code that only reads takes `some DatabaseReader`
/// and works with either.
///
/// ```swift
/// func playerCount(in database: some DatabaseReader) throws -> Int {
///     try database.read { db in try db.queryRequiredValue("SELECT count(*) FROM player", as: Int.self) }
/// }
/// ```
///
/// A read runs in a deferred transaction, so it sees one consistent state of the database. On a pool it runs on a
/// reader connection beside the writer; on a queue it waits for the queue's one connection.
public protocol DatabaseReader: AnyObject, Sendable {
    /// The path of the database.
    var path: String { get }

    /// Whether the queue or pool is open (not closed by `close()`).
    var isOpen: Bool { get }

    /// Runs `body` in a deferred transaction, which sees one consistent state of the database.
    @discardableResult
    func read<T>(_ body: (Database) throws -> T) throws -> T

    /// The blocking `read(_:)` for async code: waits without blocking a thread of Swift's cooperative pool; cancelling the
    /// task interrupts the running statement.
    @discardableResult
    func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T

    /// Waits for the accesses in progress, then closes every connection; later accesses throw
    /// ``DatabaseError/Reason/accessAfterClose`` until `reopen()`.
    func close()
}

/// What ``DatabaseQueue`` and ``DatabasePool`` share for reading and writing: code that writes takes
/// `some DatabaseWriter` and works with either.
///
/// ```swift
/// func addPlayer(named name: String, to database: some DatabaseWriter) throws {
///     try database.write { db in try db.execute("INSERT INTO player (name) VALUES (?)", name) }
/// }
/// ```
public protocol DatabaseWriter: DatabaseReader {
    /// Runs `body` alone in an immediate transaction: commits when it returns, rolls back and rethrows when it
    /// throws.
    @discardableResult
    func write<T>(_ body: (Database) throws -> T) throws -> T

    /// The blocking `write(_:)` for async code.
    @discardableResult
    func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T

    /// Runs `body` alone, outside any transaction the queue or pool would open (for `VACUUM`, pragmas, or
    /// transactions of your own).
    @discardableResult
    func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T

    /// The blocking `writeWithoutTransaction(_:)` for async code.
    @discardableResult
    func writeWithoutTransaction<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T
}

extension DatabaseQueue: DatabaseWriter {
    /// The blocking `inDatabase(_:)`, under the name ``DatabaseWriter`` gives it: `body` runs alone, outside any
    /// transaction the queue would open.
    @discardableResult
    public func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try serialized.access(body)
    }

    /// The async `inDatabase(_:)`, under the name ``DatabaseWriter`` gives it.
    @discardableResult
    public func writeWithoutTransaction<T: Sendable>(
        _ body: @Sendable (Database) throws -> T
    ) async throws -> T {
        try await AsyncAccess.performElsewhere(on: serialized, transaction: nil, body)
    }
}

extension DatabasePool: DatabaseWriter {}
