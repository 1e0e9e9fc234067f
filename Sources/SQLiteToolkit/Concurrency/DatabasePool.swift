// DispatchQueue: Dispatch is its own module (Foundation only re-exports it).
import Dispatch

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A database in WAL mode with one writer connection and several reader connections: reads run in parallel with
/// each other and with the write in progress.
///
/// ```swift
/// let pool = try DatabasePool(path: "/path/to/app.sqlite")
/// try pool.write { db in
///     try db.execute("INSERT INTO player (name, score) VALUES (?, ?)", "Arthur", 100)
/// }
/// let count = try pool.read { db in try db.queryValue("SELECT count(*) FROM player", as: Int.self) }
/// ```
///
/// - Writes use the one writer connection, one after another, like a ``DatabaseQueue``.
/// - Each read runs in its own deferred transaction on a reader connection, so it sees one consistent snapshot:
///   the last commit before its first read, never a write in progress. Reader connections are opened when needed, up
///   to ``maximumReaderCount``; when all are busy, a read waits up to ``readerTimeout`` and then throws
///   ``DatabaseError/Reason/readerTimeout``. Readers are read-only (`PRAGMA query_only`): a write in a read throws
///   ``DatabaseError/Reason/writeInReadAccess``.
/// - In WAL mode a read never blocks a write and a write never blocks a read. A ``barrierWrite(_:)-74mhk`` waits for
///   the reads in progress, keeps new ones waiting, and runs alone: for schema changes readers must not see half-done.
/// - Checkpoints are automatic: a passive one when a commit leaves the WAL at 1000 pages or more, as SQLite does,
///   except that while reads keep the WAL from starting again at its beginning, the next attempt waits for 1000
///   more pages (SQLite's rule would then checkpoint, and sync, after every commit). ``checkpoint(_:)`` runs one in
///   any mode.
/// - ``close()`` waits for the accesses in progress; ``reopen()`` opens the pool again with the same path,
///   configuration and set-up hook.
/// - Every connection, writer and readers, gets the set-up hook before its first use, so an encrypted database
///   keys them all.
/// - An access started on the thread of an access in progress to the same pool (a read inside a write, say) throws
///   ``DatabaseError/Reason/reentrantAccess`` at once instead of deadlocking.
///
/// Related SQLite documentation: <https://sqlite.org/wal.html>
public final class DatabasePool: Sendable {
    // Sendable: every stored property is a constant of a Sendable type. The readers and who may use them are
    // ``ReaderCheckout``'s (its comment says why its fast path needs no lock); whether the pool is open is
    // ``ConnectionLifecycle``'s; the writer is a ``SerializedDatabase``, safe on its own.

    /// The pool's key in every thread's reader cache: unique in the process, never reused (unlike an
    /// `ObjectIdentifier`, which a new pool at the address of a freed one would share).
    let poolID: Int
    private static let nextPoolID = AtomicWord(0)
    /// Open, closing, closed or reopening: see ``ConnectionLifecycle``.
    private let lifecycle = ConnectionLifecycle()
    /// The reader connections.
    let readers: ReaderCheckout
    /// The live snapshots, which a close closes.
    let snapshots = SnapshotRegistry()
    /// The observed queries, as the writer sees them (Observation/PoolObservedQueries.swift).
    let observedQueries = PoolObservedQueries()
    /// Orders the pool's suspensions and resumes, one at a time (DatabasePool+Suspension.swift); no access or close
    /// takes it.
    let suspensionLock = Lock()
    /// The snapshots being made, which a suspension waits for (DatabasePool+Suspension.swift).
    let snapshotCreations = SnapshotCreations()
    /// Watches the WAL's size and truncates it when the pool is idle (DatabasePool+WALHygiene.swift).
    let walMonitor: WALMonitor

    let writer: SerializedDatabase
    /// How reader connections are opened: the writer's path, configuration and set-up hook, with the readers'
    /// own pragmas; changed only by a key change (the new key).
    private let readerRecipeState: LockedState<ConnectionRecipe>
    var readerRecipe: ConnectionRecipe { readerRecipeState.withLock { $0 } }

