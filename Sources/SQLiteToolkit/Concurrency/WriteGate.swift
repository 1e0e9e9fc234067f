import Dispatch

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The cross-process write gate of one connection (``Database/Configuration/usesWriteGate``): two lock files beside
/// the database, taken in the kernel's queue before `BEGIN IMMEDIATE` and given back at commit or rollback, so that
/// writers using it take SQLite's write lock one after another, in the order they asked, instead of racing for it.
///
/// Why two files. The kernel queues blocking lock requests, but when the holder gives a lock back it only wakes the
/// first waiter: until that waiter runs and takes the lock, a process that asks again gets it at once. A writer that
/// commits and begins its next transaction microseconds later does exactly that, and on a loaded machine it kept the
/// others out for up to 61 turns in a row (`scripts/measure-write-gate-fairness`). So a writer first takes the *queue* lock
/// (`DATABASE-writequeue`), then, holding it, the *gate* lock (`DATABASE-writegate`), then gives the queue lock back.
/// Only the holder of the queue lock ever waits for the gate; the writer that just gave the gate back must take the
/// queue lock first, and its request goes behind the ones already waiting there. The gate passes from one writer to
/// the next in the queue's order.
///
/// A wait has a time limit (the connection's busy timeout) but a kernel lock request cannot be taken back: the
/// blocking requests run on a thread of their own, which the connection waits for until the limit. After a time-out
/// the request stays queued: the connection's next transaction waits for it again, and when it is granted with
/// nobody waiting it is given back at once. One such thread at most per connection.
final class WriteGate {
    // The properties are used on the connection's thread only, like the connection itself: no exclusivity checks
    // on the path every write transaction takes.
    /// The two lock files, while no waiting thread has them.
    @exclusivity(unchecked) private var files: WriteGateFiles?
    /// Copies of the locks of ``files``, set and cleared with it: the fast path takes them without touching a
    /// reference count.
    @exclusivity(unchecked) private var queueLock: LockFile?
    @exclusivity(unchecked) private var gateLock: LockFile?
    /// A wait that ran out of time and is still queued in the kernel, or ended with nobody waiting for it.
    @exclusivity(unchecked) private var pending: WriteGateWaiter?
    private let queuePath: String
    private let gatePath: String
    /// Whether this connection holds the gate.
    @exclusivity(unchecked) private(set) var isHeld = false

    /// The gate of the database file at `databasePath`.
    init(databasePath: String) {
        queuePath = databasePath + "-writequeue"
        gatePath = databasePath + "-writegate"
    }

    deinit { close() }

    private func setFiles(_ files: WriteGateFiles?) {
        self.files = files
        queueLock = files?.queue
        gateLock = files?.gate
    }

    /// Takes the gate when nobody holds it or waits for it, or when this connection holds it already: `true`
    /// then. Three system calls when it succeeds (the queue's lock taken and given back, the gate's taken), nothing
    /// else.
    @inline(__always)
    func tryAcquire() -> Bool {
        if isHeld { return true }
        guard let queueLock, let gateLock, queueLock.tryLock() else { return false }
        let took = gateLock.tryLock()
        queueLock.unlock()
        isHeld = took
        return took
    }

    /// Takes the gate, waiting as `busyMode` allows; does nothing when this connection holds it already (a
    /// transaction that SQL text ended, `COMMIT` through `execute`, keeps it until the next one ends).
    ///
    /// - Throws: `SQLITE_BUSY` with ``DatabaseError/Reason/writeGateTimeout`` when the wait ran out of time;
    ///   `SQLITE_CANTOPEN` or `SQLITE_IOERR_LOCK` when the files cannot be opened or locked.
    func acquire(busyMode: Database.BusyMode) throws {
        if tryAcquire() { return }
        if let waiter = pending {
            pending = nil
            if waiter.adopt() {
                try wait(for: waiter, busyMode: busyMode)
                return
            }
            // It ended while nobody waited for it, and closed its files.
        }
        let files = try self.files ?? WriteGateFiles(queuePath: queuePath, gatePath: gatePath)
        setFiles(files)
        let holdsQueue = files.queue.tryLock()
        if holdsQueue && files.gate.tryLock() {
            files.queue.unlock()
            isHeld = true
            return
        }
        if case .immediateError = busyMode {
            if holdsQueue { files.queue.unlock() }
            throw WriteGate.timeoutError(seconds: 0)
        }
        // The files belong to the waiting thread until it ends.
        setFiles(nil)
        let waiter = WriteGateWaiter(files: files)
        waiter.start(holdsQueue: holdsQueue)
        try wait(for: waiter, busyMode: busyMode)
    }

    /// Waits for `waiter` as `busyMode` allows; leaves it in ``pending`` when time runs out.
    private func wait(for waiter: WriteGateWaiter, busyMode: Database.BusyMode) throws {
        let start = DispatchTime.now().uptimeNanoseconds
        var outcome: WriteGateWaiter.Outcome?
        switch busyMode {
        case .immediateError:
            break
        case .timeout(let seconds), .sqliteTimeout(let seconds):
            outcome = waiter.wait(seconds: seconds.isNaN ? 0 : max(0, seconds))
        case .handler(let handler):
            // The handler is asked after every 10 ms of waiting, as SQLite asks it between its tries.
            var retries = 0
            while outcome == nil {
                outcome = waiter.wait(seconds: 0.01)
                if outcome != nil || !handler(retries) { break }
                retries += 1
            }
        }
        if outcome == nil { outcome = waiter.abandon() }
        switch outcome {
        case .acquired(let files):
            setFiles(files)
            isHeld = true
        case .failed(let code, let files):
            setFiles(files)
            throw DatabaseError(
                extendedCode: .ioerrLock, message: "cannot lock the write gate \(gatePath): error \(code)")
        case nil:
            pending = waiter
            throw WriteGate.timeoutError(seconds: Double(DispatchTime.now().uptimeNanoseconds &- start) / 1e9)
        }
    }

