// DispatchQueue: Dispatch is its own module (Foundation only re-exports it).
import Dispatch
import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension DatabasePool {
    /// The size of the WAL file on disk now, in bytes; 0 when there is none.
    public var walFileSize: Int {
        guard let path = walMonitor.walPath,
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        else { return 0 }
        if let size = attributes[.size] as? Int { return size }
        return (attributes[.size] as? UInt64).map { Int(clamping: $0) } ?? 0
    }

    /// The pool's reads, snapshots and observation runs that hold a read transaction now, oldest first: what
    /// ``WALHygiene/report`` receives.
    public func walReadHolders() -> [WALReadHolder] {
        let now = DispatchTime.now().uptimeNanoseconds
        func age(_ since: UInt64) -> Double { Double(now &- min(since, now)) / 1e9 }
        var holders: [WALReadHolder] = readers.activeReads().map { read in
            WALReadHolder(
                kind: read.isObservation ? .observation : .read,
                label: read.isObservation ? "observed query run" : "read access", age: age(read.since))
        }
        for snapshot in snapshots.liveSnapshots() {
            holders.append(WALReadHolder(kind: .snapshot, label: snapshot.label, age: age(snapshot.createdAt)))
        }
        return holders.sorted { $0.age > $1.age }
    }
}

/// A ``DatabasePool``'s side of ``WALHygiene``: told of every commit by the writer's WAL hook
/// (``WALCheckpointPolicy``), it reports a WAL past the watermark and truncates the WAL once the pool is idle.
final class WALMonitor: @unchecked Sendable {
    // @unchecked Sendable: `pageSize`, `lastReportedFrames` are read and written only by the writer's WAL hook and
    // its set-up (one access at a time); `state` is a LockedState; `commits` is atomic.
    let hygiene: WALHygiene
    weak var pool: DatabasePool?
    private var pageSize = 4096
    private var lastReportedBytes = 0
    private struct State {
        var walPath: String?
        var truncationScheduled = false
    }
    private let state = LockedState(State())
    /// Counts the commits, so a truncation can tell that the pool was not idle since it was planned.
    private let commits = AtomicWord(0)
    /// Runs the reports and the idle truncations, off the writer's thread.
    private let queue = DispatchQueue(label: "SQLiteToolkit.DatabasePool.wal")

    init(hygiene: WALHygiene) {
        self.hygiene = hygiene
    }

    /// Waits until the reports sent so far have been delivered, for tests.
    func waitForReports() {
        queue.sync {}
    }

    /// The path of the WAL file, once the writer opened.
    var walPath: String? { state.withLock { $0.walPath } }

    /// Sets the writer's `journal_size_limit`, before the set-up hook (which may change it).
    func prepare(_ db: Database) throws {
        if let limit = hygiene.journalSizeLimit { try db.execute("PRAGMA journal_size_limit = \(limit)") }
    }

    /// Reads what the monitor needs from the writer once its set-up hook ran (the key set, the page size known).
    func install(on db: Database) throws {
        pageSize = try db.queryValue("PRAGMA page_size", as: Int.self) ?? 4096
        lastReportedBytes = 0
        let path = try db.mainFilePath().map { $0 + "-wal" }
        state.withLock { $0.walPath = path }
    }

    /// Called by the writer's WAL hook after each commit, with the number of frames in the WAL.
    func committed(frames: Int32) {
        _ = commits.add(1)
        let bytes = 32 + Int(frames) * (pageSize + 24)
        if bytes < lastReportedBytes { lastReportedBytes = 0 }
        if let watermark = hygiene.watermark, let report = hygiene.report, bytes >= watermark,
            lastReportedBytes == 0 || bytes - lastReportedBytes >= watermark
        {
            lastReportedBytes = bytes
            queue.async { [weak self] in
                guard let pool = self?.pool else { return }
                report(WALReport(walBytes: bytes, watermark: watermark, holders: pool.walReadHolders()))
            }
        }
        scheduleTruncation()
    }

    /// Plans a truncation once the pool has been idle for ``WALHygiene/idleTruncationDelay``, unless one is planned.
    private func scheduleTruncation() {
        guard let delay = hygiene.idleTruncationDelay else { return }
        let isNew = state.withLock { state in
            defer { state.truncationScheduled = true }
            return !state.truncationScheduled
        }
        if isNew { plan(after: delay, attempt: 0, commitsThen: commits.load()) }
    }

    private func plan(after delay: Double, attempt: Int, commitsThen: Int) {
        queue.asyncAfter(deadline: .now() + max(delay, 0)) { [weak self] in
            self?.truncateIfIdle(attempt: attempt, commitsThen: commitsThen)
        }
    }

    /// Truncates the WAL when the pool has stayed idle since the truncation was planned; otherwise plans another
    /// try, later each time a read pins the WAL (up to a minute apart).
    private func truncateIfIdle(attempt: Int, commitsThen: Int) {
        guard let delay = hygiene.idleTruncationDelay, let pool, pool.isOpen, !pool.isSuspended else {
            return state.withLock { $0.truncationScheduled = false }
        }
        let commitsNow = commits.load()
        if commitsNow != commitsThen { return plan(after: delay, attempt: 0, commitsThen: commitsNow) }
        let outcome = pool.truncateWALWithoutWaiting()
        switch outcome {
        case .done, .stopped:
            state.withLock { $0.truncationScheduled = false }
            // A commit that came while the flag was still set planned nothing: look again.
            if commits.load() != commitsNow { scheduleTruncation() }
        case .busy:
            // From a tenth of a second at least: with no idle delay, a zero backoff would retry in a tight loop
            // for as long as a read pins the WAL.
            let backoff = min(max(delay, 0.1) * Double(1 << min(attempt + 1, 16)), 60)
            plan(after: backoff, attempt: attempt + 1, commitsThen: commitsNow)
        }
    }
}

extension DatabasePool {
    /// What an idle truncation did.
    enum TruncationOutcome {
        /// The WAL is empty and its file 0 bytes long.
        case done
        /// An access holds the writer, or a read (of this process or another) still pins the WAL: try later.
        case busy
        /// The pool is closed or suspended: nothing to do.
        case stopped
    }

    /// `PRAGMA wal_checkpoint(TRUNCATE)` on the writer, when no access holds it or waits for it and no read of the
    /// pool is in progress, without waiting for any lock (the writer's busy handler is off meanwhile).
    func truncateWALWithoutWaiting() -> TruncationOutcome {
        if readers.inUseCount > 0 || !snapshots.liveSnapshots().isEmpty { return .busy }
        let taken: (Database, ThreadAccessRecord)
        do {
            guard let free = try writer.takeForHousekeeping() else { return .busy }
            taken = free
        } catch {
            return .stopped
        }
        defer {
            ThreadAccesses.leave(writer.identity, from: taken.1)
            writer.giveBackInPlace(taken)
        }
        let db = taken.0
        let busyMode = db.busyMode
        guard (try? db.setBusyMode(.immediateError)) != nil, let connection = try? db.connection() else { return .busy }
        let (code, _, _) = connection.checkpoint(schema: nil, mode: .truncate)
        try? db.setBusyMode(busyMode)
        return code == .ok ? .done : .busy
    }
}
