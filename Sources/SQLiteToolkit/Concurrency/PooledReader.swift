// DispatchQueue: Dispatch is its own module (Foundation only re-exports it).
import Dispatch

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A reader connection of a ``DatabasePool`` and the serial dispatch queue its async reads run on.
final class PooledReader: @unchecked Sendable {
    // @unchecked Sendable: `database` is read and written only by the access that took the reader out of the pool
    // (and by the pool's close, once no access holds it).
    /// The connection; `nil` until the first read that takes this reader opens it.
    var database: Database?
    /// Runs the async reads that take this reader: one at a time, since one access at a time holds the reader.
    let queue = DispatchQueue(label: "SQLiteToolkit.DatabasePool.reader")
}
