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

// The zeroing of key bytes and the C library's error descriptions: the calls of the toolkit into the C library and the
// operating system that are neither about threads (those are in Concurrency/: `Lock`, `ThreadSupport`, `LockFile`)
// nor the atomic key change's (PlatformFileReplacement.swift).

/// What the toolkit's file calls below Foundation share. The database file is never read here: closing a descriptor
/// of it would release every POSIX lock the process holds on it (SQLite reads it, `ConnectionHandle.filePrefix`).
enum PlatformFiles {
    /// The C library's description of `errno`.
    static func lastErrorDescription() -> String {
        String(cString: strerror(errno))
    }
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
