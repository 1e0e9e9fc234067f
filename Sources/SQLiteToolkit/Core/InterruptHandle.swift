import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Interrupts a connection from any thread: the running statement fails with `SQLITE_INTERRUPT` and the
/// connection stays usable. After the connection closes, ``interrupt()`` does nothing.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/interrupt.html>
public final class InterruptHandle: @unchecked Sendable {
    // @unchecked Sendable: `connection` is read and cleared only while holding `lock`, and
    // sqlite3_interrupt may be called from any thread while the connection is open.
    private let lock = Lock()
    private var connection: ConnectionHandle?

    init(_ connection: ConnectionHandle) {
        self.connection = connection
    }

    /// Interrupts whatever statement the connection runs now.
    public func interrupt() {
        lock.withLock { connection?.interrupt() }
    }

    /// Called by the connection when it replaces its SQLite connection with a new one to the same file.
    func replace(with connection: ConnectionHandle) {
        lock.withLock { self.connection = connection }
    }

    /// Called by the connection before it closes.
    func invalidate() {
        lock.withLock { connection = nil }
    }
}
