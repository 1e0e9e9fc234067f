#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The reader connections of a ``DatabasePool`` and who may use them: reads take and give back readers, barrier
/// writes wait for the reads in progress, and a close retires every reader.
///
/// The fast path. A read first tries the reader its thread used last for this pool (kept in the thread's
/// ``ThreadAccessList``, by the pool's ID): one compare-and-exchange of that reader's state, idle to in use, then one
/// load of ``slowPathOnly``. Giving the reader back is one compare-and-exchange, in use to idle, then one load of
/// ``waiterCount``. Neither touches a word that another reader writes, nor the lock, so reads on different threads
/// never wait for each other.
///
/// The slow path, under `condition`, for everything else: no reader cached, the cached one taken by another thread or
/// retired, a barrier write waiting or running, the pool closed, or reads waiting at the reader limit. Reads that must
/// wait for a reader stand in a line and take readers first come, first served; while anyone stands in it,
/// ``slowPathOnly`` is 1, so a thread that keeps reading cannot take its cached reader back ahead of a read that
/// waits (which would then wait until its time-out).
///
/// Why the fast path is safe: a barrier write, a close and a read joining the line store 1 in ``slowPathOnly`` and
/// add 1 to ``waiterCount``, then, under the lock, look at the readers' states. Every operation on the words is
/// sequentially consistent, so of a read's exchange then load and their store then loads of the states, one sees the
/// other: either the read sees ``slowPathOnly`` and backs out (gives the reader back and takes the slow path), or
/// they see the reader in use and wait for it. A read that gives a reader back while ``waiterCount`` is above 0
/// takes the lock to wake the waiting threads; a waiting thread checked the states holding the lock, and holds it
/// until it waits, so no wake-up is lost.
///
/// A close marks each reader in use as retiring when given back (see ``PooledReader``), so a read in progress
/// finishes on its reader and retires it at its end, whatever happens to the pool meanwhile (a reopen included),
/// and the close waits for those reads through ``retiringCount``.
final class ReaderCheckout: @unchecked Sendable {
    // @unchecked Sendable: `readers`, `retiringCount`, `waitingBarrierCount`, `isClosed`, `suspension`, `line`,
    // `nextTicket` and `readsEndedHook` are read and written only while holding `condition` (a ``Lock``, used with
    // its condition variable); `slowPathOnly` and `waiterCount` are atomic words, `slowPathOnly` written only while
    // holding `condition`; a reader's connection is used only by the read whose exchange on the reader's state word
    // took it.
    private let condition = Lock()
    /// Every open reader of the pool, in use or idle (not those a close marked retiring).
    private var readers: [PooledReader] = []
    /// The readers a close marked retiring while reads held them: each read retires its reader when it ends.
    private var retiringCount = 0
    private var waitingBarrierCount = 0
    private var isClosed = false
    /// Set during a suspension of the pool (DatabasePool+Suspension.swift): reads throw or wait, as it says.
    private var suspension: SuspendedAccesses?
    /// The reads waiting for a reader, by ticket, first in line first.
    private var line: [Int] = []
    private var nextTicket = 0
    /// 1 while reads must take the slow path: the pool is closed, a barrier write waits or runs, or reads wait in
    /// line.
    private let slowPathOnly = AtomicWord(0)
    /// The threads waiting in `condition` for a reader's state to change: reads in line, barrier writes, a close.
    private let waiterCount = AtomicWord(0)

    /// The most reader connections open at once.
    let maximumReaderCount: Int
    /// How long a read waits for a reader connection when all are busy, in seconds.
    let readerTimeout: TimeInterval
    /// The pool's key in every thread's reader cache (see ``DatabasePool/poolID``).
    private let poolID: Int
    /// The pool's identity in ``ThreadAccesses``.
    private let identity: ObjectIdentifier

    init(maximumReaderCount: Int, readerTimeout: TimeInterval, poolID: Int, identity: ObjectIdentifier) {
        self.maximumReaderCount = max(1, maximumReaderCount)
        self.readerTimeout = readerTimeout
        self.poolID = poolID
        self.identity = identity
    }

    deinit {
        // A thread's reader cache may keep a reader object after the pool is gone: its connection must not stay open.
        for reader in readers where reader.tryRetire() { reader.database?.close() }
    }

    /// The number of reader connections open now (busy or idle).
    var count: Int { condition.withLock { readers.count } }

    /// The readers that reads hold now, those a close marked retiring included.
    var inUseCount: Int { condition.withLock { readers.filter { $0.isInUse }.count + retiringCount } }

