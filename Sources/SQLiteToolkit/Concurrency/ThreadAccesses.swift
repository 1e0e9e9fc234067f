#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The queues and pools whose accesses the calling thread is inside: the one re-entry check of the toolkit.
///
/// An access to a queue or a pool records its owner here for as long as it runs, and an access, `close()` or
/// `reopen()` started on a thread that is inside an access to the same owner throws
/// ``DatabaseError/Reason/reentrantAccess`` instead of waiting for itself. Kept per thread (in thread-local
/// storage), so checking and recording takes no lock that other threads use: a lock shared by every access made
/// the pool's writer wait behind the readers' bookkeeping.
///
/// An async access that runs in place runs its synchronous body without suspending, so it starts and ends on one
/// thread, like a blocking one.
enum ThreadAccesses {
    /// Records that the calling thread entered an access to `owner`, and returns the record for
    /// ``leave(_:from:)``; `nil`, recording nothing, when the thread is inside an access to `owner` already.
    @inline(__always)
    static func enter(_ owner: ObjectIdentifier) -> ThreadAccessRecord? {
        let list = ThreadAccessList.current()
        let entered = list._withUnsafeGuaranteedRef { list in
            if list.contains(owner) { return false }
            list.push(owner)
            return true
        }
        return entered ? ThreadAccessRecord(list: list) : nil
    }

    /// Records that the calling thread left its innermost access to `owner`.
    @inline(__always)
    static func leave(_ owner: ObjectIdentifier, from record: ThreadAccessRecord) {
        let isUnused = record.list._withUnsafeGuaranteedRef { list in
            list.pop(owner)
            return list.isFallback && list.isEmpty
        }
        if isUnused { fallbackLists.remove(record.list.takeUnretainedValue()) }
    }

    /// Whether the calling thread is inside an access to `owner`.
    static func contains(_ owner: ObjectIdentifier) -> Bool {
        withCurrentList { $0.contains(owner) }
    }

    /// Runs `body` with the calling thread's list, for checks and its reader cache (not for entering an access,
    /// which ``enter(_:)`` records). The list is borrowed, unretained: its thread-local slot keeps it.
    @inline(__always)
    static func withCurrentList<T>(_ body: (ThreadAccessList) throws -> T) rethrows -> T {
        let list = ThreadAccessList.current()
        return try list._withUnsafeGuaranteedRef { list in
            defer { if list.isFallback, list.isEmpty { fallbackLists.remove(list) } }
            return try body(list)
        }
    }

    /// The error of an access, `close()` or `reopen()` started inside an access to the same owner.
    static func reentryError(_ what: String, ownerName: String) -> DatabaseError {
        DatabaseError.misuse(
            "\(what) inside an access to the same \(ownerName) would wait for itself; "
                + "use the Database the enclosing access received", reason: .reentrantAccess)
    }
}

/// What ``ThreadAccesses/enter(_:)`` recorded: the calling thread's list, unretained. The thread-local slot (or the
/// fallback table) holds the list for longer than any access, so an access needs no retain and no release of it.
struct ThreadAccessRecord {
    let list: Unmanaged<ThreadAccessList>
}

