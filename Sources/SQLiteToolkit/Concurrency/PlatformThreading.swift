#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if os(Windows)
    import WinSDK
#elseif canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

// The platform's threading primitives the concurrency core is built on, in one file so that its platform imports
// are in one place: the lock every queue and pool uses, and the thread-local slot of the re-entry check.

/// The one lock of the toolkit: a mutex with a condition variable, for the state the queues and pools share between
/// threads. Every `@unchecked Sendable` type of the toolkit names the `Lock` that protects its state.
///
/// Why not `Synchronization.Mutex`: it needs macOS 15, iOS 18, tvOS 18 and watchOS 11, above the deployment targets
/// the package supports, and it has no condition variable, which a queue's and a pool's waiting accesses need. Why
/// not `NSLock` and `NSCondition`: they are Foundation classes (not in `FoundationEssentials`), and two types where
/// one serves. This one is the platform's own mutex and condition variable: `pthread_mutex_t` and `pthread_cond_t`
/// on Apple platforms, Linux (glibc and musl) and Android; `SRWLOCK` and `CONDITION_VARIABLE` on Windows. Both are
/// allocated once, at a stable address, since neither may move after it is initialized.
final class Lock: @unchecked Sendable {
    // @unchecked Sendable: the mutex and the condition variable are made to be shared between threads.
    #if os(Windows)
        private let mutex: UnsafeMutablePointer<SRWLOCK>
        private let condition: UnsafeMutablePointer<CONDITION_VARIABLE>
    #else
        private let mutex: UnsafeMutablePointer<pthread_mutex_t>
        private let condition: UnsafeMutablePointer<pthread_cond_t>
    #endif

    init() {
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        #if os(Windows)
            InitializeSRWLock(mutex)
            InitializeConditionVariable(condition)
        #else
            // Neither call can fail with default attributes but for lack of memory, which allocation would have
            // met first.
            _ = pthread_mutex_init(mutex, nil)
            _ = pthread_cond_init(condition, nil)
        #endif
    }

    deinit {
        #if !os(Windows)
            pthread_cond_destroy(condition)
            pthread_mutex_destroy(mutex)
        #endif
        condition.deallocate()
        mutex.deallocate()
    }

    /// Takes the lock, waiting while another thread holds it.
    @inline(__always)
    func lock() {
        #if os(Windows)
            AcquireSRWLockExclusive(mutex)
        #else
            pthread_mutex_lock(mutex)
        #endif
    }

    /// Gives the lock back.
    @inline(__always)
    func unlock() {
        #if os(Windows)
            ReleaseSRWLockExclusive(mutex)
        #else
            pthread_mutex_unlock(mutex)
        #endif
    }

    /// Runs `body` holding the lock.
    @inline(__always)
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Called holding the lock: gives it back until ``signal()`` or ``broadcast()`` wakes this thread (or a spurious
    /// wake-up does: callers wait in a loop over their condition), then takes it again.
    func wait() {
        #if os(Windows)
            _ = SleepConditionVariableSRW(condition, mutex, INFINITE, 0)
        #else
            pthread_cond_wait(condition, mutex)
        #endif
    }

    /// ``wait()`` until `deadline` at the latest: `false` when the deadline passed without a wake-up.
    func wait(until deadline: Date) -> Bool {
        let seconds = deadline.timeIntervalSinceNow
        guard seconds > 0 else { return false }
        #if os(Windows)
            // The wait is in whole milliseconds, below INFINITE (which means no deadline).
            let milliseconds = DWORD(min((seconds * 1000).rounded(.up), Double(INFINITE - 1)))
            // Swift imports a function's Windows `BOOL` result as `Bool`: `false` on a time-out (`ERROR_TIMEOUT`).
            return SleepConditionVariableSRW(condition, mutex, milliseconds, 0)
        #else
            // pthread_cond_timedwait takes an absolute CLOCK_REALTIME time, the clock `Date` reads. The fields' types
            // differ by platform (`time_t` and `long`: 32 bits on watchOS's arm64_32 and 32-bit Android, 64 bits
            // elsewhere), so each is clamped to its own type's range rather than converted to `Int`, which would trap
            // for a far deadline (`Date.distantFuture`) where `Int` is 32 bits.
            let absolute = deadline.timeIntervalSince1970
            let whole = absolute.rounded(.down)
            var time = timespec()
            time.tv_sec = clampedInteger(whole)
            time.tv_nsec = clampedInteger(min((absolute - whole) * 1_000_000_000, 999_999_999))
            return pthread_cond_timedwait(condition, mutex, &time) == 0
        #endif
    }

    /// Wakes one thread waiting in ``wait()``. Called holding the lock.
    func signal() {
        #if os(Windows)
            WakeConditionVariable(condition)
        #else
            pthread_cond_signal(condition)
        #endif
    }

    /// Wakes every thread waiting in ``wait()``. Called holding the lock.
    func broadcast() {
        #if os(Windows)
            WakeAllConditionVariable(condition)
        #else
            pthread_cond_broadcast(condition)
        #endif
    }
}

/// Thread-local storage for ``ThreadAccesses``: a slot per thread holding a retained ``ThreadAccessList``, released
/// when its thread ends. pthread keys on Apple platforms, Linux and Android; fiber-local storage on Windows.
enum ThreadLocalSlot {
    #if os(Windows)
        typealias Key = DWORD