    /// The set-up hook the pool was given, alone: for a connection of the pool's that is neither a reader nor the
    /// writer (the one that lets a snapshot of an empty WAL be taken).
    let userSetUp: (@Sendable (Database) throws -> Void)?

    /// Changes how readers are opened from now on: after a key change, the new key.
    func updateReaderRecipe(_ change: (inout ConnectionRecipe) -> Void) {
        readerRecipeState.withLock { change(&$0) }
    }
    /// Where async reads wait for a reader when none is free, one after another, off Swift's cooperative pool.
    private let readerWaitQueue = DispatchQueue(label: "SQLiteToolkit.DatabasePool.readerWait")

    /// The most reader connections open at once.
    public var maximumReaderCount: Int { readers.maximumReaderCount }
    /// How long a read waits for a reader connection when all are busy, in seconds.
    public var readerTimeout: TimeInterval { readers.readerTimeout }

    /// The default number of readers: 5.
    public static let defaultMaximumReaderCount = 5
    /// The default wait for a reader: 10 seconds.
    public static let defaultReaderTimeout: TimeInterval = 10

    /// The most bytes of the database file a reader connection reads through memory-mapped I/O: 256 MiB
    /// (`PRAGMA mmap_size`, set before the set-up hook runs, so the hook can change it).
    ///
    /// In WAL mode a reader drops its page cache when its transaction starts after a commit, and reads its pages
    /// again; mapped, a page of the database file costs no `read` system call and no copy. SQLite uses no mapping
    /// for an encrypted database (its pages must be decrypted into the cache), so there the setting changes
    /// nothing. Pages whose newest version is in the WAL are read from the WAL file either way. A disk error while
    /// reading a mapped page arrives as a signal (`SIGBUS`) instead of `SQLITE_IOERR`: for a database on storage
    /// that can fail or vanish (a removable volume, a network share), run `PRAGMA mmap_size = 0` in the hook.
    ///
    /// Related SQLite documentation: <https://sqlite.org/mmap.html>
    public static let readerMemoryMapSize = 256 << 20

