extension Database {
    /// SQLite's error for a function the schema uses (an index, a generated column, a `CHECK`, a view, a trigger)
    /// that is not innocuous, while the schema is not trusted: "unsafe use of f()".
    static let unsafeUsePrefix = "unsafe use of "

    /// `message` with a hint added when it is SQLite's "unsafe use of ..." error, which does not say what to do.
    ///
    /// Related SQLite documentation: <https://sqlite.org/compile.html#trusted_schema>
    static func withHint(_ message: String) -> String {
        guard message.hasPrefix(unsafeUsePrefix) else { return message }
        return message
            + " (this build does not trust the schema, SQLITE_TRUSTED_SCHEMA=0: register a function the schema uses"
            + " with options [.deterministic, .innocuous], or run PRAGMA trusted_schema = ON on this connection)"
    }
}