    /// The reads waiting in line for a reader now.
    var waitingReadCount: Int { condition.withLock { line.count } }

    /// Stores in ``slowPathOnly`` whether reads must take the slow path. Called with `condition` held.
    private func updateSlowPath() {
        slowPathOnly.store(isClosed || suspension != nil || waitingBarrierCount > 0 || !line.isEmpty ? 1 : 0)
    }

    /// Throws when the pool is closed. Called with `condition` held.
    private func checkOpen() throws {
        if isClosed { throw DatabaseError.misuse("the database pool is closed", reason: .accessAfterClose) }
        if suspension == .fail { throw Self.suspendedError }
    }

    /// The error of a read refused during a suspension.
    static let suspendedError = DatabaseError(
        extendedCode: .busy, message: "the database pool is suspended: resume() lets accesses run again",
        reason: .suspended)

    /// Waits while the pool is suspended with waiting accesses; throws when it is closed or suspended with failing
    /// ones, or when the task of `cancellation` is cancelled. Called with `condition` held.
    private func waitWhileSuspended(cancellation: AccessCancellation?) throws {
        try checkOpen()
        guard suspension != nil else { return }
        waiterCount.add(1)
        cancellation?.waitingBegins(on: condition)
        defer {
            cancellation?.waitingEnds()
            waiterCount.add(-1)
        }
        while suspension != nil {
            try checkOpen()
            if let cancellation, cancellation.isCancelled { throw CancellationError() }
            condition.wait()
        }
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

    // MARK: - Taking and giving back

    /// How long ``take(waitingUntil:cancellation:)`` may wait.
    enum Deadline {
        /// Not at all: `nil` when no reader is free.
        case noWait
        /// ``readerTimeout`` from the moment the read finds it must wait, so a read that finds a reader reads no
        /// clock.
        case readerTimeoutFromNow
        /// Until this moment.
        case at(MonotonicDeadline)
    }

    /// Takes a reader: the one the calling thread used last for this pool when it is idle (no lock), else an idle
    /// one, or a new one (its connection opened by the caller) when none is idle and fewer than the maximum are open.
    /// Otherwise waits in line until `deadline`, then throws ``DatabaseError/Reason/readerTimeout``; with no
    /// deadline, returns `nil` instead of waiting. A cancellation of `cancellation`'s task ends the wait with
    /// `CancellationError`, and a close with ``DatabaseError/Reason/accessAfterClose``; either way no reader is
    /// taken.
    @inline(__always)
    func take(waitingUntil deadline: Deadline, cancellation: AccessCancellation?) throws -> PooledReader? {
        try ThreadAccesses.withCurrentList { list in
            if list.contains(identity) {
                throw ThreadAccesses.reentryError("a read started", ownerName: "database pool")
            }
            if let reader = list.cachedReader(of: poolID), reader.tryTake() {
                if slowPathOnly.load() == 0 { return reader }
                // A barrier write, a close or a waiting read: back out, so that it does not wait for this read.
                giveBackUnused(reader)
            }
            let reader = try takeSlowly(waitingUntil: deadline, cancellation: cancellation)
            if let reader { list.cacheReader(reader, of: poolID) }
            return reader
        }
    }

    /// ``take(waitingUntil:cancellation:)`` under the lock.
    @inline(never)
    private func takeSlowly(waitingUntil wait: Deadline, cancellation: AccessCancellation?) throws -> PooledReader? {
        condition.lock()
        defer { condition.unlock() }
        try checkOpen()
        if suspension != nil {
            // An async read that would run in place waits elsewhere instead.
            if case .noWait = wait { return nil }
            try waitWhileSuspended(cancellation: cancellation)
        }
        if line.isEmpty && waitingBarrierCount == 0, let reader = takeIdleOrNew() { return reader }
        let deadline: MonotonicDeadline
        switch wait {
        case .noWait: return nil
        case .readerTimeoutFromNow: deadline = MonotonicDeadline(secondsFromNow: readerTimeout)
        case .at(let moment): deadline = moment
        }
        let ticket = nextTicket
        nextTicket &+= 1
        line.append(ticket)
        updateSlowPath()
        // Counted before looking at the readers' states, so a read giving one back meanwhile wakes this one.
        waiterCount.add(1)
        cancellation?.waitingBegins(on: condition)
        defer {
            cancellation?.waitingEnds()
            waiterCount.add(-1)
            if let index = line.firstIndex(of: ticket) { line.remove(at: index) }
            updateSlowPath()
            // The read next in line may take a reader now.
            condition.broadcast()
        }
        while true {
            try checkOpen()
            if let cancellation, cancellation.isCancelled { throw CancellationError() }
            if suspension != nil {
                // A suspension with waiting accesses began while this read waited in line: it takes no reader (the
                // suspension retires them all) and waits for the resume, as a read started during it does.
                condition.wait()
                continue
            }
            if line.first == ticket && waitingBarrierCount == 0, let reader = takeIdleOrNew() { return reader }
            if !condition.wait(until: deadline) {
                throw DatabaseError(
                    extendedCode: .busy,
                    message: "every reader of the pool stayed busy for \(readerTimeout) s",
                    reason: .readerTimeout)
            }
        }
    }

    /// An idle reader, or a new one when fewer than the maximum are open; `nil` when neither. Called with `condition`
    /// held.
    private func takeIdleOrNew() -> PooledReader? {
        if let reader = readers.first(where: { $0.tryTake() }) { return reader }
        guard readers.count < maximumReaderCount else { return nil }
        let reader = PooledReader()
        readers.append(reader)
        return reader
    }

    /// An idle reader, or a new one when fewer than the maximum are open, taken without waiting and without the
    /// calling thread's reader cache (for an observed query's read, on the writer's thread); `nil` when none can be
    /// taken now, while a barrier write waits or runs, reads wait in line, and once the pool is closed.
    func takeIdleWithoutWaiting() -> PooledReader? {
        condition.withLock {
            guard !isClosed, suspension == nil, waitingBarrierCount == 0, line.isEmpty else { return nil }
            return takeIdleOrNew()
        }
    }

    /// Gives a reader back after its read (retiring it when its connection is not open, or a close marked it) and
    /// wakes the threads waiting for one.
    @inline(__always)
    func giveBack(_ reader: PooledReader) {
        guard let database = reader.database, database.isOpen else { return retireHeld(reader) }
        giveBackUnused(reader)
    }

    /// Gives back a reader that holds an open connection, or none yet.
    @inline(__always)
    private func giveBackUnused(_ reader: PooledReader) {
        guard reader.giveBack() else { return retireHeld(reader) }
        wakeWaiters()
    }

    /// Drops a reader the caller holds: its connection failed to open or was closed, or a close marked it retiring.
    @inline(never)
    private func retireHeld(_ reader: PooledReader) {
        condition.lock()
        if reader.isMarkedRetiring {
            retiringCount -= 1
        } else {
            readers.removeAll { $0 === reader }
        }
        reader.retireHeld()
        condition.broadcast()
        condition.unlock()
        reader.database?.close()
    }

    // MARK: - Barrier writes, closing and reopening

    /// Waits for the reads in progress and keeps new reads waiting, until ``endBarrier()``.
    ///
    /// - Throws: ``DatabaseError/Reason/accessAfterClose`` when the pool is closed; `CancellationError` when the
    ///   task of `cancellation` is cancelled while the barrier waits (it then keeps no read waiting).
    func beginBarrier(cancellation: AccessCancellation? = nil) throws {
        condition.lock()
        defer { condition.unlock() }
        try checkOpen()
        // New reads wait from now on; the reads in progress finish first.
        waitingBarrierCount += 1
        updateSlowPath()
        waiterCount.add(1)
        cancellation?.waitingBegins(on: condition)
        defer {
            cancellation?.waitingEnds()
            waiterCount.add(-1)
        }
        while retiringCount > 0 || readers.contains(where: { $0.isInUse }) {
            if let cancellation, cancellation.isCancelled {
                waitingBarrierCount -= 1
                updateSlowPath()
                condition.broadcast()
                throw CancellationError()
            }
            condition.wait()
        }
    }

    /// Waits until the reads that a close marked retiring have ended.
    func waitUntilRetired() {
        condition.lock()
        defer { condition.unlock() }
        guard retiringCount > 0 else { return }
        waiterCount.add(1)
        while retiringCount > 0 { condition.wait() }
        waiterCount.add(-1)
    }

    /// Lets reads run again after ``beginBarrier()``.
    func endBarrier() {
        condition.lock()
        waitingBarrierCount -= 1
        updateSlowPath()
        condition.broadcast()
        condition.unlock()
    }

    /// Closes the idle readers and returns them, for their connections to be closed once the lock is given back.
    func closeIdleReaders() -> [PooledReader] {
        condition.withLock {
            let retired = retireIdleReaders()
            condition.broadcast()
            return retired
        }
    }

    /// Retires the idle readers and removes them from `readers`; returns them. Called with `condition` held.
    private func retireIdleReaders() -> [PooledReader] {
        var retired: [PooledReader] = []
        readers.removeAll { reader in
            guard reader.tryRetire() else { return false }
            retired.append(reader)
            return true
        }
        return retired
    }

    /// Refuses new reads, ends the waits of those in line (they throw ``DatabaseError/Reason/accessAfterClose``),
    /// retires the idle readers and marks the others retiring when their reads give them back; then, when
    /// `waitingForReads`, waits until those reads have ended. Returns the readers retired now, whose connections the
    /// caller closes (the reads close theirs).
    func close(waitingForReads: Bool) -> [PooledReader] {
        condition.lock()
        defer { condition.unlock() }
        isClosed = true
        // A closed pool is not suspended: its reopen() opens it for reads.
        suspension = nil
        updateSlowPath()
        condition.broadcast()
        var retired: [PooledReader] = []
        for reader in readers {
            // The state moves between idle and in use under reads that take and give back without the lock: try
            // both exchanges until one succeeds. A reader in `readers` is never retired or marked already.
            while reader.isIdleOrInUse {
                if reader.tryRetire() {
                    retired.append(reader)
                } else if reader.markRetiresWhenGivenBack() {
                    retiringCount += 1
                }
            }
        }
        readers.removeAll()
        if waitingForReads && retiringCount > 0 {
            waiterCount.add(1)
            while retiringCount > 0 { condition.wait() }
            waiterCount.add(-1)
        }
        return retired
    }

    /// The reads in progress, for the WAL report: since when (Dispatch's uptime, in nanoseconds), and whether each
    /// is an observed query's run.
    func activeReads() -> [(since: UInt64, isObservation: Bool)] {
        condition.withLock {
            readers.compactMap { reader in
                let since = reader.readSince.load()
                guard since > 0 else { return nil }
                return (UInt64(since), reader.readIsObservation.load() == 1)
            }
        }
    }

    // MARK: - Suspension

    /// Whether reads are suspended now.
    var isSuspended: Bool { condition.withLock { suspension != nil } }

    /// Refuses new reads (or keeps them waiting, as `accesses` says), interrupts the reads in progress again and
    /// again until they end, then retires the idle readers and returns them, for their connections to be closed.
    func suspend(accesses: SuspendedAccesses) -> [PooledReader] {
        condition.lock()
        defer { condition.unlock() }
        // A closed pool has no reader to let go of, and a close ends a suspension: a reopen() opens for reads.
        if isClosed { return [] }
        suspension = accesses
        updateSlowPath()
        condition.broadcast()
        waiterCount.add(1)
        defer { waiterCount.add(-1) }
        var retired: [PooledReader] = []
        // Until every reader is retired, not merely until none is in use: a read on the fast path takes its cached
        // reader without the lock, idle to in use, before it sees `slowPathOnly` and gives it back. Between the
        // check below and the retiring, such a read makes the reader fail to retire, and it stayed open (a
        // connection holding its -shm lock after suspend() returned).
        while !readers.isEmpty {
            // Again and again: a statement the read starts after an interruption returned is not interrupted.
            while retiringCount > 0 || readers.contains(where: { $0.isInUse }) {
                for reader in readers where reader.isInUse { reader.interrupt() }
                _ = condition.wait(until: MonotonicDeadline(secondsFromNow: 0.01))
            }
            if let hook = readsEndedHook {
                readsEndedHook = nil
                hook(readers)
            }
            retired += retireIdleReaders()
        }
        condition.broadcast()
        return retired
    }

    /// Runs once, in the next ``suspend(accesses:)``, when no read holds a reader, before the idle readers are
    /// retired, with the lock held: a test takes a reader there as a read on the fast path does.
    private var readsEndedHook: (([PooledReader]) -> Void)?

    /// Sets the code ``suspend(accesses:)`` runs once no read holds a reader (tests only).
    func setReadsEndedHook(_ hook: (([PooledReader]) -> Void)?) {
        condition.withLock { readsEndedHook = hook }
    }

    /// Lets reads take readers again after ``suspend(accesses:)``; the waiting ones first.
    func resume() {
        condition.lock()
        suspension = nil
        updateSlowPath()
        condition.broadcast()
        condition.unlock()
    }

    /// Lets reads take readers again after ``close(waitingForReads:)``.
    func reopen() {
        condition.lock()
        isClosed = false
        updateSlowPath()
        condition.broadcast()
        condition.unlock()
    }
}
