import SQLiteBindings

extension Database {
    /// The C signature of an SQLite extension's init function (`sqlite3_extension_init` and its kin):
    /// `int init(sqlite3 *db, char **errorMessage, const sqlite3_api_routines *routines)`.
    ///
    /// A C function declared with incomplete `sqlite3` and `sqlite3_api_routines` types imports into Swift with
    /// exactly this type. One declared through a complete `sqlite3_api_routines` (a header that includes
    /// `sqlite3ext.h`) is wrapped in a closure that captures nothing, which Swift converts to a C function:
    ///
    /// ```swift
    /// let entryPoint: Database.ExtensionEntryPoint = { db, errorMessage, routines in
    ///     my_extension_init(db, errorMessage, UnsafePointer(routines))
    /// }
    /// ```
    ///
    /// Related SQLite documentation: <https://sqlite.org/loadext.html#programming_loadable_extensions>
    public typealias ExtensionEntryPoint = SQLiteBindings.ExtensionEntryPoint

    /// An SQLite extension a connection loads when it opens (``Configuration/extensions``).
    ///
    /// Related SQLite documentation: <https://sqlite.org/loadext.html>
    public struct Extension: Sendable {
        enum Source {
            case library(path: String, entryPoint: String?)
            case linked(ExtensionEntryPoint, name: String)
        }

        let source: Source

        /// The shared library at `path`, loaded with ``Database/loadExtension(atPath:entryPoint:)``.
        ///
        /// - Parameters:
        ///   - path: the library's path, with or without its suffix (`.so`, `.dylib`, `.dll`).
        ///   - entryPoint: the name of its init function; `nil` lets SQLite try `sqlite3_extension_init`, then the
        ///     name it derives from the file name (`sqlite3_vec_init` for `vec0.so`).
        public static func library(atPath path: String, entryPoint: String? = nil) -> Extension {
            Extension(source: .library(path: path, entryPoint: entryPoint))
        }

        /// An extension compiled into the program, registered by its init function with
        /// ``Database/registerExtension(_:named:)``. `name` is what errors call it.
        public static func linked(_ entryPoint: ExtensionEntryPoint, named name: String) -> Extension {
            Extension(source: .linked(entryPoint, name: name))
        }
    }

    /// Loads the SQLite extension in the shared library at `path` into this connection: its functions, collations
    /// and virtual tables are available to the connection's SQL from now on.
    ///
    /// ```swift
    /// try db.loadExtension(atPath: "/opt/extensions/vec0")
    /// let version = try db.queryValue("SELECT vec_version()", as: String.self)
    /// ```
    ///
    /// Loading goes through the C API only: the toolkit turns on `SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION` (which
    /// leaves the SQL function `load_extension()` off) for this call alone and turns it off again, so SQL text can
    /// never load a library, before, during or after the call. A platform may forbid loading code at run time
    /// (iOS, tvOS, watchOS and visionOS apps): compile the extension into the program and register it with
    /// ``registerExtension(_:named:)`` instead. Only load libraries you trust: an extension runs with the
    /// program's rights.
    ///
    /// - Parameters:
    ///   - path: the library's path, with or without its suffix (`.so`, `.dylib`, `.dll`).
    ///   - entryPoint: the name of its init function; `nil` lets SQLite try `sqlite3_extension_init`, then the name
    ///     it derives from the file name (`sqlite3_vec_init` for `vec0.so`).
    /// - Throws: ``DatabaseError`` with ``DatabaseError/Reason/extensionLoadFailed(path:)`` and SQLite's message
    ///   (a missing file, a file that is not a library, an entry point it lacks, an init function that failed);
    ///   ``DatabaseError/Reason/extensionLoadInCallback`` from inside one of the connection's callbacks;
    ///   ``DatabaseError/Reason/embeddedNUL(offset:)`` for a path or entry point holding a NUL character;
    ///   ``DatabaseError/Reason/connectionClosed`` on a closed connection.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/load_extension.html>
    public func loadExtension(atPath path: String, entryPoint: String? = nil) throws {
        // SQLite reads C strings: a NUL would cut the name short and load another file or entry point.
        for (name, text) in [("path", path), ("entry point", entryPoint ?? "")] {
            guard let nul = text.utf8.firstIndex(of: 0) else { continue }
            let offset = text.utf8.distance(from: text.utf8.startIndex, to: nul)
            throw extensionError(
                .misuse, name: path, message: "the extension's \(name) holds a NUL character at byte \(offset)",
                reason: .embeddedNUL(offset: offset))
        }
        // Loaded again by SQLite, Litestream's VFS would register its automatic extension for the whole process
        // (see LitestreamReplica.loadVFS(atPath:)): every later open would fail, and a replica's open crashed.
        if LitestreamReplica.isVFSLibrary(path) {
            throw extensionError(
                .misuse, name: path,
                message:
                    "the library is Litestream's VFS, which LitestreamReplica.loadVFS(atPath:) loaded: a replica's "
                    + "connection has its functions, and SQLite must not load it again",
                reason: .extensionLoadFailed(path: path))
        }
        let connection = try connectionForExtension(named: path)
        let enable = connection.configure(.enableLoadExtension, 1)
        guard enable.code == .ok, enable.value == 1 else {
            throw extensionError(
                enable.code == .ok ? .error : enable.code, name: path,
                message: "extension loading could not be turned on", reason: .extensionLoadFailed(path: path))
        }
        let (code, message) = connection.loadExtension(atPath: path, entryPoint: entryPoint)
        let disable = connection.configure(.enableLoadExtension, 0)
        // Loading must never stay on: that failure is reported before the load's own, whatever the load did.
        guard disable.code == .ok, disable.value == 0 else {
            throw extensionError(
                disable.code == .ok ? .error : disable.code, name: path,
                message: "extension loading could not be turned off again", reason: .extensionLoadFailed(path: path))
        }
        guard code == .ok else {
            throw extensionError(
                code, name: path, message: message ?? "\(code)", reason: .extensionLoadFailed(path: path))
        }
    }

