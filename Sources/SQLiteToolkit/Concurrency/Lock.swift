// DispatchTime: the monotonic clock of every platform Swift runs on.
import Dispatch

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

/// The one lock of the toolkit: a mutex with a condition variable, for the state the queues and pools share between
/// threads. Every `@unchecked Sendable` type of the toolkit names the `Lock` that protects its state.
///
/// Why not `Synchronization.Mutex`: it needs macOS 15, iOS 18, tvOS 18 and watchOS 11, above the deployment targets
/// the package supports, and it has no condition variable, which a queue's and a pool's waiting accesses need. Why
/// not `NSLock` and `NSCondition`: they are Foundation classes (not in `FoundationEssentials`), and two types where
/// one serves. This one is the platform's own mutex and condition variable: `pthread_mutex_t` and `pthread_cond_t`
/// on Apple platforms, Linux (glibc and musl) and Android; `SRWLOCK` and `CONDITION_VARIABLE` on Windows. Both are
/// allocated once, at a stable address, since neither may move after it is initialized.
///
/// The pthread calls' results are checked: a non-zero one means the lock was misused (given back by a thread that
/// does not hold it, taken twice by one thread), which is a bug of the toolkit, never of its caller, so it stops the
/// program with the call and its error number rather than carry on with shared state unprotected. Debug builds use
/// an error-checking mutex, which reports those misuses where a normal mutex would deadlock or do nothing. Timed
/// waits measure time on the monotonic clock, so setting the system's clock neither stretches nor cuts them.
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
            var mutexAttributes = pthread_mutexattr_t()
            Lock.check(pthread_mutexattr_init(&mutexAttributes), "pthread_mutexattr_init")
            #if DEBUG
                Lock.check(
                    pthread_mutexattr_settype(&mutexAttributes, Int32(PTHREAD_MUTEX_ERRORCHECK)),
                    "pthread_mutexattr_settype")
            #endif
            Lock.check(pthread_mutex_init(mutex, &mutexAttributes), "pthread_mutex_init")
            pthread_mutexattr_destroy(&mutexAttributes)

            var conditionAttributes = pthread_condattr_t()
            Lock.check(pthread_condattr_init(&conditionAttributes), "pthread_condattr_init")
            #if !canImport(Darwin)
                // Darwin has no clock attribute: its timed wait uses the relative form, which is monotonic.
                Lock.check(
                    pthread_condattr_setclock(&conditionAttributes, clockid_t(CLOCK_MONOTONIC)),
                    "pthread_condattr_setclock")
            #endif
            Lock.check(pthread_cond_init(condition, &conditionAttributes), "pthread_cond_init")
            pthread_condattr_destroy(&conditionAttributes)
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

    #if !os(Windows)
        /// Stops the program when a pthread call failed: the lock was misused, a bug of the toolkit.
        @inline(__always)
        private static func check(_ result: Int32, _ call: StaticString) {
            precondition(result == 0, "SQLiteToolkit's lock misused: \(call) failed with error \(result)")
        }
    #endif

    /// Takes the lock, waiting while another thread holds it.
    @inline(__always)
    func lock() {
        #if os(Windows)
            AcquireSRWLockExclusive(mutex)
        #else
            Lock.check(pthread_mutex_lock(mutex), "pthread_mutex_lock")
        #endif
    }

    /// Gives the lock back.
    @inline(__always)
    func unlock() {
        #if os(Windows)
            ReleaseSRWLockExclusive(mutex)
        #else
            Lock.check(pthread_mutex_unlock(mutex), "pthread_mutex_unlock")
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
            Lock.check(pthread_cond_wait(condition, mutex), "pthread_cond_wait")
        #endif
    }

    /// ``wait()`` until `deadline` at the latest: `false` when the deadline passed without a wake-up.
    func wait(until deadline: MonotonicDeadline) -> Bool {
        let remaining = deadline.remainingNanoseconds
        guard remaining > 0 else { return false }
        #if os(Windows)
            // The wait is in whole milliseconds, below INFINITE (which means no deadline).
            let milliseconds = DWORD(min(remaining / 1_000_000 + 1, UInt64(INFINITE - 1)))
            // Swift imports a function's Windows `BOOL` result as `Bool`: `false` on a time-out (`ERROR_TIMEOUT`).
            return SleepConditionVariableSRW(condition, mutex, milliseconds, 0)
        #elseif canImport(Darwin)
            var relative = timespec()
            relative.tv_sec = clampedInteger(Double(remaining / 1_000_000_000))
            relative.tv_nsec = clampedInteger(Double(remaining % 1_000_000_000))
            let result = pthread_cond_timedwait_relative_np(condition, mutex, &relative)
            if result != ETIMEDOUT { Lock.check(result, "pthread_cond_timedwait_relative_np") }
            return result == 0
        #else
            // An absolute time on CLOCK_MONOTONIC, the clock `init` gave the condition variable. The fields' types
            // differ by platform (`time_t` is 32 bits on 32-bit Android), so each is clamped to its own type's range
            // rather than converted, which would trap for a far deadline.
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let nanoseconds = Double(now.tv_nsec) + Double(remaining % 1_000_000_000)
            let seconds = Double(now.tv_sec) + Double(remaining / 1_000_000_000) + (nanoseconds / 1e9).rounded(.down)
            var time = timespec()
            time.tv_sec = clampedInteger(seconds)
            time.tv_nsec = clampedInteger(nanoseconds.truncatingRemainder(dividingBy: 1e9))
            let result = pthread_cond_timedwait(condition, mutex, &time)
            if result != ETIMEDOUT { Lock.check(result, "pthread_cond_timedwait") }
            return result == 0
        #endif
    }

    /// Wakes one thread waiting in ``wait()``. Called holding the lock.
    func signal() {
        #if os(Windows)
            WakeConditionVariable(condition)
        #else
            Lock.check(pthread_cond_signal(condition), "pthread_cond_signal")
        #endif
    }

    /// Wakes every thread waiting in ``wait()``. Called holding the lock.
    func broadcast() {
        #if os(Windows)
            WakeAllConditionVariable(condition)
        #else
            Lock.check(pthread_cond_broadcast(condition), "pthread_cond_broadcast")
        #endif
    }
}

