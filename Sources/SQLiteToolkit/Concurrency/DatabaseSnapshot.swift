// DispatchTime: Dispatch is its own module.
import Dispatch
import SQLiteBindings

/// One state of a ``DatabasePool``'s database, kept for several reads that must all see it, whatever the writer
/// commits meanwhile: SQLite's WAL snapshots.
///
/// ```swift
/// let snapshot = try pool.makeSnapshot()
/// let count = try snapshot.read { db in try db.queryValue("SELECT count(*) FROM player", as: Int.self) }
/// let names = try snapshot.read { db in try db.query("SELECT name FROM player").map { try $0.value(at: 0) as String } }
/// // count == names.count, even if players were added in between
/// snapshot.close()
/// ```
///
/// Each `read(_:)` runs on one of the pool's readers, in parallel with other reads, in a read transaction opened
/// on the snapshot (`sqlite3_snapshot_open`). The snapshot keeps a connection of its own in a read transaction for
/// as long as it lives, so that no checkpoint overwrites the state it records: the WAL file cannot start again from
/// its beginning meanwhile, and grows with each commit. Close a snapshot (or drop it) when its reads are done. That
/// connection is one more than the pool's readers (``DatabasePool/maximumReaderCount`` does not count it).
///
/// ``DatabasePool/close()`` closes every live snapshot: its reads throw ``DatabaseError/Reason/accessAfterClose``
/// from then on, after ``DatabasePool/reopen()`` too (make a new snapshot then).
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/snapshot_open.html>
public final class DatabaseSnapshot: @unchecked Sendable {
    // @unchecked Sendable: `holder`, `snapshot` and `closeInProgressHook` are used only while holding `lock` (a ``Lock``): by close(), and
    // by each read to open the snapshot on its reader; the pool is Sendable.
    private let pool: DatabasePool
    private let lock = Lock()
    /// The connection whose read transaction keeps the snapshot valid; `nil` once closed.
    private var holder: Database?
    private var snapshot: SnapshotHandle?
    /// Runs in ``close()`` between taking the connection and closing it: a test holds a close there, to check that
    /// a suspension of the pool waits for it.
    private var closeInProgressHook: (@Sendable () -> Void)?

    /// What the snapshot is called in a WAL report (``WALReport``): the label given to ``DatabasePool/makeSnapshot(label:fileID:line:)``,
    /// or where it was made.
    public let label: String
    /// When the snapshot was made, in nanoseconds of Dispatch's uptime clock.
    let createdAt: UInt64

    init(pool: DatabasePool, label: String) throws {
        self.pool = pool
        self.label = label
        self.createdAt = DispatchTime.now().uptimeNanoseconds
        // A closed pool would let it open a connection of its own that no read could use.
        guard pool.isOpen else {
            throw DatabaseError.misuse("the database pool is closed", reason: .accessAfterClose)
        }
        // A snapshot's own connection holds a lock, which a suspension must not leave behind: a suspension waits
        // for the snapshots being made, and none is made once it began.
        try pool.snapshotCreations.begin(refusedWhen: { pool.isSuspended })
        defer { pool.snapshotCreations.end() }
        let holder = try pool.readerRecipe.open()
        do {
            var attempts = 0
            while true {
                try holder.beginTransaction(.deferred)
                try holder.startReading()
                let connection = try holder.connection()
                let (code, snapshot) = SnapshotHandle.get(connection, schema: "main")
                if code == .ok, let snapshot {
                    self.snapshot = snapshot
                    self.holder = holder
                    break
                }
                try holder.rollback()
                // SQLite refuses a snapshot of a WAL that holds no frame (a pool just opened, or a WAL just truncated
                // by a checkpoint), with a bare SQLITE_ERROR: one frame that changes nothing is committed then (the
                // header page, rewritten with the same user version), and the snapshot is taken again.
                attempts += 1
                guard code == .error, attempts <= 3 else {
                    throw DatabaseError(
                        extendedCode: code,
                        message: "SQLite refused the snapshot (\(code)) \(attempts) times, a frame having been "
                            + "committed to the WAL before each new try")
                }
                try Self.commitFrameThatChangesNothing(pool: pool)
            }
        } catch {
            holder.close()
            throw error
        }
        // Last: a close of the pool since the check above refuses it, and it then closes its connection.
        do {
            try pool.snapshots.register(self)
        } catch {
            close()
            throw error
        }
    }

