// DispatchQueue: Dispatch is its own module (Foundation only re-exports it).
import Dispatch

extension DatabaseQueue {
    /// Lets go of every lock the queue's connection holds on the database, `-wal` and `-shm` files, until
    /// ``resume()-72qlc``: what an iOS app must do before it is suspended with its database in a shared container, or
    /// the system kills it (exception `0xdead10cc`). See <doc:SharingADatabase>.
    ///
    /// It refuses new accesses (or keeps them waiting, with `accesses: .wait`), interrupts the access in progress
    /// (`sqlite3_interrupt`, again until it ends: its statement fails, its transaction is rolled back, and it throws
    /// ``DatabaseError/Reason/suspended``), waits for it to end, resets every statement, and closes the SQLite
    /// connection of a database file: in WAL mode an idle open connection still holds a shared lock on the `-shm`
    /// file, so only a close releases it. When it returns, this process holds no lock
    /// on the three files through this queue. ``resume()-72qlc`` opens the connection again with its key, set-up hook,
    /// pragmas and limits, and the observers carry on: an observed query's stream survives the suspension and
    /// continues after the resume. An in-memory database holds no file lock and stays open (closing would lose it).
    ///
    /// Suspending a suspended queue waits for the suspension under way (from another thread) to end and changes
    /// how accesses are treated to `accesses`; suspending during a ``resume()-72qlc`` waits for it, then suspends
    /// again. ``close()`` during a suspension ends it (the queue is then closed, and ``reopen()`` opens it), and
    /// suspending a closed queue does nothing.
    ///
    /// - Parameter accesses: what an access started during the suspension does: ``SuspendedAccesses/fail`` (the
    ///   default) throws ``DatabaseError/Reason/suspended``; ``SuspendedAccesses/wait`` waits for the resume.
    /// - Throws: ``DatabaseError/Reason/reentrantAccess`` inside an access to this queue;
    ///   ``DatabaseError/Reason/suspensionLosesConnectionState`` when the connection has state a reopen would lose
    ///   (attached databases, temporary tables, sessions, a trace or progress handler, functions or collations
    ///   given outside the set-up hook): it is then not suspended, though the access in progress was interrupted.
    public func suspend(accesses: SuspendedAccesses = .fail) throws {
        try serialized.suspend(accesses: accesses)
        serialized.recordFilesAtSuspension()
    }

    /// Ends a suspension: opens the connection again as it was and lets accesses run (the waiting ones first).
    /// Does nothing when the queue is not suspended.
    ///
    /// - Throws: the error of reopening the connection or of its set-up hook: the queue then stays suspended, and a
    ///   later `resume()` tries again; ``DatabaseError/Reason/reentrantAccess`` inside an access to this queue.
    public func resume() throws {
        try serialized.resume(filesChanged: serialized.filesChangedSinceSuspension())
    }

    /// Whether the queue is suspended: from the start of ``suspend(accesses:)-lgue`` until ``resume()-72qlc`` or ``close()``.
    public var isSuspended: Bool { serialized.isSuspended }

    /// The blocking `suspend(accesses:)` for async code (a scene phase change, say): it waits for the access in
    /// progress on a thread of its own, never on one of Swift's cooperative pool.
    public func suspend(accesses: SuspendedAccesses = .fail) async throws {
        try await SuspensionRunner.run { try self.suspend(accesses: accesses) }
    }

    /// The blocking `resume()` for async code: it reopens the connection (and runs the set-up hook) on a thread of
    /// its own.
    public func resume() async throws {
        try await SuspensionRunner.run { try self.resume() }
    }
}

/// Runs a suspension or a resume for async code on a dispatch queue of its own: a serial queue gets a thread of its
/// own, where waiting for the accesses in progress holds no thread of Swift's cooperative pool (which on Linux also
/// runs the work of concurrent dispatch queues), and the queue or pool's own dispatch queue would run it only after
/// the async access it must interrupt.
enum SuspensionRunner {
    static func run(_ body: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue(label: "SQLiteToolkit.suspension").async { continuation.resume(with: Result { try body() }) }
        }
    }
}
