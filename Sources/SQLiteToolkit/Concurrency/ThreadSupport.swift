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

// The calling thread as the toolkit needs it: a slot of thread-local storage for the re-entry check, the
// thread's identity, and giving up its time slice.

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

/// Gives the rest of the calling thread's time slice to another thread: `sched_yield` where POSIX has it,
/// `SwitchToThread` on Windows. For a wait of a few instructions on another thread (an interruption in progress).
func yieldThread() {
    #if os(Windows)
        _ = SwitchToThread()
    #else
        _ = sched_yield()
    #endif
}
