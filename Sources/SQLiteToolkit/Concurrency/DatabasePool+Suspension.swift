extension DatabasePool {
    /// Lets go of every lock the pool's connections hold on the database, `-wal` and `-shm` files, until
    /// ``resume()-1ugez``: what an iOS app must do before it is suspended with its database in a shared container, or the
    /// system kills it (exception `0xdead10cc`). See <doc:SharingADatabase>.
    ///
    /// It refuses new reads and writes (or keeps them waiting, with `accesses: .wait`), interrupts the accesses in
    /// progress (`sqlite3_interrupt`, again until they end: their statements fail, their transactions roll back, and
    /// they throw ``DatabaseError/Reason/suspended``), waits for them to end, closes the reader connections and the
    /// live ``DatabaseSnapshot``s (whose reads then throw ``DatabaseError/Reason/accessAfterClose``: a WAL snapshot
    /// cannot outlive the connections that pin it), resets the writer's statements and closes its SQLite
    /// connection. When it returns, this process holds no lock on the three files through this pool. Making a
    /// snapshot during the suspension throws ``DatabaseError/Reason/suspended``.
    ///
    /// ``resume()-1ugez`` opens the writer again with its key, set-up hook, pragmas and limits (readers open as reads need
    /// them), and the observed queries carry on: their streams survive the suspension and continue after it, except
    /// one whose run the suspension interrupted, which ends with that run's error (`SQLITE_INTERRUPT`). An observed
    /// query started during the suspension reads its first value in a write access: it waits for the resume, or its
    /// stream ends with ``DatabaseError/Reason/suspended``, as `accesses` says.
    /// Suspending a suspended pool waits for the suspension under way to end; ``close()`` during a suspension ends
    /// it (the pool is then closed, and ``reopen()`` opens it), and suspending a closed pool does nothing.
    ///
    /// - Parameter accesses: what an access started during the suspension does: ``SuspendedAccesses/fail`` (the
    ///   default) throws ``DatabaseError/Reason/suspended``; ``SuspendedAccesses/wait`` waits for the resume.
    /// - Throws: ``DatabaseError/Reason/reentrantAccess`` inside an access to this pool;
    ///   ``DatabaseError/Reason/suspensionLosesConnectionState`` when the writer has state a reopen would lose
    ///   (nothing is then suspended or closed, though the write in progress was interrupted).
    public func suspend(accesses: SuspendedAccesses = .fail) throws {
        try writer.checkNotReentrant("suspend()")
        try suspensionLock.withLock {
            // The writer first: when it refuses (state a reopen would lose), nothing else has changed.
            try writer.suspend(accesses: accesses)
            // The pool reports itself suspended from now on: no snapshot starts, and those under way end first.
            snapshotCreations.waitUntilNone()
            for reader in readers.suspend(accesses: accesses) { reader.database?.close() }
            snapshots.closeLive()
            writer.recordFilesAtSuspension()
        }
    }

    /// Ends a suspension: opens the writer again as it was and lets accesses run (the waiting ones first). Does
    /// nothing when the pool is not suspended.
    ///
    /// - Throws: the error of reopening the writer or of its set-up hook: the pool then stays suspended, and a later
    ///   `resume()` tries again; ``DatabaseError/Reason/reentrantAccess`` inside an access to this pool.
    public func resume() throws {
        try writer.checkNotReentrant("resume()")
        try suspensionLock.withLock {
            try writer.resume(filesChanged: writer.filesChangedSinceSuspension())
            readers.resume()
        }
    }

    /// Whether the pool is suspended: from the start of ``suspend(accesses:)-2c3aw`` until ``resume()-1ugez`` or ``close()``.
    public var isSuspended: Bool { readers.isSuspended || writer.isSuspended }

    /// The blocking `suspend(accesses:)` for async code (a scene phase change, say): it waits for the accesses in
    /// progress on a thread of its own, never on one of Swift's cooperative pool.
    public func suspend(accesses: SuspendedAccesses = .fail) async throws {
        try await SuspensionRunner.run { try self.suspend(accesses: accesses) }
    }

    /// The blocking `resume()` for async code: it reopens the writer (and runs the set-up hook) on a thread of its
    /// own.
    public func resume() async throws {
        try await SuspensionRunner.run { try self.resume() }
    }
}

/// The snapshots of a pool being made, each opening a connection of its own: a suspension waits until none is.
final class SnapshotCreations: @unchecked Sendable {
    // @unchecked Sendable: `count` is read and written only while holding `lock`.
    private let lock = Lock()
    private var count = 0

    /// Counts a snapshot being made, unless `isRefused()` (asked under the lock, so a suspension that began
    /// before is seen, and one that begins after waits for this snapshot).
    func begin(refusedWhen isRefused: () -> Bool) throws {
        try lock.withLock {
            if isRefused() { throw ReaderCheckout.suspendedError }
            count += 1
        }
    }

    /// The snapshot is made (and registered, so a suspension closes it) or failed.
    func end() {
        lock.withLock {
            count -= 1
            if count == 0 { lock.broadcast() }
        }
    }

    /// Waits until no snapshot is being made.
    func waitUntilNone() {
        lock.lock()
        while count > 0 { lock.wait() }
        lock.unlock()
    }
}