/// A moment on the monotonic clock (Dispatch's uptime), for the waits that have a time limit: a reader of a pool,
/// the write gate. Unlike `Date`, it does not move when the system's clock is set.
struct MonotonicDeadline: Sendable {
    /// The moment, in nanoseconds of `DispatchTime`'s uptime clock.
    let uptimeNanoseconds: UInt64

    /// `seconds` from now; a negative or NaN duration is now, and one too long for the clock is the clock's end.
    init(secondsFromNow seconds: Double) {
        let now = DispatchTime.now().uptimeNanoseconds
        guard seconds > 0 else {
            uptimeNanoseconds = now
            return
        }
        let nanoseconds = seconds * 1e9
        // `Double(UInt64.max)` rounds up to 2^64, one past the largest value: `>=` clamps that too.
        guard nanoseconds < Double(UInt64.max - now) else {
            uptimeNanoseconds = UInt64.max
            return
        }
        uptimeNanoseconds = now + UInt64(nanoseconds)
    }

    /// The nanoseconds left until the deadline; 0 once it passed.
    var remainingNanoseconds: UInt64 {
        let now = DispatchTime.now().uptimeNanoseconds
        return uptimeNanoseconds > now ? uptimeNanoseconds - now : 0
    }

    /// Whether the deadline has passed.
    var hasPassed: Bool { remainingNanoseconds == 0 }
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

/// A value behind a ``Lock``, for small shared state that needs no condition variable of its own.
final class LockedState<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is read and written only while holding `lock`.
    private let lock = Lock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock.
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