    deinit {
        close()
    }

    /// Commits one WAL frame that changes nothing, on a connection of its own (the pool's writer may be the caller's
    /// own access, or busy), so that SQLite can take a snapshot of the WAL.
    private static func commitFrameThatChangesNothing(pool: DatabasePool) throws {
        do {
            // The pool's configuration (with the key a key change set last) and its own set-up hook, not the
            // writer's recipe, whose checkpoint policy belongs to the writer alone.
            let writerRecipe = pool.writer.recipe
            let connection = try ConnectionRecipe(
                path: writerRecipe.path, configuration: writerRecipe.configuration, setUp: pool.userSetUp,
                recordsSetUpDefinitions: false
            ).open()
            defer { connection.close() }
            let version = try connection.queryValue("PRAGMA user_version", as: Int.self) ?? 0
            try connection.execute("PRAGMA user_version = \(version)")
        } catch let error as DatabaseError {
            throw DatabaseError(
                extendedCode: error.extendedCode,
                message: "SQLite takes no snapshot of a WAL that holds no frame (a pool just opened, or a WAL just "
                    + "truncated), and the frame that changes nothing and would allow one could not be committed: "
                    + error.message + "; make the snapshot after a write")
        }
    }

    /// Sets the code that ``close()`` runs once it took the connection and before it closes it (tests hold a close
    /// there).
    func setCloseInProgressHook(_ hook: (@Sendable () -> Void)?) {
        lock.withLock { closeInProgressHook = hook }
    }

    /// Whether the snapshot can still be read (``close()`` was not called).
    public var isOpen: Bool { lock.withLock { holder != nil } }

    /// Runs `body` on a reader of the pool, in a read transaction that sees the database as it was when the snapshot
    /// was made.
    ///
    /// - Throws: the error of `body`; ``DatabaseError/Reason/accessAfterClose`` once the snapshot or the pool is
    ///   closed; the errors of ``DatabasePool/read(_:)-2mi4f`` (a reader timeout, a re-entrant access).
    @discardableResult
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try pool.read { db in
            try open(on: db)
            return try body(db)
        }
    }

    /// ``read(_:)`` for async code.
    @discardableResult
    public func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        try await pool.read { db in
            try self.open(on: db)
            return try body(db)
        }
    }

    /// Moves the read transaction of `db` to the snapshot.
    private func open(on db: Database) throws {
        // A connection that has not read the database yet has no WAL open, and SQLite cannot open a snapshot on it:
        // a first read opens the WAL (and a read transaction, which opening the snapshot ends and replaces).
        try db.startReading()
        let connection = try db.connection()
        let code = lock.withLock { snapshot.map { $0.open(connection, schema: "main") } }
        guard let code else {
            throw DatabaseError.misuse("the database snapshot is closed", reason: .accessAfterClose)
        }
        if code != .ok { throw db.error(code, sql: nil) }
    }

    /// Frees the snapshot and closes its connection, so the WAL can be checkpointed past it again; later reads
    /// throw. Closing twice does nothing.
    public func close() {
        let (holder, snapshot, hook) = lock.withLock {
            defer {
                self.holder = nil
                self.snapshot = nil
            }
            return (self.holder, self.snapshot, self.holder == nil ? nil : closeInProgressHook)
        }
        hook?()
        snapshot?.free()
        try? holder?.rollback()
        holder?.close()
        // Only now: a suspension or a close of the pool that found this snapshot registered (or being closed here,
        // its own close() then finding no holder) waits for this connection to be closed.
        if holder != nil { pool.snapshots.unregister(self) }
    }
}