    /// Opens the writer connection now (a file that cannot be opened throws here), puts the database in WAL mode,
    /// and runs `setUp` on it; readers are opened when reads need them, each with `setUp` too.
    ///
    /// - Parameters:
    ///   - path: a database file (or a `file:` URI naming one). An in-memory database is refused with
    ///     ``DatabaseError/Reason/inMemoryPool``: WAL needs a file that several connections share.
    ///   - configuration: the options of every connection.
    ///   - maximumReaderCount: the most reader connections open at once (at least 1); default 5.
    ///   - readerTimeout: how long a read waits for a free reader before it throws, in seconds (0 or more);
    ///     default 10 seconds.
    ///   - walHygiene: the WAL's watermark, report, `journal_size_limit` and idle truncation (see ``WALHygiene``).
    ///   - setUp: runs on every new connection before its first use: key, pragmas, functions, collations.
    public init(
        path: String,
        configuration: Database.Configuration = Database.Configuration(),
        maximumReaderCount: Int = DatabasePool.defaultMaximumReaderCount,
        readerTimeout: TimeInterval = DatabasePool.defaultReaderTimeout,
        walHygiene: WALHygiene = WALHygiene(),
        setUp: (@Sendable (Database) throws -> Void)? = nil
    ) throws {
        guard maximumReaderCount >= 1 else {
            throw DatabaseError.misuse(
                "a database pool needs at least one reader (maximumReaderCount is \(maximumReaderCount))",
                reason: .invalidPoolSetting("maximumReaderCount"))
        }
        guard readerTimeout >= 0 else {
            throw DatabaseError.misuse(
                "a database pool's readerTimeout must be a number of seconds, 0 or more (it is \(readerTimeout))",
                reason: .invalidPoolSetting("readerTimeout"))
        }
        if DatabasePool.isInMemory(path, configuration: configuration) {
            throw DatabaseError.misuse(
                "a database pool needs a database file: WAL mode does not work in memory; use a DatabaseQueue",
                reason: .inMemoryPool)
        }
        self.userSetUp = setUp
        self.readerRecipeState = LockedState(
            ConnectionRecipe(
                path: path, configuration: configuration,
                setUp: { db in
                    // Before the hook, so the hook can change it. Reads no page, so it may come before a `PRAGMA key`.
                    try db.execute("PRAGMA mmap_size = \(DatabasePool.readerMemoryMapSize)")
                    try setUp?(db)
                    try db.execute("PRAGMA query_only = ON")
                }, recordsSetUpDefinitions: false))
        try walHygiene.validate()
        let monitor = WALMonitor(hygiene: walHygiene)
        self.walMonitor = monitor
        let checkpoints = WALCheckpointPolicy(monitor: monitor)
        let writerRecipe = ConnectionRecipe(
            path: path, configuration: configuration,
            setUp: { db in
                try monitor.prepare(db)
                try setUp?(db)
                // The journal mode is persistent in the file; asking again on an existing WAL database is cheap.
                let mode = try db.queryValue("PRAGMA journal_mode = WAL", as: String.self)
                guard mode?.lowercased() == "wal" else {
                    throw DatabaseError.misuse(
                        "the database could not be put in WAL mode (journal_mode is \(mode ?? "unknown"))",
                        reason: .walModeUnavailable)
                }
                try checkpoints.install(on: db)
                try monitor.install(on: db)
            })
        writer = try SerializedDatabase(
            recipe: writerRecipe, label: "SQLiteToolkit.DatabasePool.write", ownerName: "database pool")
        identity = writer.identity
        poolID = DatabasePool.nextPoolID.add(1)
        readers = ReaderCheckout(
            maximumReaderCount: maximumReaderCount, readerTimeout: readerTimeout, poolID: poolID, identity: identity)
        monitor.pool = self
    }

    private static func isInMemory(_ path: String, configuration: Database.Configuration) -> Bool {
        if path.isEmpty || path == ":memory:" || configuration.openFlags.contains(.memory) { return true }
        guard path.hasPrefix("file:") else { return false }
        return path.hasPrefix("file::memory:") || path.contains("mode=memory")
    }

    /// The path of the database.
    public var path: String { readerRecipe.path }

    /// The number of reader connections open now (busy or idle).
    public var readerCount: Int { readers.count }

    /// Closes the reader connections that no read is using, to give their memory back (for example on a memory
    /// warning); reads open new ones as they need them.
    public func closeIdleReaders() {
        for reader in readers.closeIdleReaders() { reader.database?.close() }
    }

    /// Whether the pool is open: not closed by ``close()``, and no close or reopen under way.
    public var isOpen: Bool { lifecycle.isOpen }

    /// Open, closing, closed or reopening, for tests.
    var lifecycleState: ConnectionLifecycle.State { lifecycle.current }

    /// The number of closes and reopens waiting now for another to end, for tests.
    var lifecycleWaitingCount: Int { lifecycle.waitingCount }

