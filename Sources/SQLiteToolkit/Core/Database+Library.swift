import SQLiteBindings

extension Database {
    /// The version of the SQLite library the toolkit runs on (`"3.51.0"`), from `sqlite3_libversion`.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/libversion.html>
    public static var sqliteVersion: String { SQLiteLibrary.version() ?? "" }

    /// The SQLite version as one number: 3051000 for 3.51.0 (`sqlite3_libversion_number`).
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/libversion.html>
    public static var sqliteVersionNumber: Int { Int(SQLiteLibrary.versionNumber()) }

    /// The check-in of the SQLite sources the library was built from (`sqlite3_sourceid`).
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/libversion.html>
    public static var sqliteSourceID: String { SQLiteLibrary.sourceID() ?? "" }

    /// The name and version of SQLite3 Multiple Ciphers, the codec built into this SQLite
    /// (`"SQLite3 Multiple Ciphers 2.x.y"`, from `sqlite3mc_version`).
    ///
    /// Related SQLite documentation: <https://utelle.github.io/SQLite3MultipleCiphers/docs/configuration/config_capi/>
    public static var multipleCiphersVersion: String { SQLiteLibrary.multipleCiphersVersion() ?? "" }

    /// The options SQLite was compiled with, without their `SQLITE_` prefix (`"THREADSAFE=1"`, `"ENABLE_FTS5"`),
    /// in SQLite's order (`sqlite3_compileoption_get`).
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/compileoption_get.html>
    public static var compileOptions: [String] {
        var options: [String] = []
        var index: Int32 = 0
        while let option = SQLiteLibrary.compileOption(at: index) {
            options.append(option)
            index += 1
        }
        return options
    }

    /// Whether SQLite was compiled with `option`, given with or without its `SQLITE_` prefix
    /// (`sqlite3_compileoption_used`).
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/compileoption_get.html>
    public static func isCompileOptionUsed(_ option: String) -> Bool {
        SQLiteLibrary.isCompileOptionUsed(option)
    }
}
