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
    // @unchecked Sendable: `database`, `isBusy`, `acceptsAccesses`, `closesWhenAccessEnds` and `suspension` are read
    // and written only while holding `lock`. The connection itself is used only by the access that set `isBusy`.
    // The first three are internal for the suspension (SerializedDatabase+Suspension.swift).
    let lock = Lock()
    var database: Database?
    var isBusy = false
    /// Set from the start of a ``suspend(accesses:)`` until ``resume()`` or a close: accesses throw
    /// ``DatabaseError/Reason/suspended`` or wait, as it says.
    var suspension: Suspension?
    /// `false` from the start of a close until a reopen has opened the connection again: accesses then throw,
    /// instead of taking the connection before the close that waits for it.
    var acceptsAccesses = true
    /// Set by ``close()`` called inside the access in progress: the access closes the connection when it ends.
    private var closesWhenAccessEnds = false
    /// The accesses (and reopens) waiting in `lock`'s condition variable, for tests that need to know one waits.
    var waitingCount = 0
    /// Open, closing, closed or reopening: see ``ConnectionLifecycle``.
    private let lifecycle = ConnectionLifecycle()
    /// How the connection is opened; changed only by a key change (the new key), under `lock`.
    private var currentRecipe: ConnectionRecipe
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
    /// The watch for other connections' commits, started while the connection has observers
    /// (Observation/ExternalChangeWatch.swift).
    let externalChanges = ExternalChangeWatch()
    /// The database's files as a suspension left them, once every connection closed: a resume that finds them
    /// changed tells the observers of a change made outside (SerializedDatabase+Suspension.swift).
    let filesAtSuspension = LockedState<FileSignature?>(nil)
    /// Refuses the commits of an access that a suspension interrupts (SerializedDatabase+Suspension.swift); every
    /// connection this object opens consults it.
    let commitVeto: CommitVeto

    /// Opens the connection at once, so a path that cannot be opened throws here. `ownerName` is what errors call
    /// the queue or pool that owns the connection.
    init(recipe: ConnectionRecipe, label: String, ownerName: String = "database queue") throws {
        self.currentRecipe = recipe
        self.ownerName = ownerName
        let commitVeto = CommitVeto(ownerName: ownerName)
        self.commitVeto = commitVeto
        let database = try recipe.open()
        database.commitVeto = commitVeto
        self.database = database
        self.dispatchQueue = DispatchQueue(label: label)
        externalChanges.attach(to: database, owner: self)
    }

    deinit {
        database?.close()
    }

    /// How the connection is opened, at ``reopen()`` too: the path, the configuration (with the key a key change
    /// set last) and the set-up hook.
    var recipe: ConnectionRecipe { lock.withLock { currentRecipe } }

    /// Changes how the connection is opened from now on: after a key change, the new key.
    func updateRecipe(_ change: (inout ConnectionRecipe) -> Void) {
        lock.withLock { change(&currentRecipe) }
    }

    /// The identity of the accesses to this connection in ``ThreadAccesses``.
    var identity: ObjectIdentifier { ObjectIdentifier(self) }

    /// Whether the connection is open: not closed, and no close or reopen under way.
    var isOpen: Bool { lifecycle.isOpen }

    /// Open, closing, closed or reopening, for tests.
    var lifecycleState: ConnectionLifecycle.State { lifecycle.current }

    /// The number of closes and reopens waiting now for another to end, for tests.
    var lifecycleWaitingCount: Int { lifecycle.waitingCount }

    /// The number of accesses waiting for the connection now.
    var waitingAccessCount: Int { lock.withLock { waitingCount } }

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

    /// The error of an access to the closed (or closing) connection, naming its owner.
    func closedError() -> DatabaseError {
        DatabaseError.misuse("the \(ownerName) is closed", reason: .accessAfterClose)
    }

    /// Waits until the connection is free and takes it. A cancellation of `cancellation`'s task ends the wait with
    /// `CancellationError`; a close ends it with ``DatabaseError/Reason/accessAfterClose``.
    private func checkOut(cancellation: AccessCancellation?) throws -> Database {
        lock.lock()
        defer { lock.unlock() }
        if (isBusy || suspension != nil) && acceptsAccesses {
            waitingCount += 1
            cancellation?.waitingBegins(on: lock)
            defer {
                cancellation?.waitingEnds()
                waitingCount -= 1
            }
            while (isBusy || suspension != nil) && acceptsAccesses {
                if let suspension, suspension.accesses == .fail { throw suspendedError() }
                if let cancellation, cancellation.isCancelled { throw CancellationError() }
                lock.wait()
            }
        }
        guard acceptsAccesses, let database else { throw closedError() }
        isBusy = true
        return database
    }

    /// Takes the connection when it is free, without waiting; `nil` when another access holds it.
    private func checkOutIfFree(unlessAccessesWait: Bool = false) throws -> Database? {
        lock.lock()
        defer { lock.unlock() }
        guard acceptsAccesses, let database else { throw closedError() }
        if let suspension {
            if suspension.accesses == .fail { throw suspendedError() }
            return nil
        }
        if isBusy || (unlessAccessesWait && waitingCount > 0) { return nil }
        isBusy = true
        return database
    }

    /// Gives the connection back and wakes every waiting access (and a reopen waiting for a deferred close): a
    /// broadcast, not a signal, since the waiters are of several kinds and a wake-up taken by one that then does
    /// not take the connection would leave the others asleep. A connection closed here is closed after the lock is
    /// given back: closing may run user code (a trace of the close), which must never run under the lock.
    func checkIn() {
        lock.lock()
        isBusy = false
        var closing: Database?
        if closesWhenAccessEnds {
            closesWhenAccessEnds = false
            closing = database
            database = nil
        }
        if waitingCount > 0 { lock.broadcast() }
        lock.unlock()
        if let closing {
            closing.close()
            lifecycle.finishClosing()
        }
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
        let database = try checkOut(cancellation: cancellation)
        defer { checkIn() }
        do {
            return try Self.run(body, on: database, transaction: kind, cancellation: cancellation)
        } catch let error as DatabaseError where error.code == .interrupt {
            throw markedIfSuspended(error)
        }
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
            // A statement the body stepped and kept without resetting it would keep its read transaction open after
            // the access: the connection's next access would read that old state, and the WAL would stay pinned.
            if database.resetStatementsKeptStepping(), database.observation.isActive {
                database.observation.accessEnded()
            }
            return
        }
        try? database.rollback()
        if !bodyFailed {
            throw DatabaseError.misuse(
                "the access returned with a transaction open; it was rolled back", reason: .transactionLeftOpen)
        }
    }

    /// Waits for the access in progress, then closes the connection. Later accesses throw until ``reopen()``, and
    /// so do the accesses waiting for the connection now. Called inside the access in progress, which waiting would
    /// deadlock, the access closes the connection when it ends. Closing a closed connection does nothing; see
    /// ``ConnectionLifecycle`` for a close or reopen beside another.
    func close() {
        let isInsideAccess = ThreadAccesses.contains(identity)
        lifecycle.close(insideAccess: isInsideAccess) {
            lock.lock()
            acceptsAccesses = false
            // A closed queue is not suspended: its reopen() opens it for accesses.
            suspension = nil
            lock.broadcast()
            if isInsideAccess && isBusy && database != nil {
                // The access in progress closes the connection when it ends (checkIn()), and ends the close.
                closesWhenAccessEnds = true
                lock.unlock()
                return .closing
            }
            if isBusy {
                waitingCount += 1
                while isBusy { lock.wait() }
                waitingCount -= 1
            }
            let closing = database
            database = nil
            lock.unlock()
            // Outside the lock, as in checkIn().
            closing?.close()
            return .closed
        }
    }

    /// Refuses new accesses (they throw ``DatabaseError/Reason/accessAfterClose``) until ``reopen()``, while the
    /// one in progress, if any, runs on: the start of a pool's close, which waits for its reads first.
    func refuseNewAccesses() {
        lock.withLock {
            acceptsAccesses = false
            lock.broadcast()
        }
    }

    /// Waits until a close under way (one left to the access in progress) has closed the connection.
    func waitUntilClosed() {
        lifecycle.waitWhileClosing()
    }

    /// Opens the connection again with the same recipe; does nothing when it is open. The recipe (and its set-up
    /// hook, user code) runs without any lock held.
    func reopen() throws {
        try checkNotReentrant("reopen()")
        try lifecycle.reopen {
            // A close inside an access left the connection to that access to close when it ends.
            lock.withLock {
                if database != nil {
                    waitingCount += 1
                    while database != nil { lock.wait() }
                    waitingCount -= 1
                }
            }
            // The set-up hook runs as inside an access: a close there does not wait for this reopen, and an access
            // or a reopen there throws the re-entry error.
            guard let list = ThreadAccesses.enter(identity) else {
                throw ThreadAccesses.reentryError("reopen()", ownerName: ownerName)
            }
            let reopened: Database
            do {
                reopened = try recipe.open()
            } catch {
                ThreadAccesses.leave(identity, from: list)
                throw error
            }
            ThreadAccesses.leave(identity, from: list)
            externalChanges.attach(to: reopened, owner: self)
            reopened.commitVeto = commitVeto
            lock.withLock {
                database = reopened
                acceptsAccesses = true
                lock.broadcast()
            }
        }
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

    /// ``takeInPlace()`` for the pool's housekeeping (the idle WAL truncation): takes the connection only when it is
    /// free and no access waits for it, so housekeeping never takes it from an access that a commit just woke.
    func takeForHousekeeping() throws -> (Database, ThreadAccessRecord)? {
        let list = try enter()
        do {
            if let database = try checkOutIfFree(unlessAccessesWait: true) { return (database, list) }
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
        do {
            return try Self.run(body, on: taken.0, transaction: kind, cancellation: cancellation)
        } catch let error as DatabaseError where error.code == .interrupt {
            throw markedIfSuspended(error)
        }
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
