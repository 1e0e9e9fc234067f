/// A C type as clang prints it in a declaration (`const char *`, `int (*)(void *, int)`),
/// parsed far enough to map it to the type Swift imports.
indirect enum CType: Equatable, Sendable {
    /// A type named by its specifiers: `int`, `unsigned int`, `sqltk_sqlite3_int64`, `struct X`.
    case named(String, isConst: Bool)
    /// A pointer to `pointee`.
    case pointer(CType)
    /// A pointer to a function.
    case functionPointer(returns: CType, parameters: [CType], isVariadic: Bool)

    /// The type with `const` of the outermost named type removed.
    var isConstPointee: Bool {
        if case .named(_, let isConst) = self { return isConst }
        return false
    }

    /// The pointee of a pointer type.
    var pointee: CType? {
        if case .pointer(let pointee) = self { return pointee }
        return nil
    }

    /// The name of a named type, without `const`.
    var name: String? {
        if case .named(let name, _) = self { return name }
        return nil
    }
}

/// Parses clang's spelling of C types.
struct CTypeParser {
    private var tokens: [String]
    private var position = 0

    /// Parses `text`, throwing `GeneratorError.unsupportedType` for anything the grammar does not cover.
    static func parse(_ text: String) throws -> CType {
        var parser = CTypeParser(tokens: tokenize(text))
        let type = try parser.parseType(text)
        guard parser.position == parser.tokens.count else { throw GeneratorError.unsupportedType(text) }
        return type
    }

    /// Parses a function type `R (P1, P2)` as clang prints a function declaration's type.
    static func parseFunction(_ text: String) throws -> (returns: CType, parameters: [CType], isVariadic: Bool) {
        var parser = CTypeParser(tokens: tokenize(text))
        let returns = try parser.parseType(text)
        guard parser.peek == "(" else { throw GeneratorError.unsupportedType(text) }
        parser.position += 1
        let (parameters, isVariadic) = try parser.parseParameters(text)
        guard parser.position == parser.tokens.count else { throw GeneratorError.unsupportedType(text) }
        return (returns, parameters, isVariadic)
    }

    private init(tokens: [String]) {
        self.tokens = tokens
    }

    private static func tokenize(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        for character in text {
            if character.isLetter || character.isNumber || character == "_" {
                current.append(character)
                continue
            }
            if !current.isEmpty {
                tokens.append(current)
                current = ""
            }
            if character == "." {
                if tokens.last == ".." {
                    tokens[tokens.count - 1] = "..."
                } else if tokens.last == "." {
                    tokens[tokens.count - 1] = ".."
                } else {
                    tokens.append(".")
                }
            } else if !character.isWhitespace {
                tokens.append(String(character))
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }

    private var peek: String? { position < tokens.count ? tokens[position] : nil }

    private mutating func parseType(_ text: String) throws -> CType {
        var isConst = false
        var words: [String] = []
        while let token = peek, token.first?.isLetter == true || token.first == "_" {
            position += 1
            if token == "const" {
                isConst = true
            } else if token == "volatile" || token == "struct" {
                continue
            } else {
                words.append(token)
            }
        }
        guard !words.isEmpty else { throw GeneratorError.unsupportedType(text) }
        var type = CType.named(words.joined(separator: " "), isConst: isConst)
        while peek == "*" {
            position += 1
            type = .pointer(type)
            if peek == "const" { position += 1 }  // a const pointer is passed like any other
        }
        // A function pointer: R (*)(P...)
        if peek == "(", position + 2 < tokens.count, tokens[position + 1] == "*", tokens[position + 2] == ")" {
            position += 3
            guard peek == "(" else { throw GeneratorError.unsupportedType(text) }
            position += 1
            let (parameters, isVariadic) = try parseParameters(text)
            type = .functionPointer(returns: type, parameters: parameters, isVariadic: isVariadic)
        }
        return type
    }

    /// Parses parameters after an opening parenthesis, through the closing one.
    private mutating func parseParameters(_ text: String) throws -> ([CType], Bool) {
        var parameters: [CType] = []
        var isVariadic = false
        if peek == ")" {
            position += 1
            return ([], false)
        }
        while true {
            if peek == "..." {
                position += 1
                isVariadic = true
            } else {
                let parameter = try parseType(text)
                if parameter != .named("void", isConst: false) || !parameters.isEmpty || peek != ")" {
                    parameters.append(parameter)
                }
            }
            guard let token = peek else { throw GeneratorError.unsupportedType(text) }
            position += 1
            if token == ")" { return (parameters, isVariadic) }
            guard token == "," else { throw GeneratorError.unsupportedType(text) }
        }
    }
}
