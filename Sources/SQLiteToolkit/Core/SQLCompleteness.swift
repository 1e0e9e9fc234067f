import SQLiteBindings

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
