import SQLiteBindings

extension Database {
    /// Registers (or replaces) the FTS5 tokenizer `name`, written in Swift, for tables created with
    /// `tokenize = 'name arg1 arg2 ...'`.
    ///
    /// ```swift
    /// try db.createTokenizer("words") { arguments in WordTokenizer() }
    /// try db.execute("CREATE VIRTUAL TABLE doc USING fts5(body, tokenize = 'words')")
    /// ```
    ///
    /// - Parameters:
    ///   - name: The tokenizer's name in the `tokenize` option.
    ///   - make: Makes the instance for one table from the arguments after the name; an error it throws makes the
    ///     `CREATE VIRTUAL TABLE` (or the first use of the table) fail.
    /// - Throws: ``DatabaseError`` when the connection is closed, the name is invalid
    ///   (``DatabaseError/Reason/invalidTokenizerName(_:)``), or FTS5 refuses. The closure is released when the
    ///   tokenizer is replaced, when the connection closes, or at once when this call fails.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
    public func createTokenizer(_ name: String, _ make: @escaping (_ arguments: [String]) throws -> any FTS5Tokenizer)
        throws
    {
        let connection = try connection()
        try Database.checkName(name, reason: .invalidTokenizerName(name))
        let scope = runningCallbacks
        let code = connection.createFTS5Tokenizer(name: name) { arguments in
            guard let tokenizer = try? make(arguments) else { return nil }
            return { text, flags, sink in
                guard let string = Database.validUTF8(text) else { return .error }
                var stop = ResultCode.ok
                do {
                    try scope.run {
                        try tokenizer.tokenize(string, flags: flags) { token in
                            guard stop == .ok else { return }
                            guard token.byteRange.lowerBound >= 0, token.byteRange.upperBound <= text.count,
                                let start = Int32(exactly: token.byteRange.lowerBound),
                                let end = Int32(exactly: token.byteRange.upperBound)
                            else {
                                stop = .range
                                return
                            }
                            var tokenText = token.text
                            stop = tokenText.withUTF8 {
                                sink(UnsafeRawBufferPointer($0), start, end, token.isColocated)
                            }
                        }
                    }
                } catch {
                    return .error
                }
                return stop
            }
        }
        try checkTokenizerRegistration(code)
    }

    /// Registers (or replaces) the FTS5 tokenizer `name`, which wraps another tokenizer and passes each of its
    /// tokens through `transform`: a new text for the token (same position and byte range, so `highlight()` stays
    /// right), or `nil` to drop it.
    ///
    /// The wrapped tokenizer and its arguments follow the name in the table's `tokenize` option:
    ///
    /// ```swift
    /// try db.createWrapperTokenizer("fold") { token in
    ///     token.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    /// }
    /// try db.execute("CREATE VIRTUAL TABLE doc USING fts5(body, tokenize = 'fold unicode61 remove_diacritics 0')")
    /// ```
    ///
    /// or are bound here, once, with `base`, so tables name the wrapper alone:
    ///
    /// ```swift
    /// try db.createWrapperTokenizer("folding", base: ["porter", "unicode61"]) { $0.lowercased() }
    /// try db.execute("CREATE VIRTUAL TABLE doc USING fts5(body, tokenize = 'folding')")
    /// ```
    ///
    /// - Parameters:
    ///   - name: The wrapper's name in the `tokenize` option.
    ///   - base: The wrapped tokenizer and its arguments, as a `tokenize` option lists them, for tables that name
    ///     none after the wrapper; a table that names one uses its own. Without either, `unicode61`.
    ///   - transform: The new text of each token, or `nil` to drop it.
    /// - Throws: As ``createTokenizer(_:_:)``. A table naming a tokenizer that does not exist (after the wrapper's
    ///   name, or in `base`) fails to create.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
    public func createWrapperTokenizer(
        _ name: String, base: [String] = [], transform: @escaping (String) -> String?
    ) throws {
        let connection = try connection()
        try Database.checkName(name, reason: .invalidTokenizerName(name))
        let scope = runningCallbacks
        let code = connection.createFTS5Tokenizer(name: name) { tableArguments in
            let arguments = tableArguments.isEmpty ? base : tableArguments
            let baseName = arguments.first ?? "unicode61"
            guard let base = connection.findFTS5Tokenizer(name: baseName, arguments: Array(arguments.dropFirst()))
            else { return nil }
            return { text, flags, sink in
                guard Database.validUTF8(text) != nil else { return .error }
                return base.tokenize(text, flags: flags) { token, start, end, isColocated in
                    guard var folded = scope.run({ transform(String(decoding: token, as: UTF8.self)) }) else {
                        return .ok
                    }
                    return folded.withUTF8 { sink(UnsafeRawBufferPointer($0), start, end, isColocated) }
                }
            }
        }
        try checkTokenizerRegistration(code)
    }

    /// Registers (or replaces) the FTS5 tokenizer `name`, which wraps another tokenizer (the one the table names,
    /// else `base`, else `unicode61`) and drops the tokens in `stopWords`, compared after the wrapped tokenizer
    /// folded them.
    ///
    /// ```swift
    /// try db.createStopWordTokenizer("english", stopWords: ["a", "an", "and", "the", "of"])
    /// try db.execute("CREATE VIRTUAL TABLE doc USING fts5(body, tokenize = 'english porter unicode61')")
    /// ```
    ///
    /// - Throws: As ``createTokenizer(_:_:)``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
    public func createStopWordTokenizer(_ name: String, stopWords: Set<String>, base: [String] = []) throws {
        try createWrapperTokenizer(name, base: base) { token in stopWords.contains(token) ? nil : token }
    }

    /// The text as a `String` when it is valid UTF-8, else `nil`.
    static func validUTF8(_ bytes: UnsafeRawBufferPointer) -> String? {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid: continue
            case .emptyInput: return String(decoding: bytes, as: UTF8.self)
            case .error: return nil
            }
        }
    }

    /// Throws the error of a failed tokenizer registration.
    private func checkTokenizerRegistration(_ code: ResultCode) throws {
        guard code != .ok else { return }
        throw DatabaseError(extendedCode: code, message: "FTS5 refused the tokenizer (\(code))")
    }
}