/// The live snapshots of a pool, so that closing the pool closes them: each keeps a connection of its own in a read
/// transaction, which would otherwise outlive the pool's close (holding the WAL, and a lock on the file).
///
/// A snapshot stays registered until its connection is closed, not merely until it is released: a snapshot that
/// another thread is closing, or that is being deinitialized (its weak reference here is already `nil`), still holds
/// its connection for a moment, and closing the pool's snapshots waits for it, since a suspension promises that no
/// connection of the pool is left open when it returns.
final class SnapshotRegistry: @unchecked Sendable {
    // @unchecked Sendable: `snapshots` and `isClosed` are read and written only while holding `lock` (a ``Lock``,
    // used with its condition variable).
    private struct WeakSnapshot {
        weak var snapshot: DatabaseSnapshot?
    }

    private let lock = Lock()
    /// Every registered snapshot whose connection is not closed yet, by identity.
    private var snapshots: [ObjectIdentifier: WeakSnapshot] = [:]
    private var isClosed = false

    /// Records a new snapshot. Throws ``DatabaseError/Reason/accessAfterClose`` once the pool is closed.
    func register(_ snapshot: DatabaseSnapshot) throws {
        try lock.withLock {
            guard !isClosed else {
                throw DatabaseError.misuse("the database pool is closed", reason: .accessAfterClose)
            }
            snapshots[ObjectIdentifier(snapshot)] = WeakSnapshot(snapshot: snapshot)
        }
    }

    /// Forgets a snapshot whose connection is closed, and wakes a close of the pool's snapshots that waits for it.
    func unregister(_ snapshot: DatabaseSnapshot) {
        lock.withLock {
            snapshots.removeValue(forKey: ObjectIdentifier(snapshot))
            lock.broadcast()
        }
    }

    /// Refuses new snapshots and closes the live ones (see ``closeLive()``).
    func closeAll() {
        lock.withLock { isClosed = true }
        closeLive()
    }

    /// The snapshots open now.
    func liveSnapshots() -> [DatabaseSnapshot] {
        lock.withLock { snapshots.values.compactMap(\.snapshot) }
    }

    /// Closes the live snapshots, and still accepts new ones (a key change replaces the file they read). Returns once
    /// the connection of every snapshot registered when it began is closed, those that other threads are closing or
    /// deinitializing meanwhile included (their `close()` unregisters them once their connection is closed).
    func closeLive() {
        let (registered, live) = lock.withLock { (Set(snapshots.keys), snapshots.values.compactMap(\.snapshot)) }
        // Outside the lock: closing a snapshot unregisters it.
        for snapshot in live { snapshot.close() }
        lock.lock()
        while snapshots.keys.contains(where: registered.contains) { lock.wait() }
        lock.unlock()
    }

    /// Accepts new snapshots again.
    func reopen() {
        lock.withLock { isClosed = false }
    }
}

extension DatabasePool {
    /// Records the database's state now, for several reads that must all see it (see ``DatabaseSnapshot``).
    ///
    /// - Throws: ``DatabaseError/Reason/accessAfterClose`` once the pool is closed; the error of opening the
    ///   snapshot's connection (with the pool's configuration and set-up hook). SQLite cannot take a snapshot of a
    ///   WAL that holds no frame (the pool was just opened, or a checkpoint truncated the WAL): a connection of its
    ///   own then commits one frame that changes nothing, so on such a pool the call also throws what that write
    ///   would: `SQLITE_READONLY` for a read-only pool, `SQLITE_BUSY` after the busy timeout inside a write of the
    ///   pool; the message says why the snapshot needed a write. The pool's observations hear of that commit as
    ///   of any other connection's (``DatabaseTransactionChanges/isExternal``): an observed query may run once more.
    ///
    /// - Parameters:
    ///   - label: what a WAL report (``WALHygiene/report``) calls the snapshot while it pins the WAL; by default,
    ///     the file and line of the call.
    ///   - fileID: the file of the call, for the default label.
    ///   - line: the line of the call, for the default label.
    public func makeSnapshot(
        label: String? = nil, fileID: String = #fileID, line: Int = #line
    ) throws -> DatabaseSnapshot {
        try DatabaseSnapshot(pool: self, label: label ?? "snapshot made at \(fileID):\(line)")
    }
}