    /// Waits for the accesses in progress, then closes every connection, the snapshots' included (a live
    /// ``DatabaseSnapshot`` is closed: its reads throw); later accesses throw
    /// ``DatabaseError/Reason/accessAfterClose`` until ``reopen()``, and so do the reads waiting for a reader now.
    /// Closing twice does nothing.
    ///
    /// Closing cannot fail, as for ``Database/close()``: there is nothing for the caller to handle. Called inside
    /// an access to this pool (which waiting would deadlock), it closes the idle readers and the writer (after the
    /// write of another thread) at once, and the connections in use when their accesses end; ``isOpen`` is `false`
    /// at once. Any number of threads may close and reopen at once, inside accesses or not: a close waits for a
    /// close or reopen under way (one inside an access returns at once instead), and a reopen waits for a close
    /// under way, then opens.
    public func close() {
        let isInsideAccess = ThreadAccesses.contains(identity)
        lifecycle.close(insideAccess: isInsideAccess) {
            // New writes throw from now on, as reads do, while the close waits for the accesses in progress.
            writer.refuseNewAccesses()
            // Inside an access to this pool, that access's own reader cannot be given back before close() returns:
            // the readers still in use are retired when their reads end.
            for reader in readers.close(waitingForReads: !isInsideAccess) { reader.database?.close() }
            snapshots.closeAll()
            writer.close()
            guard isInsideAccess else { return .closed }
            // The accesses in progress, this one included, close their connections when they end: the pool is
            // closing until then (a close or reopen from another thread waits for that), and a thread of its own
            // marks it closed.
            DispatchQueue(label: "SQLiteToolkit.DatabasePool.close").async {
                self.readers.waitUntilRetired()
                self.writer.waitUntilClosed()
                self.lifecycle.finishClosing()
            }
            return .closing
        }
    }

    /// Opens the pool again after ``close()``, with the same path, configuration and set-up hook: the writer at
    /// once (so a file that cannot be opened any more throws here), the readers when reads need them. The pattern
    /// of an app that closes its database when it goes to the background and carries on when it comes back. Does
    /// nothing when the pool is open; waits for a close under way to end, then opens.
    ///
    /// - Throws: the error of opening the writer or of its set-up hook (the pool then stays closed);
    ///   ``DatabaseError/Reason/reentrantAccess`` when called inside an access to this pool.
    public func reopen() throws {
        try writer.checkNotReentrant("reopen()")
        try lifecycle.reopen {
            try writer.reopen()
            snapshots.reopen()
            readers.reopen()
        }
    }

    // MARK: - Entering and leaving

    /// The pool's identity in ``ThreadAccesses``: its writer's, so a read inside a write, a write inside a read and
    /// a read inside a read are all re-entries. Stored, so that a read does not touch the writer object (whose
    /// reference count every thread would then write).
    let identity: ObjectIdentifier

    // MARK: - Reads

    /// An idle reader, or a new one, without waiting (see ``ReaderCheckout/takeIdleWithoutWaiting()``).
    func takeIdleReaderWithoutWaiting() -> PooledReader? {
        readers.takeIdleWithoutWaiting()
    }

    /// Gives a reader back after its read.
    @inline(__always)
    func checkIn(_ reader: PooledReader) {
        reader.readSince.store(0)
        readers.giveBack(reader)
    }

    /// The connection of a reader the caller took, opened (with the set-up hook) when the reader is new.
    func connection(of reader: PooledReader) throws -> Database {
        if let open = reader.database { return open }
        let database = try readerRecipe.open()
        reader.database = database
        reader.setInterruptHandle(database.interruptHandle)
        return database
    }

    /// Runs `body` in a deferred transaction on a reader the caller took, opening its connection first when it is
    /// new, then ends the access and gives the reader back; the calling thread counts as inside an access to the
    /// pool meanwhile.
    private func runRead<T>(
        _ body: (Database) throws -> T,
        on reader: PooledReader,
        cancellation: AccessCancellation?
    ) throws -> T {
        defer { checkIn(reader) }
        return try runReadKeepingReader(body, on: reader, cancellation: cancellation)
    }

    /// ``runRead(_:on:cancellation:)`` without giving the reader back: the caller does.
    @inline(__always)
    private func runReadKeepingReader<T>(
        _ body: (Database) throws -> T,
        on reader: PooledReader,
        cancellation: AccessCancellation?
    ) throws -> T {
        guard let list = ThreadAccesses.enter(identity) else {
            throw ThreadAccesses.reentryError("a read started", ownerName: writer.ownerName)
        }
        defer { ThreadAccesses.leave(identity, from: list) }
        // Inside the access: a new reader's set-up hook that uses the pool is a re-entry, not another thread.
        let database = try connection(of: reader)
        reader.markReadStarted(observation: false)
        return try SerializedDatabase.run(
            { reader in
                do {
                    return try reader.transaction(.deferred, body)
                } catch let error as DatabaseError where error.code == .readonly {
                    var error = error
                    error.reason = .writeInReadAccess
                    throw error
                } catch let error as DatabaseError where error.code == .interrupt && readers.isSuspended {
                    var error = error
                    error.reason = .suspended
                    throw error
                }
            }, on: database, cancellation: cancellation)
    }

