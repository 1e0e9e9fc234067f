import Foundation

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
    /// Records that the calling thread entered an access to `owner`, and returns its list for ``leave(_:from:)``;
    /// `nil`, recording nothing, when the thread is inside an access to `owner` already.
    @inline(__always)
    static func enter(_ owner: ObjectIdentifier) -> ThreadAccessList? {
        let list = ThreadAccessList.current()
        if list.contains(owner) { return nil }
        list.push(owner)
        return list
    }

    /// Records that the calling thread left its innermost access to `owner`.
    @inline(__always)
    static func leave(_ owner: ObjectIdentifier, from list: ThreadAccessList) {
        list.pop(owner)
        if list.isFallback, list.isEmpty { fallbackLists.remove(list) }
    }

    /// Whether the calling thread is inside an access to `owner`.
    static func contains(_ owner: ObjectIdentifier) -> Bool {
        withCurrentList { $0.contains(owner) }
    }

    /// Runs `body` with the calling thread's list, for checks and its reader cache (not for entering an access,
    /// which ``enter(_:)`` records).
    @inline(__always)
    static func withCurrentList<T>(_ body: (ThreadAccessList) throws -> T) rethrows -> T {
        let list = ThreadAccessList.current()
        defer { if list.isFallback, list.isEmpty { fallbackLists.remove(list) } }
        return try body(list)
    }

    /// The error of an access, `close()` or `reopen()` started inside an access to the same owner.
    static func reentryError(_ what: String, ownerName: String) -> DatabaseError {
        DatabaseError.misuse(
            "\(what) inside an access to the same \(ownerName) would wait for itself; "
                + "use the Database the enclosing access received", reason: .reentrantAccess)
    }
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
    private var innermost: ObjectIdentifier?
    private var outer: [ObjectIdentifier] = []
    private var recentPoolID = 0
    private var recentReader: PooledReader?
    private var previousPoolID = 0
    private var previousReader: PooledReader?
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

    /// The calling thread's list, made on its first access.
    @inline(__always)
    static func current() -> ThreadAccessList {
        if let key = threadAccessListKey, let pointer = ThreadLocalSlot.get(key) {
            return Unmanaged<ThreadAccessList>.fromOpaque(pointer).takeUnretainedValue()
        }
        return makeCurrent()
    }

    @inline(never)
    private static func makeCurrent() -> ThreadAccessList {
        if let key = threadAccessListKey {
            let list = ThreadAccessList(isFallback: false, thread: 0)
            if ThreadLocalSlot.set(key, Unmanaged.passRetained(list).toOpaque()) { return list }
            Unmanaged.passUnretained(list).release()
        }
        return fallbackLists.list(of: ThreadLocalSlot.currentThreadID())
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
