import SQLiteBindings

extension Database {
    /// Defines the SQL function `regexp`, which SQLite calls for `text REGEXP pattern`: true when the regular
    /// expression `pattern` (Swift `Regex` syntax) matches anywhere in `text`, NULL when either is NULL.
    ///
    /// ```swift
    /// try db.createRegexpFunction()
    /// let rows = try db.query("SELECT name FROM person WHERE name REGEXP '^Jos[eé]$'")
    /// ```
    ///
    /// SQLite has no `REGEXP` of its own: without this call the operator fails with "no such function: REGEXP".
    /// A pattern that is constant in the statement (a literal or a bound parameter) is compiled once per statement
    /// and kept as the call's auxiliary data. An invalid pattern fails the statement (the error does not quote it).
    ///
    /// - Throws: ``DatabaseError`` when the connection is closed, or SQLite refuses (`SQLITE_BUSY` while a
    ///   statement using `regexp` runs).
    ///
    /// Related SQLite documentation: <https://sqlite.org/lang_expr.html#the_like_glob_regexp_match_and_extract_operators>
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, visionOS 1, *)
    public func createRegexpFunction() throws {
        try createFunction("regexp", argumentCount: 2, options: [.deterministic, .innocuous]) { context, arguments in
            let pattern = arguments[0]
            let text = arguments[1]
            guard pattern.valueType() != .null, text.valueType() != .null else {
                context.resultNull()
                return
            }
            let compiled: CompiledRegex
            if let cached = context.auxiliaryObject(forArgument: 0, as: CompiledRegex.self) {
                compiled = cached
            } else {
                compiled = try CompiledRegex(pattern.valueString() ?? "")
                context.setAuxiliaryObject(compiled, forArgument: 0)
            }
            context.resultInt(compiled.matches(text.valueString() ?? "") ? 1 : 0)
        }
    }
}

/// A compiled `REGEXP` pattern, kept as auxiliary data of the pattern argument.
@available(macOS 13, iOS 16, tvOS 16, watchOS 9, visionOS 1, *)
final class CompiledRegex {
    let regex: Regex<AnyRegexOutput>

    init(_ pattern: String) throws {
        do {
            regex = try Regex(pattern)
        } catch {
            throw DatabaseError(extendedCode: .error, message: "invalid regular expression pattern for REGEXP")
        }
    }

    func matches(_ text: String) -> Bool {
        (try? regex.firstMatch(in: text)) != nil
    }
}