    /// Runs `body` on a reader connection in a deferred transaction: it sees the database as of the last commit
    /// before its first read, whatever the writer does meanwhile.
    ///
    /// - Throws: the error of `body`; ``DatabaseError/Reason/writeInReadAccess`` when it writes;
    ///   ``DatabaseError/Reason/readerTimeout`` (with `SQLITE_BUSY`) when no reader was free in time;
    ///   ``DatabaseError/Reason/reentrantAccess`` inside an access to this pool;
    ///   ``DatabaseError/Reason/accessAfterClose`` after ``close()``.
    @discardableResult
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        guard let reader = try readers.take(waitingUntil: .readerTimeoutFromNow, cancellation: nil) else {
            // Unreachable: with a deadline, taking a reader returns one or throws.
            throw DatabaseError.misuse("no reader was available", reason: .readerTimeout)
        }
        return try runRead(body, on: reader, cancellation: nil)
    }

    /// ``read(_:)`` for async code: waits for a reader without blocking a thread of Swift's cooperative pool;
    /// cancelling the task interrupts the running statement.
    ///
    /// When a reader is free, and fewer async accesses than the cores minus one run that way in the process, the
    /// read runs at once on the calling task's thread, like any synchronous code in an async function. Otherwise it
    /// runs on the reader's own serial dispatch queue, after waiting for a reader (when none is free) on another
    /// dispatch queue of the pool. See <doc:Concurrency> for why.
    @discardableResult
    public func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        try await AsyncAccess.perform(on: self, transaction: .deferred, body)
    }

    /// Starts an async read that does not run in place, and calls `completion` with its outcome. A reader free now
    /// is taken at once; otherwise the read waits for one on ``readerWaitQueue`` (up to ``readerTimeout`` from now).
    /// Either way the read then runs on the reader's serial queue, which has no other work, since only the read
    /// holding the reader uses it.
    ///
    /// Why serial queues, and not one concurrent queue for every read: on Linux the work of concurrent dispatch
    /// queues runs on the threads that also run Swift's tasks, one per core, so two long reads held every thread
    /// and no task could run, the ones that would cancel them included, until both ended. Each serial queue gets a
    /// thread of its own.
    func startElsewhere<T: Sendable>(
        transaction kind: Database.TransactionKind?,
        _ body: EscapedBody<T>,
        cancellation: AccessCancellation,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        let run: @Sendable (PooledReader) -> Void = { reader in
            reader.queue.async {
                completion(Result { try self.runRead(body.run, on: reader, cancellation: cancellation) })
            }
        }
        do {
            if let reader = try readers.take(waitingUntil: .noWait, cancellation: nil) {
                run(reader)
                return
            }
        } catch {
            completion(.failure(error))
            return
        }
        let deadline = MonotonicDeadline(secondsFromNow: readerTimeout)
        readerWaitQueue.async {
            do {
                // A read cancelled while it waited behind others on this queue does not wait at all.
                if cancellation.isCancelled { throw CancellationError() }
                guard let reader = try self.readers.take(waitingUntil: .at(deadline), cancellation: cancellation)
                else {
                    // Unreachable: with a deadline, taking a reader returns one or throws.
                    throw DatabaseError.misuse("no reader was available", reason: .readerTimeout)
                }
                run(reader)
            } catch {
                completion(.failure(error))
            }
        }
    }

    // MARK: - Writes

    /// Runs `body` with the writer, recording the calling thread for the re-entry check. Only a barrier write takes
    /// the pool's lock (to wait for the reads); a plain write touches nothing the readers use.
    private func withWriter<T>(
        barrier: Bool,
        cancellation: AccessCancellation?,
        _ body: (Database) throws -> T
    ) throws -> T {
        if barrier {
            // Before waiting for the reads: a barrier write inside a read would wait for itself.
            try writer.checkNotReentrant("a barrier write started")
            try readers.beginBarrier(cancellation: cancellation)
        }
        defer { if barrier { readers.endBarrier() } }
        // A close that began refuses the write at once: its state is set before the close refuses new accesses on
        // the writer, and a write that came in between would run on a pool that reports itself closed.
        if lifecycle.current == .closing { throw writer.closedError() }
        // The writer's access records the thread under the pool's identity, and throws on a re-entry. A closed pool
        // has a closed writer, which throws `.accessAfterClose` naming the pool.
        return try writer.access(cancellation: cancellation, body)
    }

    /// An async write: always on the writer's dispatch queue, never in place on the calling task's thread as a read
    /// may run. Writes are where long work goes (a migration, an import), and a commit waits for the disk.
    private func asyncWrite<T: Sendable>(
        barrier: Bool,
        _ body: @Sendable (Database) throws -> T
    ) async throws -> T {
        try await AsyncAccess.performElsewhere(body) { escaped, cancellation, completion in
            writer.dispatchQueue.async {
                completion(Result { try self.withWriter(barrier: barrier, cancellation: cancellation, escaped.run) })
            }
        }
    }

    /// Runs `body` with the writer in an immediate transaction: commits when it returns, rolls back and rethrows
    /// when it throws. Reads in progress keep their snapshot and are not blocked.
    @discardableResult
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try withWriter(barrier: false, cancellation: nil) { db in try db.transaction(.immediate, body) }
    }

    /// Runs `body` with the writer outside any transaction the pool would open (for `VACUUM`, pragmas, or your
    /// own transactions).
    @discardableResult
    public func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try withWriter(barrier: false, cancellation: nil, body)
    }

    /// Waits for the reads in progress, keeps new reads waiting, and runs `body` with the writer outside any
    /// transaction the pool would open: for changes that readers must not see half-done.
    @discardableResult
    public func barrierWrite<T>(_ body: (Database) throws -> T) throws -> T {
        try withWriter(barrier: true, cancellation: nil, body)
    }

    /// ``write(_:)`` for async code.
    @discardableResult
    public func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        try await asyncWrite(barrier: false) { db in try db.transaction(.immediate, body) }
    }

    /// ``writeWithoutTransaction(_:)`` for async code.
    @discardableResult
    public func writeWithoutTransaction<T: Sendable>(
        _ body: @Sendable (Database) throws -> T
    ) async throws -> T {
        try await asyncWrite(barrier: false, body)
    }

    /// ``barrierWrite(_:)`` for async code.
    @discardableResult
    public func barrierWrite<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        try await asyncWrite(barrier: true, body)
    }
}

extension DatabasePool: AsyncAccessTarget {
    /// Takes a free reader, if any, without waiting.
    @inline(__always)
    func takeInPlace() throws -> PooledReader? {
        try readers.take(waitingUntil: .noWait, cancellation: nil)
    }

    /// The reader's own in-place record: only the read that holds the reader uses it.
    @inline(__always)
    func inPlaceCancellation(for reader: PooledReader) -> AccessCancellation {
        reader.inPlaceCancellation.reset()
        return reader.inPlaceCancellation
    }

    /// Runs a read on `reader`, always in a deferred transaction.
    @inline(__always)
    func runInPlace<T>(
        _ reader: PooledReader,
        transaction kind: Database.TransactionKind?,
        cancellation: AccessCancellation,
        _ body: (Database) throws -> T
    ) throws -> T {
        try runReadKeepingReader(body, on: reader, cancellation: cancellation)
    }

    /// Gives the reader back.
    @inline(__always)
    func giveBackInPlace(_ reader: PooledReader) {
        checkIn(reader)
    }
}
