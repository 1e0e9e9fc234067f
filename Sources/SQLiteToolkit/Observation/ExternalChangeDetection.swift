// DispatchTimeInterval: Dispatch is its own module (Foundation only re-exports it).
import Dispatch

/// How a ``DatabaseQueue``, or a ``DatabasePool``'s writer, learns that another connection or process committed to
/// its database, so that its observers hear of it (``DatabaseTransactionChanges/isExternal``) and its observed
/// queries run again.
///
/// SQLite tells a connection that the file changed since it last looked (`PRAGMA data_version`), not when: the
/// connection must be told when to look. It looks only while an observer is registered (an observed query, or a
/// transaction observer added inside an access); a queue or pool that observes nothing watches nothing and pays
/// nothing.
///
/// ```swift
/// let queue = try DatabaseQueue(path: path)
/// try queue.setExternalChangeDetection(.polling(interval: .milliseconds(250)))
/// ```
///
/// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_data_version>
public enum ExternalChangeDetection: Sendable {
    /// The default: the file system says when the database file, its `-wal` or its `-journal` changed (inotify on
    /// Linux, a dispatch source on Apple platforms, `ReadDirectoryChangesW` on Windows), and the connection looks
    /// then. Bursts of events make one look each. Where the platform has no such events, or they cannot be had
    /// (inotify's limits reached, a folder that cannot be watched), the connection polls every second. An
    /// in-memory or temporary database, which no other process can open, is not watched. Besides the events, the
    /// connection looks once a second: a commit of another process becomes visible when that process updates the
    /// `-shm` index, through shared memory, which no event reports; after a sync slower than the looks that follow
    /// the last event (a slow disk), that look is what sees it.
    case fileSystemEvents
    /// The connection looks every `interval`, whatever the file system says: for file systems that report no
    /// events (network shares, some containers), and for in-memory databases shared with other connections of the
    /// process (`file:name?mode=memory&cache=shared`). The interval must be positive, and not `.never`.
    case polling(interval: DispatchTimeInterval)
    /// The connection never looks: commits of other connections and processes go unseen, as in SQLiteToolkit
    /// before it watched for them.
    case disabled

    /// The interval of ``fileSystemEvents`` where the file system gives no events.
    static let fallbackPollingInterval = DispatchTimeInterval.seconds(1)
    /// The interval of the looks of ``fileSystemEvents`` beside the events.
    static let backstopInterval = DispatchTimeInterval.seconds(1)

    /// Throws ``DatabaseError/Reason/invalidExternalChangeDetection(_:)`` for a setting that cannot be honoured.
    func validate() throws {
        guard case .polling(let interval) = self else { return }
        guard let nanoseconds = Self.nanoseconds(interval), nanoseconds > 0 else {
            throw DatabaseError(
                extendedCode: .misuse, message: "a polling interval must be positive and finite",
                reason: .invalidExternalChangeDetection("polling(interval:)"))
        }
    }

    /// The interval in nanoseconds; `nil` for `.never`, or one that does not fit.
    static func nanoseconds(_ interval: DispatchTimeInterval) -> Int? {
        func scaled(_ value: Int, by factor: Int) -> Int? {
            let product = value.multipliedReportingOverflow(by: factor)
            return product.overflow ? nil : product.partialValue
        }
        switch interval {
        case .seconds(let value): return scaled(value, by: 1_000_000_000)
        case .milliseconds(let value): return scaled(value, by: 1_000_000)
        case .microseconds(let value): return scaled(value, by: 1_000)
        case .nanoseconds(let value): return value
        case .never: return nil
        @unknown default: return nil
        }
    }
}
