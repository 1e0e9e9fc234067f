import CSQLiteToolkit

/// A table filter for a session attached to every table: a Swift closure that SQLite asks, with a table's name,
/// whether to record that table's changes.
///
/// The session does not retain the filter: whoever installs it with ``SessionHandle/setTableFilter(_:)`` keeps it
/// alive until the session is deleted or another filter replaces it.
///
/// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_table_filter.html>
public final class SessionTableFilter {
    /// The closure: `true` records the table.
    public let isIncluded: (String) -> Bool

    /// Makes a filter of `isIncluded`.
    public init(_ isIncluded: @escaping (String) -> Bool) {
        self.isIncluded = isIncluded
    }
}

@available(*, unavailable, message: "a table filter runs on the thread of its session's connection")
extension SessionTableFilter: Sendable {}

/// The C trampoline of a session's table filter.
private func sessionTableFilterTrampoline(_ context: UnsafeMutableRawPointer?, _ table: UnsafePointer<CChar>?) -> Int32
{
    guard let context, let table else { return 1 }
    let filter = Unmanaged<SessionTableFilter>.fromOpaque(context).takeUnretainedValue()
    return filter.isIncluded(String(cString: table)) ? 1 : 0
}

extension SessionHandle {
    /// Installs `filter`, which a session attached to every table (`attach(nil)`) asks about each table the first
    /// time a change to it is made; `nil` removes it, so every table with a primary key is recorded.
    ///
    /// The caller keeps `filter` alive until the session is deleted or the filter is replaced.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_table_filter.html>
    public func setTableFilter(_ filter: SessionTableFilter?) {
        guard let filter else {
            tableFilter(nil, nil)
            return
        }
        tableFilter(sessionTableFilterTrampoline, Unmanaged.passUnretained(filter).toOpaque())
    }
}
