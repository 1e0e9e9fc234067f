// DispatchQueue: Dispatch is its own module (Foundation only re-exports it).
import Dispatch

/// The watch a ``DatabaseQueue``, or a ``DatabasePool``'s writer, keeps for commits made outside its connection:
/// a monitor (``ExternalChangeMonitor``) says when to look, and a look is an access to the connection that reads
/// `PRAGMA data_version` (``Database/checkForExternalChanges()``), which changes when another connection committed.
///
/// The connection's broker starts the watch when its first observer is added and stops it when the last goes,
/// closing included: a connection that observes nothing has no monitor, no file descriptor, no timer. Events come in
/// bursts (a commit writes the `-wal` several times); a look is scheduled when none is pending, and the pending mark
/// is cleared when the look begins, before it reads, so that an event during a look schedules another: one look per
/// burst, and never none after the last event. A commit in WAL mode becomes visible when its writer updates the
/// `-shm` index, which it writes through shared memory (no file-system event) right after its last write to the
/// `-wal`: a look after an event looks again a little later (``settlingDelays``), in case it ran between the two,
/// even when it found a change (an earlier commit, the events being the next one's). A commit whose sync outlasts
/// those looks (a slow disk) has no event after it: a look every ``ExternalChangeDetection/backstopInterval`` sees it.
final class ExternalChangeWatch: Sendable {
    private let lock = Lock()
    // Guarded by `lock`: the setting, the owner, the running monitor and the file it watches, whether a look is
    // scheduled, the number of event bursts so far (a settling look that a newer burst made useless is skipped), the
    // number of looks, and the generation below.
    private nonisolated(unsafe) var currentDetection = ExternalChangeDetection.fileSystemEvents
    private nonisolated(unsafe) weak var owner: SerializedDatabase?
    private nonisolated(unsafe) var monitor: ExternalChangeMonitor?
    private nonisolated(unsafe) var watchedPath: String?
    private nonisolated(unsafe) var isCheckPending = false
    private nonisolated(unsafe) var burst = 0
    private nonisolated(unsafe) var checks = 0
    /// Counts starts, stops and setting changes: a monitor made outside `lock` is installed only if none came since.
    private nonisolated(unsafe) var generation = 0

    /// How long after a look that followed a file-system event the watch looks again.
    static let settlingDelays: [DispatchTimeInterval] = [.milliseconds(5), .milliseconds(50), .milliseconds(500)]

    /// Makes this the watch of `database`, the connection `owner` serializes (at its open, and at each reopen).
    func attach(to database: Database, owner: SerializedDatabase) {
        lock.withLock { self.owner = owner }
        database.observation.externalChanges = self
    }

    /// The setting in force.
    var detection: ExternalChangeDetection { lock.withLock { currentDetection } }

    /// Changes the setting; a monitor running now is replaced by one of the new kind.
    func setDetection(_ detection: ExternalChangeDetection) throws {
        try detection.validate()
        let running: (generation: Int, path: String)? = lock.withLock {
            currentDetection = detection
            guard let watchedPath else { return nil }
            generation &+= 1
            return (generation, watchedPath)
        }
        guard let running else { return }
        install(Self.makeMonitor(detection, path: running.path, for: self), generation: running.generation)
        // A look now: a commit made while no monitor of the new kind ran is not missed.
        changeSignalled(fromFileSystem: false)
    }

    /// Starts a monitor for the database file at `path` (empty for an in-memory or temporary database). Called on
    /// the connection's thread when its first observer was added.
    func start(path: String) {
        let started = lock.withLock {
            generation &+= 1
            watchedPath = path
            isCheckPending = false
            return (generation: generation, detection: currentDetection)
        }
        install(Self.makeMonitor(started.detection, path: path, for: self), generation: started.generation)
    }

    /// Makes `new` the running monitor, unless a stop or another start came since `generation` was taken (the new
    /// one is then stopped). Monitors are made and stopped without `lock`: a monitor's start may wait for the
    /// monitors' queue, whose handlers take `lock`.
    private func install(_ new: ExternalChangeMonitor?, generation: Int) {
        let unused: ExternalChangeMonitor? = lock.withLock {
            guard generation == self.generation else { return new }
            defer { monitor = new }
            return monitor
        }
        unused?.stop()
    }

    /// Stops the monitor: the last observer went, or the connection closes. Never waits (it may run inside an
    /// access, or inside a close).
    func stop() {
        let stopped: ExternalChangeMonitor? = lock.withLock {
            generation &+= 1
            defer {
                monitor = nil
                watchedPath = nil
            }
            return monitor
        }
        stopped?.stop()
    }

