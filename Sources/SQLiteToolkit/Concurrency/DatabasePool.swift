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
public final class DatabasePool: @unchecked Sendable {
    // @unchecked Sendable: the mutable state (`readers`, `waitingBarrierCount`, `isClosed`) is read and written only
    // while holding `condition` (a ``Lock``, used with its condition variable); `entryClosed` and `waiterCount` are
    // atomic words, written only while holding `condition`; a reader connection is used only by the read whose
    // exchange on the reader's state word took it (see ``PooledReader``); the writer is a SerializedDatabase, safe
    // on its own.
    //
    // The read path. A read first tries the reader its thread used last for this pool (kept in the thread's
    // ``ThreadAccessList``, by ``poolID``): one compare-and-exchange of that reader's state, idle to in use, then one
    // load of `entryClosed`. Giving the reader back is one store of idle, then one load of `waiterCount`. Neither
    // touches a word that another reader writes, nor the lock, so reads on different threads never wait for each
    // other. Only when that fails (no reader cached, the cached one taken by another thread or retired, a barrier
    // write or a close under way) does the read take the lock and look through `readers`, open a new reader, or wait.
    //
    // Why that is safe: a barrier write and `close()` store 1 in `entryClosed`, add 1 to `waiterCount`, then, under
    // the lock, wait until no reader is in use. Every operation on the words is sequentially consistent, so of a
    // read's exchange then load and the barrier's store then loads of the states, one sees the other: either the
    // read sees `entryClosed` and backs out (gives the reader back and takes the slow path, which waits for the
    // barrier), or the barrier sees the reader in use and waits for it. A read that gives a reader back while
    // `waiterCount` is above 0 takes the lock to wake the waiting thread; the waiting thread checked the states
    // holding the lock, and holds it until it waits, so no wake-up is lost. Reads waiting for a reader (the reader
    // limit) count themselves in `waiterCount` the same way.
    private let condition = Lock()
    /// Every open reader, whatever its state, in use or idle (retired ones are removed).
    private var readers: [PooledReader] = []
    private var waitingBarrierCount = 0
    private var isClosed = false
    // The two words are allocated at the end of `init`, after everything that can throw: a class whose `init`
    // throws runs no `deinit`, which frees them.
    /// 1 while a barrier write waits or runs, or the pool is closed: reads then take the slow path.
    private let entryClosed: AtomicWord
    /// The barrier writes, closes and reads waiting in the lock's condition variable for a reader's state to change.
    private let waiterCount: AtomicWord
    /// The pool's key in every thread's reader cache: unique in the process, never reused (unlike an
    /// `ObjectIdentifier`, which a new pool at the address of a freed one would share).
    let poolID = DatabasePool.nextPoolID.add(1)
    private static let nextPoolID = AtomicWord(0)
    /// Held by ``close()`` and ``reopen()`` for their whole run, so they never interleave.
    private let lifecycle = Lock()

    let writer: SerializedDatabase
    let readerRecipe: ConnectionRecipe
    /// Where async reads wait for a reader when none is free, one after another, off Swift's cooperative pool.
    private let readerWaitQueue = DispatchQueue(label: "SQLiteToolkit.DatabasePool.readerWait")

    /// The most reader connections open at once.
    public let maximumReaderCount: Int
    /// How long a read waits for a reader connection when all are busy, in seconds.
    public let readerTimeout: TimeInterval

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
    ///   - readerTimeout: how long a read waits for a free reader before it throws; default 10 seconds.
    ///   - setUp: runs on every new connection before its first use: key, pragmas, functions, collations.
    public init(
        path: String,
        configuration: Database.Configuration = Database.Configuration(),
        maximumReaderCount: Int = DatabasePool.defaultMaximumReaderCount,
        readerTimeout: TimeInterval = DatabasePool.defaultReaderTimeout,
        setUp: (@Sendable (Database) throws -> Void)? = nil
    ) throws {
        if DatabasePool.isInMemory(path, configuration: configuration) {
            throw DatabaseError.misuse(
                "a database pool needs a database file: WAL mode does not work in memory; use a DatabaseQueue",
                reason: .inMemoryPool)
        }
        self.maximumReaderCount = max(1, maximumReaderCount)
        self.readerTimeout = readerTimeout
        self.readerRecipe = ConnectionRecipe(
            path: path, configuration: configuration,
            setUp: { db in
                // Before the hook, so the hook can change it. Reads no page, so it may come before a `PRAGMA key`.
                try db.execute("PRAGMA mmap_size = \(DatabasePool.readerMemoryMapSize)")
                try setUp?(db)
                try db.execute("PRAGMA query_only = ON")
            })
        let checkpoints = WALCheckpointPolicy()
        let writerRecipe = ConnectionRecipe(
            path: path, configuration: configuration,
            setUp: { db in
                try setUp?(db)
                // The journal mode is persistent in the file; asking again on an existing WAL database is cheap.
                let mode = try db.queryValue("PRAGMA journal_mode = WAL", as: String.self)
                guard mode?.lowercased() == "wal" else {
                    throw DatabaseError.misuse(
                        "the database could not be put in WAL mode (journal_mode is \(mode ?? "unknown"))",
                        reason: .walModeUnavailable)
                }
                try checkpoints.install(on: db)
            })
        writer = try SerializedDatabase(
            recipe: writerRecipe, label: "SQLiteToolkit.DatabasePool.write", ownerName: "database pool")
        identity = writer.identity
        entryClosed = AtomicWord(0)
        waiterCount = AtomicWord(0)
    }

