// DispatchQueue: Dispatch is its own module (Foundation only re-exports it).
import Dispatch

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One connection used by one access at a time: the core of ``DatabaseQueue`` and of ``DatabasePool``'s writer.
///
/// An access takes the connection under `lock`, runs its closure without holding any lock, and gives the
/// connection back. While it runs, the calling thread is recorded in ``ThreadAccesses`` under this object's
/// identity (which a pool shares for its readers), so an access started on that thread before the first ends throws
/// instead of waiting for itself.
final class SerializedDatabase: @unchecked Sendable {
    // @unchecked Sendable: `database` and `isBusy` are read and written only while holding `lock`. The connection
    // itself is used only by the access that set `isBusy`.
    private let lock = Lock()
    private var database: Database?
    private var isBusy = false
    /// Set by ``close()`` called inside the access in progress: the access closes the connection when it ends.
    private var closesWhenAccessEnds = false
    let recipe: ConnectionRecipe
    /// What errors call the owner: "database queue" or "database pool".
    let ownerName: String
    /// Runs async accesses that do not run in place one after another, off Swift's cooperative thread pool: an
    /// access that waits for the connection blocks a thread of this queue, never one that other tasks need.
    let dispatchQueue: DispatchQueue
    /// The cancellation record of the async accesses that run without a hop. Only the access that holds the
    /// connection uses it, an access in place holds the connection until `withTaskCancellationHandler` has returned,
    /// and a task's cancellation handler never runs after that, so one record serves them all, without an allocation
    /// per access.
    private let inPlaceCancellation = AccessCancellation()

    /// Opens the connection at once, so a path that cannot be opened throws here. `ownerName` is what errors call
    /// the queue or pool that owns the connection.
    init(recipe: ConnectionRecipe, label: String, ownerName: String = "database queue") throws {
        self.recipe = recipe
        self.ownerName = ownerName
        self.database = try recipe.open()
        self.dispatchQueue = DispatchQueue(label: label)
    }

    deinit {
        database?.close()
    }

    /// The identity of the accesses to this connection in ``ThreadAccesses``.
    var identity: ObjectIdentifier { ObjectIdentifier(self) }

    /// Whether the connection is open.
    var isOpen: Bool {
        lock.withLock { database != nil && !closesWhenAccessEnds }
    }

    /// Throws when the calling thread is inside an access to this connection (or, for a pool, to its readers).
    func checkNotReentrant(_ what: String) throws {
        if ThreadAccesses.contains(identity) { throw ThreadAccesses.reentryError(what, ownerName: ownerName) }
    }

    /// Records the calling thread as inside an access; throws when it is inside one already.
    @inline(__always)
    private func enter() throws -> ThreadAccessRecord {
        guard let list = ThreadAccesses.enter(identity) else {
            throw ThreadAccesses.reentryError("an access started", ownerName: ownerName)
        }
        return list
    }

    /// Waits until the connection is free and takes it.
    private func checkOut() throws -> Database {
        lock.lock()
        defer { lock.unlock() }
        while isBusy { lock.wait() }
        guard let database else {
            throw DatabaseError.misuse("the \(ownerName) is closed", reason: .accessAfterClose)
        }
        isBusy = true
        return database
    }

    /// Takes the connection when it is free, without waiting; `nil` when another access holds it.
    private func checkOutIfFree() throws -> Database? {
        lock.lock()
        defer { lock.unlock() }
        if isBusy { return nil }
        guard let database else {
            throw DatabaseError.misuse("the \(ownerName) is closed", reason: .accessAfterClose)
        }
        isBusy = true
        return database
    }

    /// Gives the connection back and wakes one waiting access.
    private func checkIn() {
        lock.lock()
        isBusy = false
        if closesWhenAccessEnds {
            closesWhenAccessEnds = false
            closeConnection()
        } else {
            lock.signal()
        }
        lock.unlock()
    }

    /// Runs `body` with the connection, alone, in a transaction of `kind` when it is not `nil`; ends it as
    /// ``finishAccess(_:bodyFailed:)`` describes.
    func access<T>(
        transaction kind: Database.TransactionKind? = nil,
        cancellation: AccessCancellation? = nil,
        _ body: (Database) throws -> T
    ) throws -> T {
        let list = try enter()
        defer { ThreadAccesses.leave(identity, from: list) }
        let database = try checkOut()
        defer { checkIn() }
        return try Self.run(body, on: database, transaction: kind, cancellation: cancellation)
    }

    /// Runs `body` on a connection the caller has taken, in a transaction of `kind` when it is not `nil`, then ends
    /// the access. The access does not start when `cancellation` was cancelled already.
    static func run<T>(
        _ body: (Database) throws -> T,
        on database: Database,
        transaction kind: Database.TransactionKind? = nil,
        cancellation: AccessCancellation?
    ) throws -> T {
        if let cancellation, !cancellation.start(database.interruptHandle) { throw CancellationError() }
        return try runStarted(body, on: database, transaction: kind, cancellation: cancellation)
    }

