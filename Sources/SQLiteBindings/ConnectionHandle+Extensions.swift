import CSQLiteToolkit

/// The C signature of an SQLite extension's init function (`sqlite3_extension_init` and its kin):
/// `int init(sqlite3 *db, char **errorMessage, const sqlite3_api_routines *routines)`, with the pointers typed as
/// a C function declared with incomplete `sqlite3` and `sqlite3_api_routines` types imports into Swift.
///
/// Related SQLite documentation: <https://sqlite.org/loadext.html#programming_loadable_extensions>
public typealias ExtensionEntryPoint =
    @convention(c) (
        _ connection: OpaquePointer?,
        _ errorMessage: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
        _ routines: OpaquePointer?
    ) -> Int32

extension ConnectionHandle {
    /// Registers an extension compiled into the program on this connection: calls its init function `entryPoint`
    /// with the connection and this SQLite's routines table (``SQLiteLibrary/extensionRoutines()``), as
    /// `sqlite3_load_extension` does once it has loaded a library. The message explains a failure.
    ///
    /// Hand-written rather than generated because it calls a function pointer, not a function of SQLite's API.
    ///
    /// Related SQLite documentation: <https://sqlite.org/loadext.html#statically_linking_a_run_time_loadable_extension>
    @inlinable
    public func registerExtension(_ entryPoint: ExtensionEntryPoint) -> (code: ResultCode, message: String?) {
        var message: UnsafeMutablePointer<CChar>? = nil
        let code = ResultCode(rawValue: entryPoint(rawValue, &message, sqltk_extension_api_routines()))
        return (code: code, message: takeSQLiteString(message))
    }
}
