#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One connection that any thread or task can use: every access runs alone, one after another. The Swift
/// counterpart of FMDB's `FMDatabaseQueue`.
///
/// ```swift
/// let queue = try DatabaseQueue(path: "/path/to/app.sqlite")
/// try queue.write { db in
///     try db.execute("INSERT INTO player (name, score) VALUES (?, ?)", "Arthur", 100)
/// }
/// let count = try queue.read { db in try db.queryValue("SELECT count(*) FROM player", as: Int.self) }
/// // In async code, the same calls with `await`: they never wait for the connection on Swift's cooperative threads.
/// let names = try await queue.read { db in try db.query("SELECT name FROM player").map { try $0.value(at: 0) as String } }
/// ```
///
/// - An access started on the thread of an access in progress to the same queue (a nested `read` inside a
///   `write`, say) throws ``DatabaseError/Reason/reentrantAccess`` at once instead of waiting for itself: use the
///   `Database` the enclosing closure received. Accesses to two different queues may nest.
/// - An access that returns with a transaction open rolls it back and throws
///   ``DatabaseError/Reason/transactionLeftOpen``; a cursor kept past its access throws
///   ``DatabaseError/Reason/cursorOutlivedAccess`` when read.
/// - Cancelling the task that awaits an `async` access interrupts its running statement (`SQLITE_INTERRUPT`); an
///   access whose task was cancelled before it started throws `CancellationError` without running. The queue stays
///   usable.
/// - ``close()`` waits for the access in progress; later accesses throw ``DatabaseError/Reason/accessAfterClose``
///   until ``reopen()``.
///
/// Related SQLite documentation: <https://sqlite.org/threadsafe.html>
public final class DatabaseQueue: Sendable {
    let serialized: SerializedDatabase

    /// Opens the database now, so a path that cannot be opened throws here, and runs `setUp` on the connection.
    ///
    /// - Parameters:
    ///   - path: as for ``Database/init(path:configuration:)``: a file, `nil` for a private in-memory database
    ///     (``reopen()`` then starts from an empty one), or a `file:` URI.
    ///   - configuration: the connection's options, used again by ``reopen()``.
    ///   - setUp: runs on every new connection before its first use (here and at each ``reopen()``): the place for
    ///     a key, pragmas, functions and collations. When it throws, the connection is closed and the error thrown.
    public init(
        path: String? = nil,
        configuration: Database.Configuration = Database.Configuration(),
        setUp: (@Sendable (Database) throws -> Void)? = nil
    ) throws {
        let recipe = ConnectionRecipe(path: path ?? ":memory:", configuration: configuration, setUp: setUp)
        serialized = try SerializedDatabase(recipe: recipe, label: "SQLiteToolkit.DatabaseQueue")
    }

    /// The path the connection was opened with.
    public var path: String { serialized.recipe.path }

    /// The options every connection of the queue is opened with.
    public var configuration: Database.Configuration { serialized.recipe.configuration }

    /// Whether the connection is open (not closed by ``close()``).
    public var isOpen: Bool { serialized.isOpen }

    /// Waits for the access in progress, then closes the connection; later accesses throw
    /// ``DatabaseError/Reason/accessAfterClose`` until ``reopen()``. Closing twice does nothing.
    ///
    /// Closing cannot fail, as for ``Database/close()``: there is nothing for the caller to handle. Called inside
    /// an access to this queue (which waiting would deadlock), it closes the connection when that access ends;
    /// ``isOpen`` is `false` at once.
    public func close() {
        serialized.close()
    }

    /// Opens the connection again, with the same path, configuration (flags, VFS) and set-up hook, after
    /// ``close()`` (for example when an app comes back to the foreground). Does nothing when the queue is open.
    public func reopen() throws {
        try serialized.reopen()
    }

    // MARK: - Blocking accesses

    /// Runs `body` with the connection, alone, outside any transaction the queue would open. FMDB's `inDatabase:`.
    ///
    /// - Throws: the error of `body`; ``DatabaseError/Reason/reentrantAccess`` inside an access to this queue;
    ///   ``DatabaseError/Reason/accessAfterClose`` after ``close()``; ``DatabaseError/Reason/transactionLeftOpen``
    ///   when `body` returns with a transaction open (it is rolled back).
    @discardableResult
    public func inDatabase<T>(_ body: (Database) throws -> T) throws -> T {
        try serialized.access(body)
    }

