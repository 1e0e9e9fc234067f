import SQLiteBindings

extension Database {
    /// What a trace reports besides each statement's SQL.
    public struct TraceOptions: OptionSet, Sendable {
        /// The option bits.
        public var rawValue: Int

        /// Makes options from bits.
        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// Report the SQL with the bound values in place of the parameters (may show user data in logs). `ATTACH`
        /// and `VACUUM` statements are reported unexpanded: their bound values carry keys (`ATTACH … KEY ?`, the
        /// `hexkey=` of the URI that ``Database/export(to:key:cipher:)`` and the key changes write into). With or
        /// without this option, a key they or a `PRAGMA` spell out (`KEY 'secret'`, a URI's `key=`, `PRAGMA key = '…'`)
        /// is left out of the trace.
        public static let expandedSQL = TraceOptions(rawValue: 1)
        /// Report each statement when it finishes, with how long it ran, instead of when it starts.
        public static let duration = TraceOptions(rawValue: 2)
    }

    /// One traced statement.
    public struct TracedStatement: Sendable, Hashable {
        /// The statement's SQL (expanded when asked), or a comment naming a trigger that starts.
        public var sql: String
        /// How long the statement ran, in seconds, when ``TraceOptions/duration`` was asked for.
        public var duration: Double?
    }

    /// Calls `handler` with each statement the connection runs, or stops tracing with `nil`. Tracing costs nothing
    /// while it is off: no callback is installed. Closing the connection from `handler` is deferred until the
    /// traced statement returns (see ``close()``).
    ///
    /// ```swift
    /// db.trace(options: .duration) { print($0.sql, $0.duration ?? 0) }
    /// ```
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/trace_v2.html>
    public func trace(options: TraceOptions = [], _ handler: ((TracedStatement) -> Void)?) throws {
        let connection = try connection()
        let scope = runningCallbacks
        guard let handler else {
            // Kept until any running callback returns: this may be called from inside the trace closure itself.
            scope.keep(nil, as: .trace)
            _ = connection.setTraceHandler(events: [], nil)
            return
        }
        let expanded = options.contains(.expandedSQL)
        let events: TraceEvents
        let closure: (TraceEvent) -> Void
        if options.contains(.duration) {
            events = .profile
            closure = { event in
                guard case .profile(let statement, let nanoseconds) = event else { return }
                let unexpanded = statement.sql() ?? ""
                let sql =
                    Self.mayHoldKey(unexpanded)
                    ? DatabaseError.hidingKeys(in: unexpanded).sql
                    : expanded ? (statement.expandedSQL() ?? unexpanded) : unexpanded
                scope.run { handler(TracedStatement(sql: sql, duration: Double(nanoseconds) / 1e9)) }
            }
        } else {
            events = .stmt
            closure = { event in
                guard case .statement(let statement, let sql) = event else { return }
                let text =
                    Self.mayHoldKey(sql)
                    ? DatabaseError.hidingKeys(in: sql).sql
                    : expanded && !sql.hasPrefix("--") ? (statement.expandedSQL() ?? sql) : sql
                scope.run { handler(TracedStatement(sql: text, duration: nil)) }
            }
        }
        scope.keep(closure, as: .trace)
        let code = connection.setTraceHandler(events: events, closure)
        if code != .ok { throw error(code, sql: nil) }
    }

    /// Whether the statement `sql` may take a key as a bound value, so that a trace must not expand it: an `ATTACH`
    /// (`KEY ?`, or a URI with `key=`/`hexkey=`) or a `VACUUM` (`VACUUM INTO` a URI with a key). Leading blanks
    /// and comments are skipped; case does not matter.
    static func mayBindKey(_ sql: String) -> Bool {
        let keyword = firstKeyword(of: sql)
        return keyword == "ATTACH" || keyword == "VACUUM"
    }

    /// Whether the statement `sql` may spell out a key, which a trace leaves out: one that may bind one
    /// (``mayBindKey(_:)``), or a `PRAGMA` (`PRAGMA key = '…'`).
    static func mayHoldKey(_ sql: String) -> Bool {
        let keyword = firstKeyword(of: sql)
        return keyword == "ATTACH" || keyword == "VACUUM" || keyword == "PRAGMA"
    }

    /// The first word of `sql` in upper case, after blanks and comments.
    private static func firstKeyword(of sql: String) -> String {
        var rest = Substring(sql)
        while true {
            rest = rest.drop { $0.isWhitespace }
            if rest.hasPrefix("--") {
                rest = rest.drop { $0 != "\n" }
            } else if rest.hasPrefix("/*") {
                guard let end = rest.range(of: "*/") else { return "" }
                rest = rest[end.upperBound...]
            } else {
                break
            }
        }
        return rest.prefix { $0.isLetter }.uppercased()
    }

    /// Calls `handler` about every `instructionCount` virtual machine instructions while a statement runs, or
    /// removes it with `nil`; returning `true` interrupts the statement with `SQLITE_INTERRUPT`. Closing the
    /// connection from `handler` is deferred until the running statement returns (see ``close()``).
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/progress_handler.html>
    public func setProgressHandler(every instructionCount: Int32 = 1000, _ handler: (() -> Bool)?) throws {
        let connection = try connection()
        let scope = runningCallbacks
        let closure: (() -> Bool)? = instructionCount > 0 ? handler.map { handler in { scope.run(handler) } } : nil
        // The replaced closure is kept until any running callback returns: this may be called from inside it.
        scope.keep(closure, as: .progressHandler)
        let code = connection.setProgressHandler(every: instructionCount, closure)
        if code != .ok { throw error(code, sql: nil) }
    }
}
