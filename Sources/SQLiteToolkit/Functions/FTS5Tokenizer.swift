import SQLiteBindings

/// An FTS5 tokenizer written in Swift: splits text into the tokens FTS5 indexes and matches.
///
/// ```swift
/// final class WordTokenizer: FTS5Tokenizer {
///     func tokenize(_ text: String, flags: FTS5TokenizeFlags, emit: (FTS5Token) throws -> Void) throws {
///         var start = text.utf8.startIndex
///         for word in text.split(whereSeparator: { !$0.isLetter && !$0.isNumber }) {
///             let begin = text.utf8.distance(from: start, to: word.utf8.startIndex) ...
///             try emit(FTS5Token(word.lowercased(), byteRange: ...))
///         }
///     }
/// }
/// try db.createTokenizer("words") { _ in WordTokenizer() }
/// try db.execute("CREATE VIRTUAL TABLE doc USING fts5(body, tokenize = 'words')")
/// ```
///
/// FTS5 makes one instance per table (from the arguments after the tokenizer's name in the `tokenize` option) and
/// calls it on the connection's thread. Text that is not valid UTF-8 is refused before ``tokenize(_:flags:emit:)``
/// runs: the statement fails with an error.
///
/// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
public protocol FTS5Tokenizer: AnyObject {
    /// Splits `text` into tokens, in order, passing each to `emit`. `flags` says why (a document, a query, a
    /// prefix query, an auxiliary function such as `highlight()`). An error thrown fails the statement.
    func tokenize(_ text: String, flags: FTS5TokenizeFlags, emit: (FTS5Token) throws -> Void) throws
}

/// One token produced by an ``FTS5Tokenizer``.
///
/// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
public struct FTS5Token: Sendable, Hashable {
    /// The token as indexed and matched (often folded: lowercased, without accents).
    public var text: String
    /// The bytes of the input text (UTF-8 offsets) the token came from; `highlight()` and `snippet()` mark
    /// exactly these bytes.
    public var byteRange: Range<Int>
    /// Whether the token sits at the same position as the previous one (a synonym, `FTS5_TOKEN_COLOCATED`).
    public var isColocated: Bool

    /// A token `text` from the bytes `byteRange` of the input.
    public init(_ text: String, byteRange: Range<Int>, isColocated: Bool = false) {
        self.text = text
        self.byteRange = byteRange
        self.isColocated = isColocated
    }
}
