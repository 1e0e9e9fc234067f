import CSQLiteToolkit

// Closure forms of the progress handler, the commit, rollback and update hooks, and the authorizer. Each closure is
// released when another one of the same kind is set through these methods, when `nil` is set, and when the
// connection closes; each runs on the thread that is using the connection (see CallbackBox.swift).

/// The C trampoline of the progress handler and the commit hook: both ask a `() -> Bool` closure, and a non-zero
/// answer interrupts the statement or refuses the commit.
private func askBoolHandler(_ context: UnsafeMutableRawPointer?) -> Int32 {
    guard let context else { return 0 }
    return ConnectionCallbackBox<() -> Bool>.unretained(context).handler() ? 1 : 0
}

extension ConnectionHandle {
    /// Installs a closure that SQLite calls about every `instructionCount` virtual machine instructions while a
    /// statement runs, or removes the progress handler with `nil` (or a count below 1).
    ///
    /// Returning `true` interrupts the statement, which fails with `SQLITE_INTERRUPT`.
    ///
    /// ```swift
    /// connection.setProgressHandler(every: 1000) { Date() > deadline }
    /// ```
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/progress_handler.html>
    @discardableResult
    public func setProgressHandler(every instructionCount: Int32, _ handler: (() -> Bool)?) -> ResultCode {
        setCallback(
            instructionCount > 0 ? handler : nil,
            key: CallbackKey.progressHandler,
            uninstall: {
                $0.progressHandler(0, nil, nil)
                return .ok
            },
            install: { context in
                progressHandler(
                    instructionCount,
                    askBoolHandler,
                    context
                )
                return .ok
            }
        )
    }

    /// Installs a closure that SQLite calls before each commit, or removes the commit hook with `nil`.
    ///
    /// Returning `true` turns the commit into a rollback: the `COMMIT` (or the statement that committed
    /// automatically) fails with `SQLITE_CONSTRAINT_COMMITHOOK`. The closure must not use the connection.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/commit_hook.html>
    @discardableResult
    public func setCommitHook(_ hook: (() -> Bool)?) -> ResultCode {
        setCallback(
            hook,
            key: CallbackKey.commitHook,
            uninstall: {
                _ = $0.commitHook(nil, nil)
                return .ok
            },
            install: { context in
                _ = commitHook(
                    askBoolHandler,
                    context
                )
                return .ok
            }
        )
    }

    /// Installs a closure that SQLite calls after each rollback, or removes the rollback hook with `nil`.
    ///
    /// It is called for an explicit `ROLLBACK`, a failed statement that rolls its transaction back, and a commit
    /// hook that refuses the commit, but not when the connection closes in a transaction: the closure is removed
    /// before that rollback. The closure must not use the connection.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/commit_hook.html>
    @discardableResult
    public func setRollbackHook(_ hook: (() -> Void)?) -> ResultCode {
        setCallback(
            hook,
            key: CallbackKey.rollbackHook,
            uninstall: {
                _ = $0.rollbackHook(nil, nil)
                return .ok
            },
            install: { context in
                _ = rollbackHook(
                    { context in
                        guard let context else { return }
                        ConnectionCallbackBox<() -> Void>.unretained(context).handler()
                    },
                    context
                )
                return .ok
            }
        )
    }

    /// Installs a closure that SQLite calls for each row a statement inserts, updates or deletes in a rowid table,
    /// or removes the update hook with `nil`.
    ///
    /// The closure receives the operation (`.insert`, `.update` or `.delete`: SQLite reports it with its authorizer
    /// action codes), the schema name (`main`, `temp`, or an attached database), the table name and the row's rowid.
    /// It is not called for `WITHOUT ROWID` tables, for the truncate optimization of `DELETE` without `WHERE`, or
    /// for changes to internal tables. The closure must not use the connection.
    ///
    /// ```swift
    /// connection.setUpdateHook { operation, schema, table, rowid in changes.append((table, rowid)) }
    /// ```
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/update_hook.html>
    @discardableResult
    public func setUpdateHook(
        _ hook: ((_ operation: AuthorizerAction, _ schema: String, _ table: String, _ rowid: Int64) -> Void)?
    ) -> ResultCode {
        setCallback(
            hook,
            key: CallbackKey.updateHook,
            uninstall: {
                _ = $0.updateHook(nil, nil)
                return .ok
            },
            install: { context in
                _ = updateHook(
                    { context, operation, schema, table, rowid in
                        guard let context else { return }
                        let box = ConnectionCallbackBox<(AuthorizerAction, String, String, Int64) -> Void>.unretained(
                            context)
                        box.handler(
                            AuthorizerAction(rawValue: operation),
                            schema.map { String(cString: $0) } ?? "",
                            table.map { String(cString: $0) } ?? "",
                            rowid
                        )
                    },
                    context
                )
                return .ok
            }
        )
    }

    /// Installs a closure that SQLite asks, while it prepares a statement, whether each action of the statement is
    /// allowed, or removes the authorizer with `nil`.
    ///
    /// The closure receives the action and up to four names whose meaning depends on the action (for `.read`: the
    /// table, the column, the schema, and the innermost trigger or view). It answers `.ok`, `.deny` (the prepare
    /// fails with `SQLITE_AUTH`) or `.ignore` (a column read as NULL, or the action skipped). Statements prepared
    /// earlier are prepared again, and asked again, when they next run. The closure must not use the connection.
    ///
    /// ```swift
    /// _ = connection.setAuthorizer { action, _, _, _, _ in action == .delete ? .deny : .ok }
    /// ```
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/set_authorizer.html>
    public func setAuthorizer(
        _ authorizer: (
            (AuthorizerAction, String?, String?, String?, String?) -> AuthorizerDecision
        )?
    ) -> ResultCode {
        setCallback(
            authorizer,
            key: CallbackKey.authorizer,
            uninstall: { $0.setAuthorizer(nil, nil) },
            install: { context in
                setAuthorizer(
                    { context, action, first, second, schema, trigger in
                        guard let context else { return AuthorizerDecision.deny.rawValue }
                        let box = ConnectionCallbackBox<
                            (AuthorizerAction, String?, String?, String?, String?) -> AuthorizerDecision
                        >.unretained(context)
                        return box.handler(
                            AuthorizerAction(rawValue: action),
                            first.map { String(cString: $0) },
                            second.map { String(cString: $0) },
                            schema.map { String(cString: $0) },
                            trigger.map { String(cString: $0) }
                        ).rawValue
                    },
                    context
                )
            }
        )
    }
}
