import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The pools whose accesses the calling thread is inside, for ``DatabasePool``'s re-entry check.
///
/// Kept per thread (in thread-specific storage), so checking and recording an access takes no lock that other
/// threads use: a pool-wide lock taken by every access made the writer wait behind the readers' bookkeeping, and a
/// writer that waits for a lock on a machine whose cores the readers keep busy waits for a whole scheduling slice.
enum ThreadAccesses {
    /// Whether the calling thread is inside an access to `owner`.
    static func contains(_ owner: ObjectIdentifier) -> Bool {
        withList { $0.owners.contains(owner) }
    }

    /// Records that the calling thread entered an access to `owner`.
    static func enter(_ owner: ObjectIdentifier) {
        withList { $0.owners.append(owner) }
    }

    /// Records that the calling thread left its innermost access to `owner`.
    static func leave(_ owner: ObjectIdentifier) {
        withList { list in
            if let index = list.owners.lastIndex(of: owner) { list.owners.remove(at: index) }
        }
    }

    private static func withList<T>(_ body: (ThreadAccessList) -> T) -> T {
        if let key = threadAccessListKey {
            if let pointer = pthread_getspecific(key) {
                return body(Unmanaged<ThreadAccessList>.fromOpaque(pointer).takeUnretainedValue())
            }
            let list = ThreadAccessList()
            if pthread_setspecific(key, Unmanaged.passRetained(list).toOpaque()) == 0 { return body(list) }
            Unmanaged.passUnretained(list).release()
        }
        return fallbackLists.withList(of: currentThreadID(), body)
    }
}

/// One thread's list; touched only by that thread.
final class ThreadAccessList {
    var owners: [ObjectIdentifier] = []
}

/// The thread-specific storage key, or `nil` when the process ran out of keys (then ``fallbackLists`` serves).
private let threadAccessListKey: pthread_key_t? = {
    var key = pthread_key_t()
    guard pthread_key_create(&key, releaseThreadAccessList) == 0 else { return nil }
    return key
}()

#if canImport(Darwin)
    private func releaseThreadAccessList(_ pointer: UnsafeMutableRawPointer) {
        Unmanaged<ThreadAccessList>.fromOpaque(pointer).release()
    }
#else
    private func releaseThreadAccessList(_ pointer: UnsafeMutableRawPointer?) {
        guard let pointer else { return }
        Unmanaged<ThreadAccessList>.fromOpaque(pointer).release()
    }
#endif

/// The lists by thread, when thread-specific storage is not available.
private let fallbackLists = FallbackThreadAccessLists()

private final class FallbackThreadAccessLists: @unchecked Sendable {
    // @unchecked Sendable: `lists` is read and written only while holding `lock`; each list is then used only by its
    // own thread.
    private let lock = NSLock()
    private var lists: [UInt: ThreadAccessList] = [:]

    func withList<T>(of thread: UInt, _ body: (ThreadAccessList) -> T) -> T {
        let list = lock.withLock {
            if let list = lists[thread] { return list }
            let list = ThreadAccessList()
            lists[thread] = list
            return list
        }
        let result = body(list)
        if list.owners.isEmpty { lock.withLock { _ = lists.removeValue(forKey: thread) } }
        return result
    }
}
