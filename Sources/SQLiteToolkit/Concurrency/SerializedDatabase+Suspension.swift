#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What an access started while a ``DatabaseQueue`` or ``DatabasePool`` is suspended does.
public enum SuspendedAccesses: Sendable, Hashable {
    /// It throws ``DatabaseError/Reason/suspended`` at once.
    case fail
    /// It waits until ``DatabaseQueue/resume()-72qlc`` (then runs) or a close (then throws
    /// ``DatabaseError/Reason/accessAfterClose``); cancelling an async access's task ends its wait with
    /// `CancellationError`.
    case wait
}

/// Refuses the commits of the access that a suspension interrupts: between two statements (work that is not SQL)
/// `sqlite3_interrupt` fails nothing, and the `COMMIT` that ends the access would then start after it and run.
final class CommitVeto: Sendable {
    // Sendable: `word` is atomic; `error` is immutable.
    private let word = AtomicWord(0)
    private let refusal: DatabaseError

    init(ownerName: String) {
        refusal = DatabaseError(
            extendedCode: .interrupt,
            message:
                "the \(ownerName) was suspended during this access: its transaction was rolled back, not committed",
            reason: .suspended)
    }

    /// The error of a commit refused now, or `nil` when commits run. Read by the connection's commit.
    var error: DatabaseError? { word.load() == 0 ? nil : refusal }

    /// Refuses commits from now on (`true`), or lets them run again.
    func refuse(_ refuses: Bool) { word.store(refuses ? 1 : 0) }
}

extension SerializedDatabase {
    /// A suspension of the connection, from the start of ``suspend(accesses:)`` until ``resume()``.
    struct Suspension {
        var accesses: SuspendedAccesses
        /// Set once the connection is closed (no lock held): a second suspend waits for it before returning.
        var isComplete = false
        /// Set while a resume reopens the connection: another resume waits for it.
        var isResuming = false
        /// How the connection reopens at resume; `nil` when it was not closed (an in-memory database, which holds no
        /// file lock and would lose its content).
        var reopen: PendingReopen?
    }

    /// The error of an access refused during a suspension.
    func suspendedError() -> DatabaseError {
        DatabaseError(
            extendedCode: .busy, message: "the \(ownerName) is suspended: resume() lets accesses run again",
            reason: .suspended)
    }

    /// Whether a suspension began and has not ended.
    var isSuspended: Bool { lock.withLock { suspension != nil } }

    /// `error`, an interruption, with the reason ``DatabaseError/Reason/suspended`` when a suspension interrupted it.
    func markedIfSuspended(_ error: DatabaseError) -> DatabaseError {
        guard isSuspended else { return error }
        var marked = error
        marked.reason = .suspended
        return marked
    }

    /// Refuses new accesses (or keeps them waiting), interrupts the access in progress until it ends, then rolls back
    /// what it left open, resets every statement and closes the SQLite connection, keeping what ``resume()`` needs to
    /// open it again as it was. Returns once no lock on the file is held by this connection. A suspension under way
    /// on another thread is waited for; a suspended connection stays suspended (with `accesses` from now on).
    func suspend(accesses: SuspendedAccesses) throws {
        try checkNotReentrant("suspend()")
        lock.lock()
        if suspension != nil {
            suspension?.accesses = accesses
            lock.broadcast()
            waitingCount += 1
            // A resume under way too: once it reopened the connection, this suspension must close it again.
            while let current = suspension, !current.isComplete || current.isResuming { lock.wait() }
            waitingCount -= 1
            let ended = suspension == nil && acceptsAccesses && database != nil
            lock.unlock()
            // The other suspension failed (it threw, and nothing is suspended) or a resume ended it: this one
            // suspends anew, and says why when it cannot.
            if ended { try suspend(accesses: accesses) }
            return
        }
        suspension = Suspension(accesses: accesses)
        // The accesses waiting for the connection throw now, or wait for the resume.
        lock.broadcast()
        if isBusy {
            waitingCount += 1
            // The access's commit fails too, should it come between two interruptions.
            commitVeto.refuse(true)
            // Again and again: a statement the access starts after an interruption returned is not interrupted.
            while isBusy {
                database?.interruptHandle.interrupt()
                _ = lock.wait(until: MonotonicDeadline(secondsFromNow: 0.01))
            }
            commitVeto.refuse(false)
            waitingCount -= 1
        }
        guard acceptsAccesses, let database, suspension != nil else {
            // Closed meanwhile, or before: no connection holds a lock, and the close ends the suspension (a
            // reopen() opens for accesses, as after a close during a suspension).
            suspension = nil
            lock.broadcast()
            lock.unlock()
            return
        }
        isBusy = true
        lock.unlock()
        let recipe = self.recipe
        let reopen: PendingReopen?
        do {
            reopen = try database.closeForSuspension(setUp: recipe.setUp, configuration: recipe.configuration)
        } catch {
            lock.withLock { suspension = nil }
            checkIn()
            throw error
        }
        lock.withLock {
            suspension?.reopen = reopen
            suspension?.isComplete = true
        }
        // Wakes the waiters, every one of which counted itself: a second suspend, a resume, a close.
        checkIn()
    }