    /// Runs `body` in a deferred transaction, which sees one consistent snapshot of the database, then ends it.
    @discardableResult
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try serialized.access(transaction: .deferred, body)
    }

    /// Runs `body` in an immediate transaction: commits when it returns, rolls back and rethrows when it throws.
    @discardableResult
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try serialized.access(transaction: .immediate, body)
    }

    /// Runs `body` in a transaction of the given kind (immediate by default, which takes the write lock at once
    /// and so avoids `SQLITE_BUSY` on a lock upgrade): commits when it returns, rolls back and rethrows when it
    /// throws.
    ///
    /// Related SQLite documentation: <https://sqlite.org/lang_transaction.html>
    @discardableResult
    public func transaction<T>(
        _ kind: Database.TransactionKind = .immediate,
        _ body: (Database) throws -> T
    ) throws -> T {
        try serialized.access(transaction: kind, body)
    }

    /// Runs `body` in a transaction and commits or rolls back as it answers; a throw rolls back and rethrows.
    /// FMDB's `inTransaction:` with its `rollback` flag.
    public func inTransaction(
        _ kind: Database.TransactionKind = .immediate,
        _ body: (Database) throws -> Database.TransactionCompletion
    ) throws {
        try serialized.access { db in try db.inTransaction(kind, body) }
    }

    /// Runs `body` in a savepoint: released when it returns, rolled back when it throws. FMDB's
    /// `inSavePoint:`.
    ///
    /// Related SQLite documentation: <https://sqlite.org/lang_savepoint.html>
    @discardableResult
    public func savepoint<T>(_ body: (Database) throws -> T) throws -> T {
        try serialized.access { db in try db.savepoint(body) }
    }

    // MARK: - Async accesses

    /// ``inDatabase(_:)`` for async code; cancelling the task interrupts the running statement, or, while the access
    /// waits for the connection, ends the wait with `CancellationError`.
    ///
    /// It waits for the connection, and runs, on a dispatch queue of the queue, so no thread of Swift's cooperative
    /// pool is held waiting, for the connection or for SQLite's write lock: like every access that may write. Only
    /// the async `read(_:)` may run in place. See <doc:Concurrency> for why.
    @discardableResult
    public func inDatabase<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        try await AsyncAccess.performElsewhere(on: serialized, transaction: nil, body)
    }

    /// ``read(_:)`` for async code.
    ///
    /// When the connection is free, and fewer async accesses than the cores minus one run that way in the process,
    /// the read runs at once on the calling task's thread, like any synchronous code in an async function.
    /// Otherwise it waits for the connection, and runs, on a dispatch queue of the queue. Cancelling the task ends a
    /// wait for the connection with `CancellationError`, and interrupts a running statement.
    @discardableResult
    public func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        try await AsyncAccess.perform(on: serialized, transaction: .deferred, body)
    }

    /// ``write(_:)`` for async code.
    @discardableResult
    public func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        try await AsyncAccess.performElsewhere(on: serialized, transaction: .immediate, body)
    }

    /// ``transaction(_:_:)`` for async code.
    @discardableResult
    public func transaction<T: Sendable>(
        _ kind: Database.TransactionKind = .immediate,
        _ body: @Sendable (Database) throws -> T
    ) async throws -> T {
        try await AsyncAccess.performElsewhere(on: serialized, transaction: kind, body)
    }

    /// ``inTransaction(_:_:)`` for async code.
    public func inTransaction(
        _ kind: Database.TransactionKind = .immediate,
        _ body: @Sendable (Database) throws -> Database.TransactionCompletion
    ) async throws {
        try await AsyncAccess.performElsewhere(on: serialized, transaction: nil) { db in
            try db.inTransaction(kind, body)
        }
    }

    /// ``savepoint(_:)`` for async code.
    @discardableResult
    public func savepoint<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        try await AsyncAccess.performElsewhere(on: serialized, transaction: nil) { db in try db.savepoint(body) }
    }
}