        static func makeKey() -> Key? {
            // Fiber-local storage: unlike TlsAlloc, it calls a destructor when the thread (or fiber) ends.
            let key = FlsAlloc { pointer in
                guard let pointer else { return }
                Unmanaged<ThreadAccessList>.fromOpaque(pointer).release()
            }
            // FLS_OUT_OF_INDEXES is `((DWORD)0xFFFFFFFF)`, a macro with a cast: compared by value so it does not
            // depend on the importer's handling of casts in macros.
            return key == DWORD.max ? nil : key
        }

        @inline(__always)
        static func get(_ key: Key) -> UnsafeMutableRawPointer? { FlsGetValue(key) }

        static func set(_ key: Key, _ value: UnsafeMutableRawPointer) -> Bool { FlsSetValue(key, value) }

        static func currentThreadID() -> UInt { UInt(GetCurrentThreadId()) }
    #else
        typealias Key = pthread_key_t

        static func makeKey() -> Key? {
            var key = pthread_key_t()
            guard pthread_key_create(&key, releaseList) == 0 else { return nil }
            return key
        }

        @inline(__always)
        static func get(_ key: Key) -> UnsafeMutableRawPointer? { pthread_getspecific(key) }

        static func set(_ key: Key, _ value: UnsafeMutableRawPointer) -> Bool { pthread_setspecific(key, value) == 0 }

        static func currentThreadID() -> UInt {
            // `pthread_t` is a different type on each C library: an `unsigned long` on glibc, a `long` on Bionic
            // (Android), a pointer to an opaque struct on Darwin and on musl (imported as `OpaquePointer`). A
            // conversion that cannot trap for each: a Bionic `pthread_t` is an address and may have its top bit set
            // (tagged pointers), so it is reinterpreted, not converted.
            #if canImport(Glibc) && !os(Android)
                UInt(pthread_self())
            #else
                UInt(bitPattern: pthread_self())
            #endif
        }
    #endif
}

#if !os(Windows)
    /// `value` rounded down and clamped to the range of the integer type the caller assigns it to (a field of
    /// `timespec`), so a far deadline waits as long as the type allows instead of trapping.
    func clampedInteger<Integer: FixedWidthInteger>(_ value: Double) -> Integer {
        if value.isNaN { return 0 }
        // `Double(Integer.max)` rounds up to a power of two for 64-bit types, one past the largest value: compare with
        // `>=` so that value clamps too.
        if value >= Double(Integer.max) { return Integer.max }
        if value <= Double(Integer.min) { return Integer.min }
        return Integer(value.rounded(.down))
    }
#endif

// The destructor's parameter is non-optional in Darwin's `pthread_key_create` and optional in glibc's, musl's and
// Bionic's.
#if canImport(Darwin)
    private func releaseList(_ pointer: UnsafeMutableRawPointer) {
        Unmanaged<ThreadAccessList>.fromOpaque(pointer).release()
    }
#elseif !os(Windows)
    private func releaseList(_ pointer: UnsafeMutableRawPointer?) {
        guard let pointer else { return }
        Unmanaged<ThreadAccessList>.fromOpaque(pointer).release()
    }
#endif