    deinit {
        // A thread's reader cache may keep a reader object after the pool is gone: its connection must not stay open.
        for reader in readers where reader.tryRetire() { reader.database?.close() }
        entryClosed.deallocate()
        waiterCount.deallocate()
    }

    private static func isInMemory(_ path: String, configuration: Database.Configuration) -> Bool {
        if path.isEmpty || path == ":memory:" || configuration.openFlags.contains(.memory) { return true }
        guard path.hasPrefix("file:") else { return false }
        return path.hasPrefix("file::memory:") || path.contains("mode=memory")
    }

    /// The path of the database.
    public var path: String { readerRecipe.path }

    /// The number of reader connections open now (busy or idle).
    public var readerCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return readers.count
    }

    /// Closes the reader connections that no read is using, to give their memory back (for example on a memory
    /// warning); reads open new ones as they need them.
    public func closeIdleReaders() {
        condition.lock()
        let retired = retireIdleReaders()
        condition.broadcast()
        condition.unlock()
        for reader in retired { reader.database?.close() }
    }

    /// Retires the idle readers and removes them from `readers`; returns them, for their connections to be closed
    /// once the lock is given back. Called with `condition` held.
    private func retireIdleReaders() -> [PooledReader] {
        var retired: [PooledReader] = []
        readers.removeAll { reader in
            guard reader.tryRetire() else { return false }
            retired.append(reader)
            return true
        }
        return retired
    }

    /// Whether a read holds one of the readers. Called with `condition` held.
    private var isReadInProgress: Bool { readers.contains { $0.isInUse } }

    /// Stores in `entryClosed` whether reads must take the slow path. Called with `condition` held.
    private func updateEntry() {
        entryClosed.store(isClosed || waitingBarrierCount > 0 ? 1 : 0)
    }

    /// Wakes the threads waiting for a reader's state to change, if any: called after giving a reader back.
    @inline(__always)
    private func wakeWaiters() {
        if waiterCount.load() > 0 {
            condition.lock()
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Whether the pool is open (not closed by ``close()``).
    public var isOpen: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !isClosed
    }

    /// Waits for the accesses in progress, then closes every connection; later accesses throw
    /// ``DatabaseError/Reason/accessAfterClose`` until ``reopen()``. Closing twice does nothing.
    ///
    /// Closing cannot fail, as for ``Database/close()``: there is nothing for the caller to handle. Called inside
    /// an access to this pool (which waiting would deadlock), it closes the idle readers and the writer (after the
    /// write of another thread) at once, and the connections in use when their accesses end; ``isOpen`` is `false`
    /// at once.
    public func close() {
        let isInsideAccess = ThreadAccesses.contains(identity)
        // One close or reopen at a time, so a reopen never runs between closing the readers and the writer.
        lifecycle.lock()
        defer { lifecycle.unlock() }
        condition.lock()
        isClosed = true
        updateEntry()
        condition.broadcast()
        // Every reader is retired once idle: after the reads in progress, and after a read that took its cached
        // reader just before seeing `entryClosed` gives it back. Inside an access to this pool, that access's own
        // reader cannot become idle before close() returns: the readers still in use are retired when their reads
        // end (checkIn(_:)).
        waiterCount.add(1)
        var retired: [PooledReader] = []
        while true {
            retired += retireIdleReaders()
            if readers.isEmpty || isInsideAccess { break }
            condition.wait()
        }
        waiterCount.add(-1)
        condition.unlock()
        for reader in retired { reader.database?.close() }
        writer.close()
    }

    /// Opens the pool again after ``close()``, with the same path, configuration and set-up hook: the writer at
    /// once (so a file that cannot be opened any more throws here), the readers when reads need them. The pattern
    /// of an app that closes its database when it goes to the background and carries on when it comes back. Does
    /// nothing when the pool is open.
    ///
    /// - Throws: the error of opening the writer or of its set-up hook (the pool then stays closed);
    ///   ``DatabaseError/Reason/reentrantAccess`` when called inside an access to this pool.
    public func reopen() throws {
        try writer.checkNotReentrant("reopen()")
        lifecycle.lock()
        defer { lifecycle.unlock() }
        condition.lock()
        let closed = isClosed
        condition.unlock()
        guard closed else { return }
        // No access runs now: every one checks `isClosed` first, and close() waited for those in progress.
        try writer.reopen()
        condition.lock()
        isClosed = false
        updateEntry()
        condition.broadcast()
        condition.unlock()
    }

    // MARK: - Entering and leaving

    /// The pool's identity in ``ThreadAccesses``: its writer's, so a read inside a write, a write inside a read and
    /// a read inside a read are all re-entries. Stored, so that a read does not touch the writer object (whose
    /// reference count every thread would then write).
    let identity: ObjectIdentifier

    /// Throws when the pool is closed. Called with `condition` held.
    private func checkOpen() throws {
        if isClosed { throw DatabaseError.misuse("the database pool is closed", reason: .accessAfterClose) }
    }

    // MARK: - Reads

    /// Takes a reader: the one the calling thread used last for this pool when it is idle (no lock), else an idle
    /// one, or a new one (opened by ``runRead(_:on:cancellation:)``) when none is idle and fewer than the maximum are
    /// open. When neither is possible, or while a barrier write waits or runs, waits until `deadline`, then throws
    /// ``DatabaseError/Reason/readerTimeout``; with no deadline, returns `nil` instead of waiting. A deadline of
    /// ``Deadline/readerTimeoutFromNow`` is computed only when the read must wait, so a read that finds a reader
    /// reads no clock.
    @inline(__always)
    private func takeReader(waitingUntil deadline: Deadline) throws -> PooledReader? {
        try ThreadAccesses.withCurrentList { list in
            if list.contains(identity) {
                throw ThreadAccesses.reentryError("a read started", ownerName: writer.ownerName)
            }
            if let reader = list.cachedReader(of: poolID), reader.tryTake() {
                if entryClosed.load() == 0 { return reader }
                // A barrier write or a close is under way: back out, so that it does not wait for this read.
                reader.giveBack()
                wakeWaiters()
            }
            let reader = try takeReaderSlowly(waitingUntil: deadline)
            if let reader { list.cacheReader(reader, of: poolID) }
            return reader
        }
    }

    /// How long ``takeReader(waitingUntil:)`` may wait.
    private enum Deadline {
        /// Not at all: `nil` when no reader is free.
        case noWait
        /// ``readerTimeout`` from the moment the read finds it must wait.
        case readerTimeoutFromNow
        /// Until this date.
        case date(Date)
    }

    /// ``takeReader(waitingUntil:)`` under the lock.
    @inline(never)
    private func takeReaderSlowly(waitingUntil wait: Deadline) throws -> PooledReader? {
        let deadline: Date?
        switch wait {
        case .noWait: deadline = nil
        case .readerTimeoutFromNow: deadline = Date(timeIntervalSinceNow: readerTimeout)
        case .date(let date): deadline = date
        }
        condition.lock()
        defer { condition.unlock() }
        // Counted before looking at the readers' states, so a read giving one back meanwhile wakes this one.
        waiterCount.add(1)
        defer { waiterCount.add(-1) }
        while true {
            try checkOpen()
            if waitingBarrierCount == 0 {
                if let reader = readers.first(where: { $0.tryTake() }) { return reader }
                if readers.count < maximumReaderCount {
                    let reader = PooledReader()
                    readers.append(reader)
                    return reader
                }
            }
            guard let deadline else { return nil }
            if !condition.wait(until: deadline) {
                throw DatabaseError(
                    extendedCode: .busy,
                    message: "every reader of the pool stayed busy for \(readerTimeout) s",
                    reason: .readerTimeout)
            }
        }
    }

    /// An idle reader, or a new one when fewer than the maximum are open, taken without waiting and without the
    /// calling thread's reader cache; `nil` when none can be taken now, while a barrier write waits or runs, and
    /// once the pool is closed.
    func takeIdleReaderWithoutWaiting() -> PooledReader? {
        condition.withLock {
            guard !isClosed, waitingBarrierCount == 0 else { return nil }
            if let reader = readers.first(where: { $0.tryTake() }) { return reader }
            guard readers.count < maximumReaderCount else { return nil }
            let reader = PooledReader()
            readers.append(reader)
            return reader
        }
    }

    /// Gives a reader back (retiring it when its connection is not open) and wakes the threads waiting for one.
    @inline(__always)
    func checkIn(_ reader: PooledReader) {
        guard let database = reader.database, database.isOpen else { return retire(reader) }
        // A pool closed while this read ran (from inside it, or beside it) retires the reader now. The flag is set
        // by barrier writes too, so only then is the lock taken to tell the two apart.
        if entryClosed.load() != 0, condition.withLock({ isClosed }) { return retire(reader) }
        reader.giveBack()
        wakeWaiters()
    }

    /// Drops a reader whose connection failed to open or was closed.
    @inline(never)
    private func retire(_ reader: PooledReader) {
        condition.lock()
        reader.retireHeld()
        readers.removeAll { $0 === reader }
        condition.broadcast()
        condition.unlock()
        reader.database?.close()
    }

    /// The connection of a reader the caller took, opened (with the set-up hook) when the reader is new.
    func connection(of reader: PooledReader) throws -> Database {
        if let open = reader.database { return open }
        let database = try readerRecipe.open()
        reader.database = database
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
        let database = try connection(of: reader)
        guard let list = ThreadAccesses.enter(identity) else {
            throw ThreadAccesses.reentryError("a read started", ownerName: writer.ownerName)
        }
        defer { ThreadAccesses.leave(identity, from: list) }
        return try SerializedDatabase.run(
            { reader in
                do {
                    return try reader.transaction(.deferred, body)
                } catch let error as DatabaseError where error.code == .readonly {
                    var error = error
                    error.reason = .writeInReadAccess
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
        guard let reader = try takeReader(waitingUntil: .readerTimeoutFromNow) else {
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
        try await AsyncHandOff.perform(on: self, transaction: .deferred, body)
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
            if let reader = try takeReader(waitingUntil: .noWait) {
                run(reader)
                return
            }
        } catch {
            completion(.failure(error))
            return
        }
        let deadline = Date(timeIntervalSinceNow: readerTimeout)
        readerWaitQueue.async {
            do {
                guard let reader = try self.takeReader(waitingUntil: .date(deadline)) else {
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
            condition.lock()
            do {
                try checkOpen()
            } catch {
                condition.unlock()
                throw error
            }
            // New reads wait from now on; the reads in progress finish first.
            waitingBarrierCount += 1
            updateEntry()
            waiterCount.add(1)
            while isReadInProgress { condition.wait() }
            waiterCount.add(-1)
            condition.unlock()
        }
        defer {
            if barrier {
                condition.lock()
                waitingBarrierCount -= 1
                updateEntry()
                condition.broadcast()
                condition.unlock()
            }
        }
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
        try await AsyncHandOff.performElsewhere(body) { escaped, cancellation, completion in
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

    // MARK: - Checkpoints

    /// Runs a WAL checkpoint on the writer: `.passive` copies what it can without waiting; `.full` waits for the
    /// writer lock and for readers of older snapshots; `.restart` also waits until the next writer can restart the
    /// WAL from its beginning; `.truncate` also truncates the WAL file to zero bytes. Waiting follows the busy mode.
    ///
    /// - Returns: the number of frames in the WAL, and how many of them are now in the database file.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/wal_checkpoint_v2.html>
    @discardableResult
    public func checkpoint(_ mode: CheckpointMode = .passive) throws -> (walFrames: Int, checkpointedFrames: Int) {
        try writeWithoutTransaction { db in
            let connection = try db.connection()
            let (code, walFrames, checkpointed) = connection.checkpoint(schema: nil, mode: mode)
            guard code == .ok else { throw db.error(code, sql: nil) }
            return (Int(walFrames), Int(checkpointed))
        }
    }
}

extension DatabasePool: AsyncAccessTarget {
    /// Takes a free reader, if any, without waiting.
    @inline(__always)
    func takeInPlace() throws -> PooledReader? {
        try takeReader(waitingUntil: .noWait)
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
