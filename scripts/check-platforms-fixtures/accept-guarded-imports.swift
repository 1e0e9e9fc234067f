// expect: none
// Platform modules inside #if blocks, nested ones included, and a module that is not a platform's.
import Foundation

#if os(Windows)
    import WinSDK
#elseif canImport(Darwin)
    import Darwin
#else
    #if canImport(Glibc)
        @preconcurrency import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif
#endif
