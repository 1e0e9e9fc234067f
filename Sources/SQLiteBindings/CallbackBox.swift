import CSQLiteToolkit

// How Swift closures become C callbacks.
//
// A closure is kept in a box (a class instance) whose address SQLite stores as the callback's context pointer;
// a `@convention(c)` trampoline, which cannot capture anything, turns the pointer back into the box and calls the
// closure. The box is retained with `Unmanaged.passRetained` and released exactly once, by whoever SQLite hands the
// pointer back to when the callback goes away:
//
// - Functions and collations: the `xDestroy` argument of `sqlite3_create_function_v2`,
//   `sqlite3_create_window_function` and `sqlite3_create_collation_v2`. SQLite calls it when the function or
//   collation is replaced or removed and when the connection closes.
// - Busy handler, trace, progress handler, commit, rollback and update hooks, authorizer: these C callbacks have no
//   destructor. Their box is stored as the connection's client data (`sqlite3_set_clientdata`) under a key of its
//   own, so SQLite still decides when it goes: setting a new closure of the same kind replaces the client data, and
//   closing the connection destroys all of it. The client data's destructor first removes the C callback, then
//   releases the box. Removing first matters: `sqlite3_close` destroys client data before it rolls back an open
//   transaction, which calls the rollback hook, and a zombie connection (`sqlite3_close_v2` with statements left)
//   can still run them. No registry, lock or token is needed, and the caller owns nothing.
//
// Threads: SQLite calls every one of these callbacks synchronously, on the thread that is inside the API call that
// triggers it (a step, a prepare, a commit, a close). The closures are therefore not required to be `Sendable`: the
// layer above confines a connection to one thread or queue at a time, and the closures run there.

/// The key names under which the closure setters keep their box in the connection's client data. Names starting
/// with `sqltk.` are reserved for them.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/get_clientdata.html>
enum CallbackKey {
    static let busyHandler = "sqltk.busyHandler"
    static let trace = "sqltk.trace"
    static let progressHandler = "sqltk.progressHandler"
    static let commitHook = "sqltk.commitHook"
    static let rollbackHook = "sqltk.rollbackHook"
    static let updateHook = "sqltk.updateHook"
    static let authorizer = "sqltk.authorizer"
}

/// A closure installed as a C callback that has no destructor, owned by the connection's client data.
///
/// Not `final`: ``ConnectionCallbackBox`` adds the typed closure, and the client data's destructor only needs this
/// base to remove the callback.
class ConnectionCallback {
    /// The connection the callback is installed on.
    let connection: ConnectionHandle
    /// Removes the C callback from `connection` (for example `sqlite3_busy_handler(db, NULL, NULL)`).
    private let uninstall: (ConnectionHandle) -> Void

    init(connection: ConnectionHandle, uninstall: @escaping (ConnectionHandle) -> Void) {
        self.connection = connection
        self.uninstall = uninstall
    }

    /// Removes the C callback, so SQLite never calls it with this box's address again.
    final func detach() {
        uninstall(connection)
    }
}

/// A closure of type `Handler` installed as a C callback, owned by the connection's client data.
final class ConnectionCallbackBox<Handler>: ConnectionCallback {
    /// The Swift closure the trampoline calls.
    let handler: Handler

    init(connection: ConnectionHandle, handler: Handler, uninstall: @escaping (ConnectionHandle) -> Void) {
        self.handler = handler
        super.init(connection: connection, uninstall: uninstall)
    }

    /// The box whose address SQLite passed to a trampoline as its context pointer. The caller guarantees that
    /// `context` came from ``ConnectionHandle/attach(_:key:)`` for a box of this type.
    static func unretained(_ context: UnsafeMutableRawPointer) -> ConnectionCallbackBox<Handler> {
        Unmanaged<ConnectionCallbackBox<Handler>>.fromOpaque(context).takeUnretainedValue()
    }
}

extension ConnectionHandle {
    /// Makes the connection's client data under `key` own `box`, and returns the context pointer to install with the
    /// C callback.
    ///
    /// The box previously stored under `key`, if any, has its C callback removed and is released before this
    /// returns, so the caller must install the new callback next. When SQLite cannot store the box (no memory),
    /// it has already released it: the result is the failure code and no pointer.
    func attach(_ box: ConnectionCallback, key: String) -> (code: ResultCode, context: UnsafeMutableRawPointer?) {
        let context = Unmanaged.passRetained(box).toOpaque()
        let code = setClientData(name: key, data: context) { pointer in
            guard let pointer else { return }
            let box = Unmanaged<ConnectionCallback>.fromOpaque(pointer).takeRetainedValue()
            box.detach()
        }
        return (code, code == .ok ? context : nil)
    }

    /// Releases the box stored under `key`, removing its C callback first. Does nothing when there is none.
    func detachCallback(key: String) {
        _ = setClientData(name: key, data: nil, destructor: nil)
    }

    /// The one way the closure setters install a callback that has no C destructor.
    ///
    /// With a `handler`, boxes it, stores the box as the client data under `key` (releasing the previous box of that
    /// kind), and calls `install` with the context pointer to pass to the C function. With `nil`, calls `uninstall`
    /// and releases the box. `uninstall` removes the C callback (`sqlite3_xxx(db, NULL, NULL)`); it also runs when
    /// the box is released by a replacement or by closing the connection.
    func setCallback<Handler>(
        _ handler: Handler?,
        key: String,
        uninstall: @escaping (ConnectionHandle) -> ResultCode,
        install: (UnsafeMutableRawPointer) -> ResultCode
    ) -> ResultCode {
        guard let handler else {
            let code = uninstall(self)
            detachCallback(key: key)
            return code
        }
        let box = ConnectionCallbackBox(connection: self, handler: handler) { _ = uninstall($0) }
        let (code, context) = attach(box, key: key)
        guard let context else { return code }
        return install(context)
    }
}

/// Makes a function call fail with `error`: its description becomes the message (`sqlite3_result_error`), and a
/// ``ResultCode`` or ``ResultCodeError`` also sets the code (`sqlite3_result_error_code`); otherwise the code is
/// `SQLITE_ERROR`. The statement that called the function fails with both.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/result_blob.html>
func reportError(_ error: any Error, to context: FunctionContext) {
    context.resultError(String(describing: error))
    if let code = error as? ResultCode {
        context.resultErrorCode(code)
    } else if let error = error as? any ResultCodeError {
        context.resultErrorCode(error.resultCode)
    }
}
