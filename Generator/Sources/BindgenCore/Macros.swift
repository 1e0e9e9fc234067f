/// Evaluates the integer macros of a `clang -dM -E` dump (`#define SQLITE_IOERR_READ (SQLITE_IOERR | (1<<8))`).
/// Macros whose body is not an integer expression of literals and other integer macros are left out.
enum MacroEvaluator {
    static func evaluate(_ definitions: String) -> [String: Int64] {
        var bodies: [String: String] = [:]
        for line in definitions.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            guard parts.count == 3, parts[0] == "#define", !parts[1].contains("(") else { continue }
            bodies[String(parts[1])] = String(parts[2])
        }
        var values: [String: Int64] = [:]
        var failed: Set<String> = []
        func value(of name: String, depth: Int) -> Int64? {
            if let known = values[name] { return known }
            guard depth < 32, !failed.contains(name), let body = bodies[name] else { return nil }
            var parser = ExpressionParser(tokens: tokenize(body)) { value(of: $0, depth: depth + 1) }
            guard let result = parser.parseExpression(), parser.isAtEnd else {
                failed.insert(name)
                return nil
            }
            values[name] = result
            return result
        }
        for name in bodies.keys { _ = value(of: name, depth: 0) }
        return values
    }

    static func tokenize(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        let characters = Array(text)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character.isLetter || character.isNumber || character == "_" {
                current.append(character)
            } else {
                if !current.isEmpty {
                    tokens.append(current)
                    current = ""
                }
                if (character == "<" || character == ">") && index + 1 < characters.count
                    && characters[index + 1] == character
                {
                    tokens.append(String([character, character]))
                    index += 1
                } else if !character.isWhitespace {
                    tokens.append(String(character))
                }
            }
            index += 1
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }
}

/// A precedence-climbing parser of C integer constant expressions.
private struct ExpressionParser {
    var tokens: [String]
    var position = 0
    let lookUp: (String) -> Int64?

    init(tokens: [String], lookUp: @escaping (String) -> Int64?) {
        self.tokens = tokens
        self.lookUp = lookUp
    }

    var isAtEnd: Bool { position == tokens.count }

    private static let precedence: [String: Int] = ["|": 1, "^": 2, "&": 3, "<<": 4, ">>": 4, "+": 5, "-": 5, "*": 6]

    mutating func parseExpression(minimum: Int = 1) -> Int64? {
        guard var left = parseUnary() else { return nil }
        while position < tokens.count, let level = Self.precedence[tokens[position]], level >= minimum {
            let operation = tokens[position]
            position += 1
            guard let right = parseExpression(minimum: level + 1) else { return nil }
            switch operation {
            case "|": left |= right
            case "^": left ^= right
            case "&": left &= right
            case "<<": left = left << right
            case ">>": left = left >> right
            case "+": left = left &+ right
            case "-": left = left &- right
            default: left = left &* right
            }
        }
        return left
    }

    private mutating func parseUnary() -> Int64? {
        guard position < tokens.count else { return nil }
        let token = tokens[position]
        position += 1
        switch token {
        case "-": return parseUnary().map { 0 &- $0 }
        case "~": return parseUnary().map { ~$0 }
        case "(":
            guard let inner = parseExpression(), position < tokens.count, tokens[position] == ")" else { return nil }
            position += 1
            return inner
        default:
            if let first = token.first, first.isNumber { return Self.literal(token) }
            return lookUp(token)
        }
    }

    private static func literal(_ token: String) -> Int64? {
        var digits = Substring(token)
        while let last = digits.last, "uUlL".contains(last) { digits = digits.dropLast() }
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
            return UInt64(digits.dropFirst(2), radix: 16).map { Int64(bitPattern: $0) }
        }
        // C reads a literal with a leading zero as octal: 0755 is 493.
        if digits.count > 1, digits.hasPrefix("0") {
            return UInt64(digits.dropFirst(), radix: 8).map { Int64(bitPattern: $0) }
        }
        return Int64(digits)
    }
}
