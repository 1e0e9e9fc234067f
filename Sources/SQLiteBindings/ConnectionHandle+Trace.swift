import CSQLiteToolkit

/// One event reported to a trace handler (``ConnectionHandle/setTraceHandler(events:_:)``).
///
/// The handles are valid only while the handler runs. Some events come from statements SQLite runs internally, such
/// as the one that reloads the schema after `CREATE TABLE`, whose `sqlite3_sql` is NULL.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/c_trace.html>
public enum TraceEvent {
    /// A statement starts running (`SQLITE_TRACE_STMT`): `sql` is its text as prepared, without the bound values
    /// (`sqlite3_expanded_sql` gives them), or an SQL comment naming a trigger that starts.
    case statement(StatementHandle, sql: String)
    /// A statement finished (`SQLITE_TRACE_PROFILE`), having run for about `nanoseconds`.
    case profile(StatementHandle, nanoseconds: Int64)
    /// A statement produced a row (`SQLITE_TRACE_ROW`).
    case row(StatementHandle)
    /// The connection is closing (`SQLITE_TRACE_CLOSE`).
    case close(ConnectionHandle)
}

@available(*, unavailable)
extension TraceEvent: Sendable {}

extension ConnectionHandle {
    /// Installs a closure that SQLite calls for each of `events`, or removes the trace handler with `nil` (or empty
    /// `events`).
    ///
    /// ```swift
    /// _ = connection.setTraceHandler(events: [.stmt, .profile]) { event in
    ///     if case .profile(_, let nanoseconds) = event { total += nanoseconds }
    /// }
    /// ```
    ///
    /// The closure is released when another trace handler is set through this method, when `nil` is set, and when
    /// the connection closes (after it saw `.close`). It runs on the thread that is using the connection.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/trace_v2.html>
    public func setTraceHandler(events: TraceEvents, _ handler: ((TraceEvent) -> Void)?) -> ResultCode {
        setCallback(
            events.isEmpty ? nil : handler,
            key: CallbackKey.trace,
            uninstall: { $0.traceV2([], nil, nil) },
            install: { context in
                traceV2(
                    events,
                    { code, context, subject, detail in
                        guard let context, let subject else { return 0 }
                        let event: TraceEvent
                        switch TraceEvents(rawValue: code) {
                        case .stmt:
                            // "The X argument is a pointer to a string which is the unexpanded SQL text of the prepared
                            // statement or an SQL comment that indicates the invocation of a trigger."
                            let sql = detail.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? ""
                            event = .statement(StatementHandle(rawValue: OpaquePointer(subject)), sql: sql)
                        case .profile:
                            // "The X argument points to a 64-bit integer which is approximately the number of nanoseconds
                            // that the prepared statement took to run."
                            let nanoseconds = detail.map { $0.load(as: Int64.self) } ?? 0
                            event = .profile(
                                StatementHandle(rawValue: OpaquePointer(subject)), nanoseconds: nanoseconds)
                        case .row:
                            event = .row(StatementHandle(rawValue: OpaquePointer(subject)))
                        case .close:
                            event = .close(ConnectionHandle(rawValue: OpaquePointer(subject)))
                        default:
                            return 0
                        }
                        ConnectionCallbackBox<(TraceEvent) -> Void>.unretained(context).handler(event)
                        return 0
                    },
                    context
                )
            }
        )
    }
}
