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

/// How far SQL text is from holding complete statements: what a shell asks before it runs what was typed.
public enum SQLCompleteness: Sendable, Hashable {
    /// Every statement ends with a semicolon outside strings, comments and triggers: the text can run.
    case complete
    /// Only whitespace and comments: there is nothing to run.
    case empty
    /// A statement is not finished yet (no final semicolon, an open string, comment or trigger body).
    case incomplete
}

extension Database {
    /// Whether `sql` holds complete statements, only comments, or an unfinished statement
    /// (`sqlite3_incomplete`, which tells the comment-only case apart from `sqlite3_complete`).
    ///
    /// ```swift
    /// Database.completeness(of: "SELECT 1;")  // .complete
    /// Database.completeness(of: "SELECT 'a;") // .incomplete
    /// Database.completeness(of: "-- note\n")  // .empty
    /// ```
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/complete.html>
    public static func completeness(of sql: String) -> SQLCompleteness {
        switch SQLiteLibrary.incompleteness(sql) {
        case 0: return .complete
        case Int64(ResultCode.empty.rawValue): return .empty
        default: return .incomplete
        }
    }
}
