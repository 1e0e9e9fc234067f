import CSQLiteToolkit

extension ConnectionHandle {
    /// Installs a closure that decides whether to retry when a lock another connection holds makes an operation
    /// busy, or removes the busy handler with `nil`.
    ///
    /// SQLite calls `handler` with the number of times it was already called for the same lock (0, 1, 2, ...);
    /// `true` retries (sleep in the closure to wait), `false` gives up and the operation fails with `SQLITE_BUSY`.
    /// The handler replaces ``busyTimeout(_:)``, and a later `busyTimeout` replaces it; the closure is then kept until
    /// the next `setBusyHandler` or until the connection closes.
    ///
    /// ```swift
    /// _ = connection.setBusyHandler { retries in retries < 10 }
    /// ```
    ///
    /// The closure is released when another busy handler is set through this method, when `nil` is set, and when
    /// the connection closes. It runs on the thread that is using the connection.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/busy_handler.html>
    public func setBusyHandler(_ handler: ((_ retryCount: Int32) -> Bool)?) -> ResultCode {
        setCallback(
            handler,
            key: CallbackKey.busyHandler,
            uninstall: { $0.busyHandler(nil, nil) },
            install: { context in
                busyHandler(
                    { context, retryCount in
                        guard let context else { return 0 }
                        return ConnectionCallbackBox<(Int32) -> Bool>.unretained(context).handler(retryCount) ? 1 : 0
                    },
                    context
                )
            }
        )
    }
}
