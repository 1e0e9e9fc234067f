import Foundation
import SQLiteBindings

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The identity of the calling thread, for re-entry checks: an access records the thread that runs it, and an
/// access started on that same thread before the first one ends is a re-entry.
@inline(__always)
func currentThreadID() -> UInt {
    #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
    #else
        UInt(pthread_self())
    #endif
}

/// One connection used by one access at a time: the core of ``DatabaseQueue`` and of ``DatabasePool``'s writer.
///
/// An access takes the connection under `condition`, runs its closure without holding any lock, and gives the
/// connection back. The thread of the access in progress is recorded, so an access started on that thread before
/// the first ends throws instead of waiting for itself.
final class SerializedDatabase: @unchecked Sendable {
    // @unchecked Sendable: `database`, `isBusy`, `ownerThread` and `isClosedForGood` are read and written only while
    // holding `condition` (an NSCondition). The connection itself is used only by the access that set `isBusy`.
    private let condition = NSCondition()
    private var database: Database?
    private var isBusy = false
    private var ownerThread: UInt = 0
    /// Set by ``close()`` called inside the access in progress: the access closes the connection when it ends.
    private var closesWhenAccessEnds = false
    let recipe: ConnectionRecipe
    /// What errors call the owner: "database queue" or "database pool".
    let ownerName: String
    /// Runs async accesses that do not run in place one after another, off Swift's cooperative thread pool: an
    /// access that waits for the connection blocks a thread of this queue, never one that other tasks need.
    let dispatchQueue: DispatchQueue
    /// The cancellation record of the async accesses that run without a hop. Only the access that holds the
    /// connection uses it, and a task's cancellation handler never runs after `withTaskCancellationHandler`
    /// returns, so one record serves them all, without an allocation (and a lock's) per access.
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

    /// Whether the connection is open.
    var isOpen: Bool {
        condition.lock()
        defer { condition.unlock() }
        return database != nil && !closesWhenAccessEnds
    }

    /// Whether the calling thread is inside an access.
    var isAccessedByCurrentThread: Bool {
        let thread = currentThreadID()
        condition.lock()
        defer { condition.unlock() }
        return isBusy && ownerThread == thread
    }

    /// Waits until the connection is free and takes it.
    private func checkOut(_ kind: String) throws -> Database {
        let thread = currentThreadID()
        condition.lock()
        defer { condition.unlock() }
        if isBusy && ownerThread == thread {
            throw DatabaseError.misuse(
                "\(kind) started inside an access to the same \(ownerName) would wait for itself; "
                    + "use the Database the enclosing access received", reason: .reentrantAccess)
        }
        while isBusy { condition.wait() }
        guard let database else {
            throw DatabaseError.misuse("the \(ownerName) is closed", reason: .accessAfterClose)
        }
        isBusy = true
        ownerThread = thread
        return database
    }

    /// Takes the connection when it is free, without waiting; `nil` when another access holds it.
    private func checkOutIfFree() throws -> Database? {
        let thread = currentThreadID()
        condition.lock()
        defer { condition.unlock() }
        if isBusy && ownerThread == thread {
            throw DatabaseError.misuse(
                "an access started inside an access to the same \(ownerName) would wait for itself; "
                    + "use the Database the enclosing access received", reason: .reentrantAccess)
        }
        if isBusy { return nil }
        guard let database else {
            throw DatabaseError.misuse("the \(ownerName) is closed", reason: .accessAfterClose)
        }
        isBusy = true
        ownerThread = thread
        return database
    }

    /// Gives the connection back and wakes one waiting access.
    private func checkIn() {
        condition.lock()
        isBusy = false
        ownerThread = 0
        if closesWhenAccessEnds {
            closesWhenAccessEnds = false
            closeConnection()
        } else {
            condition.signal()
        }
        condition.unlock()
    }

    /// Runs `body` with the connection, alone, in a transaction of `kind` when it is not `nil`; ends it as
    /// ``finishAccess(_:bodyFailed:)`` describes.
    func access<T>(
        transaction kind: Database.TransactionKind? = nil,
        cancellation: AccessCancellation? = nil,
        _ body: (Database) throws -> T
    ) throws -> T {
        let database = try checkOut("an access")
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
        // The error is built only when a cursor is left: building it costs more than the rest of the check.
        if database.openCursorCount > 0 {
            database.endOpenCursors(
                throwing: DatabaseError.misuse(
                    "the cursor was read after the access that opened it ended", reason: .cursorOutlivedAccess))
        }
        guard database.isInTransaction else { return }
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
        let thread = currentThreadID()
        condition.lock()
        defer { condition.unlock() }
        if isBusy && ownerThread == thread {
            closesWhenAccessEnds = database != nil
            return
        }
        while isBusy { condition.wait() }
        closeConnection()
    }

    /// Closes the connection and wakes every waiting access, which then throws. Called with `condition` held.
    private func closeConnection() {
        database?.close()
        database = nil
        condition.broadcast()
    }

    /// Opens the connection again with the same recipe; does nothing when it is open.
    func reopen() throws {
        let thread = currentThreadID()
        condition.lock()
        defer { condition.unlock() }
        if isBusy && ownerThread == thread {
            throw DatabaseError.misuse(
                "reopen() inside an access to the same \(ownerName) would wait for itself", reason: .reentrantAccess)
        }
        while isBusy { condition.wait() }
        guard database == nil else { return }
        database = try recipe.open()
        condition.broadcast()
    }

    /// Runs `body` with the connection, in a transaction of `kind` when it is not `nil` (taken here rather than in a
    /// closure around `body`, which would cost an allocation per access), and interrupts the running statement when
    /// the awaiting task is cancelled.
    ///
    /// When the connection is free and ``InPlaceAccessGate`` admits it, the access runs at once on the calling
    /// task's thread, like any synchronous code in an async function. Otherwise it moves to ``dispatchQueue``, and
    /// waits for the connection and runs there, so no thread of Swift's cooperative pool is held waiting.
    func asyncAccess<T: Sendable>(
        transaction kind: Database.TransactionKind? = nil,
        _ body: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        if Task.isCancelled { throw CancellationError() }
        let gate = InPlaceAccessGate.shared
        if gate.tryEnter() {
            defer { gate.leave() }
            if let database = try checkOutIfFree() {
                defer { checkIn() }
                let cancellation = inPlaceCancellation
                cancellation.begin(database.interruptHandle)
                return try await withTaskCancellationHandler {
                    // A task cancelled before the handler was installed ran `onCancel` when it was installed, before
                    // any statement ran, so the interruption did nothing: the access must not start.
                    if Task.isCancelled { throw CancellationError() }
                    return try Self.runStarted(body, on: database, transaction: kind, cancellation: cancellation)
                } onCancel: {
                    cancellation.cancel()
                }
            }
        }
        let cancellation = AccessCancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                dispatchQueue.async {
                    continuation.resume(
                        with: Result { try self.access(transaction: kind, cancellation: cancellation, body) })
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }
}
