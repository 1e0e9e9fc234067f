import CSQLiteToolkit

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// An extension library loaded with `dlopen` and initialized with a copy of this SQLite's routines table whose
/// `auto_extension` entry records the functions the extension asks to run on every new connection, instead of
/// registering them with SQLite: the caller runs them (``runAutoExtensions(on:)``) on the connections they are
/// meant for, and no other connection of the process runs them.
///
/// For extensions whose automatic extension fails on connections that are not theirs (Litestream's VFS 0.5.17
/// registers one that makes every other connection's open fail with "automatic extension loading failed"). The
/// library stays loaded until the process ends, and so does the copy of the table: the extension keeps its
/// pointer and calls every SQLite function through it.
public final class CapturedExtensionLibrary: @unchecked Sendable {
    // @unchecked Sendable: both properties are set once in the initializer and never changed.
    /// The copy of the routines table the extension was given.
    private let routines: OpaquePointer
    /// The functions the extension's init passed to `sqlite3_auto_extension`, in order.
    public let autoExtensions: [ExtensionEntryPoint]

    /// Loads the library at `path` (`dlopen`, never closed), finds `entryPoint` and calls it on `connection` with
    /// a copy of the routines table that records, and does not register, the extension's automatic extensions.
    ///
    /// Returns `nil` with the failure's message in `message` when the library cannot be loaded, lacks the entry
    /// point, or its init function fails (`code` is then its result), or where `dlopen` does not exist.
    public init?(
        path: String, entryPoint: String, on connection: ConnectionHandle,
        failure: inout (code: ResultCode, message: String)
    ) {
        #if canImport(Darwin) || canImport(Glibc) || canImport(Musl) || canImport(Android)
            guard let library = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
                failure = (.error, dlerror().map { String(cString: $0) } ?? "dlopen failed")
                return nil
            }
            guard let symbol = dlsym(library, entryPoint) else {
                failure = (.error, dlerror().map { String(cString: $0) } ?? "no entry point \(entryPoint)")
                return nil
            }
            let initialize = unsafeBitCast(symbol, to: ExtensionEntryPoint.self)
            let recording = sqltk_extension_api_routines_recording_auto_extensions { function in
                guard let function else { return SQLITE_MISUSE }
                capturedAutoExtensions.append(unsafeBitCast(function, to: ExtensionEntryPoint.self))
                return SQLITE_OK
            }
            guard let routines = recording else {
                failure = (.nomem, "out of memory for a copy of the routines table")
                return nil
            }
            capturedAutoExtensions = []
            var message: UnsafeMutablePointer<CChar>? = nil
            let code = ResultCode(rawValue: initialize(connection.rawValue, &message, routines))
            let text = takeSQLiteString(message)
            autoExtensions = capturedAutoExtensions
            capturedAutoExtensions = []
            self.routines = routines
            // SQLITE_OK_LOAD_PERMANENTLY: the library asks to stay loaded, which it does.
            guard code == .ok || code == .okLoadPermanently else {
                failure = (code, text ?? "the extension's init function failed")
                return nil
            }
        #else
            failure = (.error, "this platform cannot load a library at run time")
            return nil
        #endif
    }

    /// Runs the recorded automatic extensions on `connection`, as SQLite runs registered ones when a connection
    /// opens. Their results are not read: an automatic extension declared `void` (as Litestream's is) returns
    /// nothing defined.
    public func runAutoExtensions(on connection: ConnectionHandle) {
        for function in autoExtensions {
            var message: UnsafeMutablePointer<CChar>? = nil
            _ = function(connection.rawValue, &message, routines)
            _ = takeSQLiteString(message)
        }
    }
}

/// What the copy's `auto_extension` records during one init call; the caller of ``CapturedExtensionLibrary``'s
/// initializer serializes the calls (the C function it is read from cannot capture a context).
nonisolated(unsafe) private var capturedAutoExtensions: [ExtensionEntryPoint] = []