    /// The running monitor, for tests.
    var runningMonitor: ExternalChangeMonitor? { lock.withLock { monitor } }

    /// The number of looks so far, for tests.
    var checkCount: Int { lock.withLock { checks } }

    /// Whether a look is scheduled and has not begun, for tests.
    var hasPendingCheck: Bool { lock.withLock { isCheckPending } }

    private static func makeMonitor(
        _ detection: ExternalChangeDetection, path: String, for watch: ExternalChangeWatch
    ) -> ExternalChangeMonitor? {
        let onChange: @Sendable () -> Void = { [weak watch] in watch?.changeSignalled(fromFileSystem: true) }
        let onTick: @Sendable () -> Void = { [weak watch] in watch?.changeSignalled(fromFileSystem: false) }
        switch detection {
        case .disabled:
            return nil
        case .polling(let interval):
            return ExternalChangeMonitor.polling(interval: interval, onTick)
        case .fileSystemEvents:
            // No other process can open an in-memory or temporary database.
            guard !path.isEmpty else { return nil }
            guard let events = ExternalChangeMonitor.fileSystem(path: path, onChange) else {
                return ExternalChangeMonitor.polling(interval: ExternalChangeDetection.fallbackPollingInterval, onTick)
            }
            return ExternalChangeMonitor.backstopped(
                events, interval: ExternalChangeDetection.backstopInterval, onTick)
        }
    }

    /// The monitor says the database may have changed: schedules a look unless one is pending.
    private func changeSignalled(fromFileSystem: Bool) {
        let scheduledOwner: SerializedDatabase? = lock.withLock {
            guard monitor != nil, let owner = self.owner else { return nil }
            if fromFileSystem { burst &+= 1 }
            guard !isCheckPending else { return nil }
            isCheckPending = true
            return owner
        }
        guard let owner = scheduledOwner else { return }
        owner.dispatchQueue.async { [self] in
            // The bursts this look answers are those counted when it begins. It settles whether or not it found a
            // change: what it found may be an earlier commit, the events those of the next one, still invisible.
            guard let (_, burst) = look(on: owner), fromFileSystem else { return }
            for delay in Self.settlingDelays {
                ExternalChangeMonitor.queue.asyncAfter(deadline: .now() + delay) { [weak self] in
                    self?.settle(after: burst)
                }
            }
        }
    }

    /// A settling look, unless a newer burst of events came (whose looks settle it) or the monitor stopped.
    private func settle(after burst: Int) {
        let scheduledOwner: SerializedDatabase? = lock.withLock {
            guard monitor != nil, burst == self.burst, !isCheckPending, let owner = self.owner else { return nil }
            isCheckPending = true
            return owner
        }
        guard let owner = scheduledOwner else { return }
        owner.dispatchQueue.async { [self] in _ = look(on: owner) }
    }

    /// One look, in an access of its own: whether the database changed, and the count of bursts when the look
    /// began; `nil` when the connection is closed.
    private func look(on owner: SerializedDatabase) -> (changed: Bool, burst: Int)? {
        let result = try? owner.access { db in
            let burst = lock.withLock {
                isCheckPending = false
                checks += 1
                return self.burst
            }
            return (db.checkForExternalChanges(), burst)
        }
        // Closed: the next start schedules afresh.
        if result == nil { lock.withLock { isCheckPending = false } }
        return result
    }
}

extension Database {
    /// Starts the watch of this connection's queue or pool, if it has one, when the first observer was added:
    /// records the data version the observers start from.
    func startWatchingExternalChanges() {
        guard let watch = observation.externalChanges, !observation.watchesExternalChanges else { return }
        observation.watchesExternalChanges = true
        // When it cannot be read now, the first look tells the observers of a change: it may have missed one.
        observation.dataVersion = try? readDataVersion()
        watch.start(path: handle?.filename(schema: "main") ?? "")
    }

    /// Reads `PRAGMA data_version` and tells the observers that the database changed outside this connection when
    /// it differs from the last one read; returns whether it did. Does nothing (`false`) when the connection is not
    /// watching, or inside a transaction, whose snapshot could hide a commit (a look is an access of its own, which
    /// a queue or pool never starts inside a transaction).
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_data_version>
    @discardableResult
    func checkForExternalChanges() -> Bool {
        guard observation.watchesExternalChanges, let connection = handle, connection.isAutocommit() else {
            return false
        }
        guard let version = try? readDataVersion() else { return false }
        let previous = observation.dataVersion
        observation.dataVersion = version
        guard previous != version else { return false }
        observation.deliverExternalChange()
        return true
    }

    func readDataVersion() throws -> Int64 {
        try queryValue("PRAGMA data_version", as: Int64.self) ?? 0
    }
}