/// One thread's accesses, innermost last, and the readers it used last; touched only by that thread. Nesting is rare
/// and shallow, so the owners of the innermost access and of the one around it are kept inline and deeper ones in an
/// array.
///
/// The reader cache: for the last two pools the thread read from, the reader it used, so that its next read of that
/// pool can take the same reader back without the pool's lock (see ``DatabasePool``). Keyed by the pool's
/// ``DatabasePool/poolID``, never reused in the process, so an entry of a pool that is gone matches no other pool; it
/// keeps only a reader object, whose connection the pool closed. Two entries, not one, so a thread that alternates
/// between two pools keeps both.
final class ThreadAccessList {
    // Unchecked exclusivity: only the list's own thread touches it, one access at a time, and the dynamic check
    // (a thread-local lookup per access) cost more than the rest of the list's bookkeeping.
    @exclusivity(unchecked) private var innermost: ObjectIdentifier?
    @exclusivity(unchecked) private var outer: [ObjectIdentifier] = []
    @exclusivity(unchecked) private var recentPoolID = 0
    @exclusivity(unchecked) private var recentReader: PooledReader?
    @exclusivity(unchecked) private var previousPoolID = 0
    @exclusivity(unchecked) private var previousReader: PooledReader?
    /// Unused: keeps the fields above, which this thread writes on every access, off the cache lines of the object
    /// allocated next, which may be another thread's list (false sharing would make the two threads wait for each
    /// other's writes).
    private let padding: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) = (
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
    )
    /// Whether the list lives in ``fallbackLists`` (no thread-local storage was available) rather than in the thread.
    let isFallback: Bool
    /// The thread the list belongs to, for ``fallbackLists``.
    let thread: UInt

    init(isFallback: Bool, thread: UInt) {
        self.isFallback = isFallback
        self.thread = thread
    }

    var isEmpty: Bool { innermost == nil }

    /// The reader this thread used last for the pool `poolID`, if it is one of the last two pools it read from.
    @inline(__always)
    func cachedReader(of poolID: Int) -> PooledReader? {
        if recentPoolID == poolID { return recentReader }
        if previousPoolID == poolID { return previousReader }
        return nil
    }

    /// Records `reader` as the one this thread used last for the pool `poolID`.
    func cacheReader(_ reader: PooledReader, of poolID: Int) {
        if recentPoolID != poolID {
            previousPoolID = recentPoolID
            previousReader = recentReader
            recentPoolID = poolID
        }
        recentReader = reader
    }

    @inline(__always)
    func contains(_ owner: ObjectIdentifier) -> Bool {
        guard let innermost else { return false }
        return innermost == owner || (!outer.isEmpty && outer.contains(owner))
    }

    @inline(__always)
    func push(_ owner: ObjectIdentifier) {
        if let innermost { outer.append(innermost) }
        innermost = owner
    }

    @inline(__always)
    func pop(_ owner: ObjectIdentifier) {
        // Accesses end in the order opposite to their start, so `owner` is the innermost one.
        innermost = outer.popLast()
    }

    /// The calling thread's list, made on its first access; unretained, since its thread keeps it.
    @inline(__always)
    static func current() -> Unmanaged<ThreadAccessList> {
        if let key = threadAccessListKey, let pointer = ThreadLocalSlot.get(key) {
            return Unmanaged<ThreadAccessList>.fromOpaque(pointer)
        }
        return makeCurrent()
    }

    @inline(never)
    private static func makeCurrent() -> Unmanaged<ThreadAccessList> {
        if let key = threadAccessListKey {
            let list = Unmanaged.passRetained(ThreadAccessList(isFallback: false, thread: 0))
            if ThreadLocalSlot.set(key, list.toOpaque()) { return list }
            list.release()
        }
        return Unmanaged.passUnretained(fallbackLists.list(of: ThreadLocalSlot.currentThreadID()))
    }
}

/// The thread-local storage key of the lists, or `nil` when the process ran out of keys (then ``fallbackLists``
/// serves).
private let threadAccessListKey: ThreadLocalSlot.Key? = ThreadLocalSlot.makeKey()

/// The lists by thread, when thread-local storage is not available.
private let fallbackLists = FallbackThreadAccessLists()

private final class FallbackThreadAccessLists: @unchecked Sendable {
    // @unchecked Sendable: `lists` is read and written only while holding `lock`; each list is then used only by its
    // own thread.
    private let lock = Lock()
    private var lists: [UInt: ThreadAccessList] = [:]

    func list(of thread: UInt) -> ThreadAccessList {
        lock.withLock {
            if let list = lists[thread] { return list }
            let list = ThreadAccessList(isFallback: true, thread: thread)
            lists[thread] = list
            return list
        }
    }

    /// Forgets an empty list, so a process that makes many threads does not keep one per thread it ever had.
    func remove(_ list: ThreadAccessList) {
        lock.withLock { _ = lists.removeValue(forKey: list.thread) }
    }
}
