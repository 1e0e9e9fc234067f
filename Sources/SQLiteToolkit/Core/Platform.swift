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

// Every call of the toolkit into the C library and the operating system, in one file so that the platform imports
// stand in one place (but for the file calls of the atomic key change, in PlatformFileReplacement.swift): the lock
// every queue and pool uses, the thread-local slot of the re-entry check, the file read of the header check, the
// zeroing of key bytes, the file locks of the write gate, and giving up the thread's time slice.

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

/// The file calls the toolkit makes below Foundation: stdio's reads (`FileHandle`'s throwing reads need newer Apple
/// platforms than the package's), each failure a ``DatabaseError`` with the C library's reason.
enum PlatformFiles {
    /// The first `count` bytes of the file at `path` (fewer when it is shorter).
    static func prefix(ofFileAt path: String, count: Int) throws -> [UInt8] {
        guard let file = fopen(path, "rb") else {
            throw DatabaseError(extendedCode: .cantopen, message: "cannot open \(path): \(lastErrorDescription())")
        }
        defer { fclose(file) }
        var buffer = [UInt8](repeating: 0, count: count)
        let read = fread(&buffer, 1, buffer.count, file)
        if ferror(file) != 0 {
            throw DatabaseError(extendedCode: .ioerr, message: "cannot read \(path)")
        }
        return Array(buffer.prefix(read))
    }

    /// The C library's description of `errno`.
    static func lastErrorDescription() -> String {
        String(cString: strerror(errno))
    }
}

/// Gives the rest of the calling thread's time slice to another thread: `sched_yield` where POSIX has it,
/// `SwitchToThread` on Windows. For a wait of a few instructions on another thread (an interruption in progress).
func yieldThread() {
    #if os(Windows)
        _ = SwitchToThread()
    #else
        _ = sched_yield()
    #endif
}

/// Overwrites `bytes` with zeros in a way the optimizer cannot drop as a dead store: each platform's own function
/// for it (C11's `memset_s` on Darwin, `explicit_bzero` in glibc and musl, `RtlSecureZeroMemory` on Windows).
/// Bionic has neither `explicit_bzero` nor `memset_s`, and its `memset_explicit` needs API level 34: on Android the
/// zeroing goes through a `memset` the compiler cannot see (looked up at run time), which it cannot remove either.
func zeroBytes(_ bytes: UnsafeMutableRawBufferPointer) {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
    #if os(Windows)
        // `SecureZeroMemory` is a macro, which Swift does not import; this is the inline function it names.
        _ = RtlSecureZeroMemory(base, SIZE_T(bytes.count))
    #elseif canImport(Darwin)
        _ = memset_s(base, bytes.count, 0, bytes.count)
    #elseif os(Android)
        if let opaqueMemset {
            _ = opaqueMemset(base, 0, bytes.count)
        } else {
            memset(base, 0, bytes.count)
        }
    #else
        explicit_bzero(base, bytes.count)
    #endif
}

#if os(Android)
    /// `memset_explicit` where the device has it (API level 34), else `memset`, called through a pointer found at run
    /// time, so the optimizer knows nothing of the call and keeps it; `nil` when neither is found.
    ///
    /// `nonisolated(unsafe)`: a global `let`, initialized once (thread-safely) and only read afterwards.
    nonisolated(unsafe) private let opaqueMemset:
        (@convention(c) (UnsafeMutableRawPointer?, Int32, Int) -> UnsafeMutableRawPointer?)? = {
            guard let libc = dlopen("libc.so", RTLD_NOW),
                let symbol = dlsym(libc, "memset_explicit") ?? dlsym(libc, "memset")
            else { return nil }
            return unsafeBitCast(
                symbol, to: (@convention(c) (UnsafeMutableRawPointer?, Int32, Int) -> UnsafeMutableRawPointer?).self)
        }()
#endif