    /// Registers on this connection an SQLite extension compiled into the program, by calling its init function
    /// with this SQLite's table of API routines, as `sqlite3_load_extension` would after loading a library.
    ///
    /// ```swift
    /// try db.registerExtension(my_extension_init, named: "my_extension")
    /// ```
    ///
    /// This is how extensions work where loading code at run time is forbidden (iOS apps): add the extension's C
    /// source as a target of your package and register its init function on each connection, or list it in
    /// ``Configuration/extensions`` so that every connection a ``DatabaseQueue`` or ``DatabasePool`` opens has it.
    /// Nothing needs turning on: no library is loaded.
    ///
    /// Compile the extension in loadable style: it includes `sqlite3ext.h` (the copy it ships with, SQLite's, or
    /// the prefixed one `sqlite-amalgamation/fetch` installs beside `sqlite3.h`), declares `SQLITE_EXTENSION_INIT1`,
    /// calls `SQLITE_EXTENSION_INIT2(routines)` first in its init function and does not define `SQLITE_CORE`. Every
    /// call it makes then goes through the routines table, so the `sqltk_` prefix of this SQLite's symbols does not
    /// concern it. An extension compiled with `SQLITE_CORE` calls SQLite's functions by name, and this build has
    /// only prefixed names (`sqltk_sqlite3_create_function`): it needs each name it uses defined to the prefixed
    /// one before its first include, and a target that depends on `CSQLiteToolkit`; compiled against another
    /// `sqlite3.h` it would call another SQLite, or fail to link. See <doc:ExtensionsAndVectorSearch>.
    ///
    /// - Parameters:
    ///   - entryPoint: the extension's init function.
    ///   - name: what errors call the extension.
    /// - Throws: ``DatabaseError`` with ``DatabaseError/Reason/extensionRegistrationFailed(name:)`` and the
    ///   extension's message when its init function fails; ``DatabaseError/Reason/extensionLoadInCallback`` from
    ///   inside one of the connection's callbacks; ``DatabaseError/Reason/connectionClosed`` on a closed connection.
    ///
    /// Related SQLite documentation: <https://sqlite.org/loadext.html#statically_linking_a_run_time_loadable_extension>
    public func registerExtension(_ entryPoint: ExtensionEntryPoint, named name: String) throws {
        let connection = try connectionForExtension(named: name)
        let (code, text) = connection.registerExtension(entryPoint)
        // SQLITE_OK_LOAD_PERMANENTLY asks a loaded library to stay mapped: success for a linked extension.
        guard code == .ok || code == .okLoadPermanently else {
            throw extensionError(
                code, name: name, message: text ?? "\(code)", reason: .extensionRegistrationFailed(name: name))
        }
    }

    /// Loads or registers ``Configuration/extensions``, in order: at open, after the key, and after every reopen.
    func loadConfiguredExtensions() throws {
        for item in configuration.extensions {
            switch item.source {
            case .library(let path, let entryPoint):
                try loadExtension(atPath: path, entryPoint: entryPoint)
            case .linked(let entryPoint, let name):
                try registerExtension(entryPoint, named: name)
            }
        }
    }

    /// The connection, refused from inside a callback: SQLite would add functions and modules under a running
    /// statement, and a callback's code should not be where extensions appear.
    private func connectionForExtension(named name: String) throws -> ConnectionHandle {
        let connection = try connection()
        if runningCallbacks.isRunningCallback {
            throw DatabaseError.misuse(
                "cannot load or register the extension \(name) from inside one of the connection's callbacks: "
                    + "load it before running statements",
                reason: .extensionLoadInCallback)
        }
        return connection
    }

    /// The error of a load or registration: SQLite's (or the extension's) own message, as the sqlite3 shell shows
    /// it, with the library's path or the extension's name in the reason and in ``DatabaseError/path``.
    private func extensionError(_ code: ResultCode, name: String, message: String, reason: DatabaseError.Reason)
        -> DatabaseError
    {
        var error = DatabaseError(extendedCode: code, message: message, reason: reason)
        error.path = name
        return error
    }
}