    /// Opens the connection a suspension closed, as it was, and lets accesses run again (the waiting ones first).
    /// Does nothing when the connection is not suspended. When the reopen fails, the connection stays suspended and
    /// the error is thrown: a later resume tries again.
    func resume(filesChanged: Bool = false) throws {
        try checkNotReentrant("resume()")
        lock.lock()
        waitingCount += 1
        while let current = suspension, !current.isComplete || current.isResuming { lock.wait() }
        waitingCount -= 1
        guard let current = suspension else {
            lock.unlock()
            return
        }
        guard let reopen = current.reopen, let database else {
            suspension = nil
            lock.broadcast()
            lock.unlock()
            return
        }
        suspension?.isResuming = true
        // A close now waits for the reopen, as for an access.
        isBusy = true
        lock.unlock()
        var failure: (any Error)?
        // The set-up hook runs as inside an access: an access to this queue there throws the re-entry error.
        if let list = ThreadAccesses.enter(identity) {
            do {
                try database.reopenInPlace(reopen)
                // Another process wrote while no connection was open: the watch's next look tells the observers.
                if filesChanged, database.observation.watchesExternalChanges { database.observation.dataVersion = nil }
            } catch {
                failure = error
            }
            ThreadAccesses.leave(identity, from: list)
        } else {
            failure = ThreadAccesses.reentryError("resume()", ownerName: ownerName)
        }
        lock.withLock {
            if failure == nil {
                suspension = nil
            } else {
                suspension?.isResuming = false
            }
            lock.broadcast()
        }
        checkIn()
        if let failure { throw failure }
    }
}

extension SerializedDatabase {
    /// Records the database's files once a suspension closed every connection of the queue or pool.
    func recordFilesAtSuspension() {
        let path = recipe.path
        filesAtSuspension.withLock { $0 = FileSignature(databasePath: path) }
    }

    /// Whether the database's files changed since ``recordFilesAtSuspension()``: another process wrote.
    func filesChangedSinceSuspension() -> Bool {
        let path = recipe.path
        guard let recorded = filesAtSuspension.withLock({ $0 }) else { return false }
        return recorded != FileSignature(databasePath: path)
    }
}

/// The size, modification time and file number of a database file, its `-wal` and its `-journal`: what changes when
/// another process writes while this one has no connection open, so that `PRAGMA data_version` cannot tell.
struct FileSignature: Equatable, Sendable {
    struct Entry: Equatable, Sendable {
        var size: UInt64
        var modified: Double
        var fileNumber: UInt64
    }
    var entries: [Entry?]

    /// `nil` for an in-memory or temporary database, or a URI (whose file the toolkit does not resolve here).
    init?(databasePath path: String) {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else { return nil }
        entries = [path, path + "-wal", path + "-journal"].map { name in
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: name) else { return nil }
            return Entry(
                size: Self.number(attributes[.size]),
                modified: (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0,
                fileNumber: Self.number(attributes[.systemFileNumber]))
        }
    }

    /// A file attribute's number, whichever integer type the platform's Foundation gives it as.
    private static func number(_ value: Any?) -> UInt64 {
        if let value = value as? UInt64 { return value }
        if let value = value as? Int { return UInt64(clamping: value) }
        if let value = value as? UInt { return UInt64(value) }
        if let value = value as? Int64 { return UInt64(clamping: value) }
        return 0
    }
}