    /// Gives the gate back, if this connection holds it.
    @inline(__always)
    func release() {
        guard isHeld else { return }
        isHeld = false
        gateLock?.unlock()
    }

    /// Gives the gate back and closes the files; a thread still waiting closes its files when its request ends.
    func close() {
        release()
        files?.close()
        setFiles(nil)
        pending = nil
    }

    static func timeoutError(seconds: Double) -> DatabaseError {
        let waited = (seconds * 100).rounded() / 100
        return DatabaseError(
            extendedCode: .busy,
            message: "database is locked: the write gate stayed closed for \(waited) s (the busy timeout)",
            reason: .writeGateTimeout)
    }
}

/// The two lock files of a ``WriteGate``. Used by one thread at a time: the connection's, or a waiting thread's
/// until it hands them back through ``WriteGateWaiter``'s lock.
final class WriteGateFiles: @unchecked Sendable {
    // @unchecked Sendable: handed between the connection's thread and a waiting thread under WriteGateWaiter.lock,
    // and used by one of them at a time.
    let queue: LockFile
    let gate: LockFile
    private var isClosed = false

    init(queuePath: String, gatePath: String) throws {
        queue = try LockFile(path: queuePath)
        do {
            gate = try LockFile(path: gatePath)
        } catch {
            queue.close()
            throw error
        }
    }

    deinit { close() }

    /// Closes both files, which gives back their locks. Closing twice does nothing.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        queue.close()
        gate.close()
    }
}

/// One blocking wait for the gate, run on a thread of its own so that the connection can stop waiting.
final class WriteGateWaiter: @unchecked Sendable {
    // @unchecked Sendable: `outcome` and `isAbandoned` are read and written holding `lock`; `files` is used by the
    // waiting thread until it sets `outcome`, and by the connection's thread afterwards.
    enum Outcome {
        case acquired(WriteGateFiles)
        case failed(code: Int32, WriteGateFiles)
    }

    private let lock = Lock()
    private let files: WriteGateFiles
    private var outcome: Outcome?
    /// Whether the connection stopped waiting: a request granted then is given back at once.
    private var isAbandoned = false
    /// Set when the request ended while abandoned: the files are closed.
    private var endedAbandoned = false

    init(files: WriteGateFiles) {
        self.files = files
    }

    /// Starts the thread: takes the queue lock unless `holdsQueue`, then the gate, then gives the queue back.
    func start(holdsQueue: Bool) {
        // A serial queue of its own: Dispatch gives it a thread outside the cooperative pool of Swift's tasks,
        // which a wait of seconds must not hold.
        DispatchQueue(label: "SQLiteToolkit.WriteGate").async { self.run(holdsQueue: holdsQueue) }
    }

    private func run(holdsQueue: Bool) {
        var code = holdsQueue ? 0 : files.queue.lock()
        if code == 0 {
            code = files.gate.lock()
            files.queue.unlock()
        }
        lock.withLock {
            if isAbandoned {
                endedAbandoned = true
                files.close()
            } else {
                outcome = code == 0 ? .acquired(files) : .failed(code: code, files)
            }
            lock.broadcast()
        }
    }

    /// Waits up to `seconds` for the request to end; `nil` when it did not.
    func wait(seconds: Double) -> Outcome? {
        let deadline = MonotonicDeadline(secondsFromNow: seconds)
        return lock.withLock {
            while outcome == nil && lock.wait(until: deadline) {}
            return outcome
        }
    }

    /// Stops waiting: the outcome when the request ended meanwhile, else `nil`, and a grant that comes later is
    /// given back at once.
    func abandon() -> Outcome? {
        lock.withLock {
            if outcome == nil { isAbandoned = true }
            return outcome
        }
    }

    /// Takes an abandoned request back: `true` when it is still queued (the caller waits for it again), `false`
    /// when it ended meanwhile and gave the gate back.
    func adopt() -> Bool {
        lock.withLock {
            guard !endedAbandoned else { return false }
            isAbandoned = false
            return true
        }
    }
}

extension Database {
    /// Takes the write gate, then begins the transaction; gives the gate back when `BEGIN` fails. Without a file
    /// (an in-memory or temporary database) or on a read-only connection, only begins; inside a transaction, leaves
    /// the gate as it is and lets SQLite refuse the `BEGIN`.
    func beginGatedTransaction(_ kind: TransactionKind) throws {
        let wasHeld = writeGate?.isHeld ?? false
        if let writeGate, writeGate.tryAcquire() {
            // The fast path: nobody holds or waits for the gate.
        } else {
            let connection = try connection()
            guard connection.isAutocommit() else {
                try runTransactionStatement(.begin(kind))
                return
            }
            if writeGate == nil, connection.readOnlyState("main") == 0,
                let file = connection.filename(schema: "main"), !file.isEmpty
            {
                writeGate = WriteGate(databasePath: file)
            }
            try writeGate?.acquire(busyMode: busyMode)
        }
        do {
            try runTransactionStatement(.begin(kind))
        } catch {
            // Kept only by the transaction that was open already and took it.
            if !wasHeld || !isInTransaction { writeGate?.release() }
            throw error
        }
    }

    /// Gives the write gate back unless a transaction is still open (a failed `ROLLBACK` leaves it to the next).
    @inline(__always)
    func releaseWriteGate() {
        guard let writeGate, writeGate.isHeld, !isInTransaction else { return }
        writeGate.release()
    }
}