/// A file whose whole-file lock the write gate takes (see `WriteGate`): `flock` on Apple platforms, Linux (glibc
/// and musl) and Android, `LockFileEx` on Windows.
///
/// Both lock the open file (the open file description, or the Windows handle), not the process: two connections of
/// one process, each with its file opened separately, exclude each other, and closing one descriptor of the file
/// never drops a lock taken through another (unlike `fcntl`'s per-process locks, which is also why the toolkit never
/// takes a lock on the database file itself: SQLite's own locks live there). The kernel queues a blocking request
/// behind the holder and behind the requests already waiting, which is what makes the gate fair; a request is never
/// taken back, so a wait with a time limit runs on a thread of its own (`WriteGate`).
///
/// A value holding the descriptor (or handle), so that taking and giving back the lock costs a system call and
/// nothing else; its owner calls ``close()`` once.
struct LockFile {
    #if os(Windows)
        private let handle: HANDLE
    #else
        private let descriptor: Int32
    #endif

    /// Opens (and creates when missing) the file at `path`, read-write, or read-only when writing is refused: a lock
    /// needs no write access.
    init(path: String) throws {
        #if os(Windows)
            let access = DWORD(GENERIC_READ) | DWORD(GENERIC_WRITE)
            let sharing = DWORD(FILE_SHARE_READ) | DWORD(FILE_SHARE_WRITE) | DWORD(FILE_SHARE_DELETE)
            let opened = path.withCString(encodedAs: UTF16.self) {
                CreateFileW($0, access, sharing, nil, DWORD(OPEN_ALWAYS), DWORD(FILE_ATTRIBUTE_NORMAL), nil)
            }
            guard let opened, opened != INVALID_HANDLE_VALUE else {
                throw DatabaseError(
                    extendedCode: .cantopen, message: "cannot open the write gate \(path): error \(GetLastError())")
            }
            handle = opened
        #else
            var opened = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            if opened < 0 && (errno == EACCES || errno == EROFS) { opened = open(path, O_RDONLY | O_CLOEXEC) }
            guard opened >= 0 else {
                throw DatabaseError(
                    extendedCode: .cantopen,
                    message: "cannot open the write gate \(path): \(PlatformFiles.lastErrorDescription())")
            }
            descriptor = opened
        #endif
    }

    /// Takes the lock if no other open file holds it; `false` at once otherwise.
    func tryLock() -> Bool {
        #if os(Windows)
            var overlapped = OVERLAPPED()
            let flags = DWORD(LOCKFILE_EXCLUSIVE_LOCK) | DWORD(LOCKFILE_FAIL_IMMEDIATELY)
            return LockFileEx(handle, flags, 0, 1, 0, &overlapped)
        #else
            while true {
                if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
                if errno != EINTR { return false }
            }
        #endif
    }

    /// Waits until the lock is free, in the kernel's queue, and takes it: 0, or the system's error code when it
    /// refuses (`errno`, for example `ENOLCK`; `GetLastError()` on Windows).
    func lock() -> Int32 {
        #if os(Windows)
            var overlapped = OVERLAPPED()
            if LockFileEx(handle, DWORD(LOCKFILE_EXCLUSIVE_LOCK), 0, 1, 0, &overlapped) { return 0 }
            return Int32(truncatingIfNeeded: GetLastError())
        #else
            while true {
                if flock(descriptor, LOCK_EX) == 0 { return 0 }
                if errno != EINTR { return errno }
            }
        #endif
    }

    /// Gives the lock back; the first request the kernel queued takes it.
    func unlock() {
        #if os(Windows)
            var overlapped = OVERLAPPED()
            _ = UnlockFileEx(handle, 0, 1, 0, &overlapped)
        #else
            _ = flock(descriptor, LOCK_UN)
        #endif
    }

    /// Closes the file, which gives back a lock it holds.
    func close() {
        #if os(Windows)
            _ = CloseHandle(handle)
        #else
            _ = closeFile(descriptor)
        #endif
    }
}

#if !os(Windows)
    /// `close(2)`, under a name of its own, so ``LockFile/close()`` does not call itself.
    private func closeFile(_ descriptor: Int32) -> Int32 {
        close(descriptor)
    }
#endif