    /// ``run(_:on:transaction:cancellation:)`` once `cancellation`, if any, has started.
    @inline(__always)
    private static func runStarted<T>(
        _ body: (Database) throws -> T,
        on database: Database,
        transaction kind: Database.TransactionKind?,
        cancellation: AccessCancellation?
    ) throws -> T {
        // No `Result<T, any Error>` here: for a generic `T` its type metadata is looked up at run time on every
        // access, which cost more than the rest of the access's bookkeeping.
        let value: T
        do {
            if let kind {
                value = try database.transaction(kind, body)
            } else {
                value = try body(database)
            }
        } catch {
            cancellation?.finish()
            try finishAccess(database, bodyFailed: true)
            throw error
        }
        cancellation?.finish()
        try finishAccess(database, bodyFailed: false)
        return value
    }

    /// Ends an access: ends the cursors it left open, and rolls back a transaction it left open, which is an error
    /// unless the body threw already.
    static func finishAccess(_ database: Database, bodyFailed: Bool) throws {
        // A commit that no statement's end reported (a reset, or a statement run through `handle`) reaches the
        // transaction observers now, before another thread can use the connection.
        if database.observation.isActive { database.observation.accessEnded() }
        // The error is built only when a cursor is left: building it costs more than the rest of the check.
        if database.openCursorCount > 0 {
            database.endOpenCursors(
                throwing: DatabaseError.misuse(
                    "the cursor was read after the access that opened it ended", reason: .cursorOutlivedAccess))
        }
        guard database.isInTransaction else {
            // A transaction the body ended with SQL text (`COMMIT` through `execute`) keeps the write gate until
            // now: no access ends holding it.
            database.releaseWriteGate()
            return
        }
        try? database.rollback()
        if !bodyFailed {
            throw DatabaseError.misuse(
                "the access returned with a transaction open; it was rolled back", reason: .transactionLeftOpen)
        }
    }

    /// Waits for the access in progress, then closes the connection. Later accesses throw until ``reopen()``.
    /// Called inside the access in progress, which waiting would deadlock, the access closes the connection when it
    /// ends. Closing a closed connection does nothing.
    func close() {
        let isInsideAccess = ThreadAccesses.contains(identity)
        lock.lock()
        defer { lock.unlock() }
        if isInsideAccess && isBusy {
            closesWhenAccessEnds = database != nil
            return
        }
        while isBusy { lock.wait() }
        closeConnection()
    }

    /// Closes the connection and wakes every waiting access, which then throws. Called with `lock` held.
    private func closeConnection() {
        database?.close()
        database = nil
        lock.broadcast()
    }

    /// Opens the connection again with the same recipe; does nothing when it is open.
    func reopen() throws {
        try checkNotReentrant("reopen()")
        lock.lock()
        defer { lock.unlock() }
        while isBusy { lock.wait() }
        guard database == nil else { return }
        database = try recipe.open()
        lock.broadcast()
    }
}

extension SerializedDatabase: AsyncAccessTarget {
    /// Takes the connection when it is free, recording the calling thread as inside an access.
    @inline(__always)
    func takeInPlace() throws -> (Database, ThreadAccessRecord)? {
        let list = try enter()
        do {
            if let database = try checkOutIfFree() { return (database, list) }
        } catch {
            ThreadAccesses.leave(identity, from: list)
            throw error
        }
        ThreadAccesses.leave(identity, from: list)
        return nil
    }

    /// The connection's one in-place record: only the access that holds the connection uses it.
    @inline(__always)
    func inPlaceCancellation(for taken: (Database, ThreadAccessRecord)) -> AccessCancellation {
        inPlaceCancellation.reset()
        return inPlaceCancellation
    }

    /// Runs `body` with the connection in a transaction of `kind` (taken here rather than in a closure around
    /// `body`, which would cost an allocation per access).
    @inline(__always)
    func runInPlace<T>(
        _ taken: (Database, ThreadAccessRecord),
        transaction kind: Database.TransactionKind?,
        cancellation: AccessCancellation,
        _ body: (Database) throws -> T
    ) throws -> T {
        defer { ThreadAccesses.leave(identity, from: taken.1) }
        return try Self.run(body, on: taken.0, transaction: kind, cancellation: cancellation)
    }

    /// Gives the connection back.
    @inline(__always)
    func giveBackInPlace(_ taken: (Database, ThreadAccessRecord)) {
        checkIn()
    }

    /// Runs the access on ``dispatchQueue``, which waits there for the connection.
    func startElsewhere<T: Sendable>(
        transaction kind: Database.TransactionKind?,
        _ body: EscapedBody<T>,
        cancellation: AccessCancellation,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        dispatchQueue.async {
            completion(Result { try self.access(transaction: kind, cancellation: cancellation, body.run) })
        }
    }
}
