// expect: import import
// A platform module imported with no #if fails on every other platform; so does one after the #if has closed.
import Glibc

#if canImport(Darwin)
    import Darwin
#endif
import struct ucrt.FILE
