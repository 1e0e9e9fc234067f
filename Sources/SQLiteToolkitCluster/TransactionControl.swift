/// Finds statements that begin or end a transaction, which belong to ``ClusterDatabase``: it knows what a break
/// means only while it alone decides where a transaction begins and where it commits.
enum TransactionControl {
    /// The first keywords of the statements a body may not run.
    static let keywords: Set<String> = ["BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE"]

    /// The first keyword, upper-cased, of the first statement of `sql` that begins with one of ``keywords``; nil when
    /// none does.
    ///
    /// Every statement of `sql` counts (the node runs them all), each from its first word after whitespace and
    /// comments. Semicolons in string literals, quoted names and comments end nothing, nor do those of a
    /// `CREATE TRIGGER`'s body: its `BEGIN` and `END` are not statements of their own.
    static func keyword(in sql: String) -> String? {
        var tokens = SQLTokens(Array(sql.utf8))
        var statementWords: [String] = []
        var statementStarted = false
        var inTrigger = false
        var caseDepth = 0
        var lastWasEnd = false
        while let token = tokens.next() {
            switch token {
            case .semicolon:
                if !inTrigger || lastWasEnd {
                    statementWords = []
                    statementStarted = false
                    inTrigger = false
                    caseDepth = 0
                }
                lastWasEnd = false
            case .word(let word):
                let upper = word.uppercased()
                if !statementStarted, keywords.contains(upper) { return upper }
                statementStarted = true
                if statementWords.count < 3 {
                    statementWords.append(upper)
                    inTrigger = inTrigger || Self.beginsTrigger(statementWords)
                }
                // A trigger's body ends at END then a semicolon; the END of a CASE inside it does not end it.
                lastWasEnd = false
                if upper == "CASE" {
                    caseDepth += 1
                } else if upper == "END" {
                    if caseDepth > 0 { caseDepth -= 1 } else { lastWasEnd = true }
                }
            case .other:
                statementStarted = true
                lastWasEnd = false
            }
        }
        return nil
    }

    /// Whether a statement's first words are `CREATE [TEMP | TEMPORARY] TRIGGER`.
    private static func beginsTrigger(_ words: [String]) -> Bool {
        guard words.first == "CREATE", words.count >= 2 else { return false }
        if words[1] == "TRIGGER" { return true }
        return words.count == 3 && (words[1] == "TEMP" || words[1] == "TEMPORARY") && words[2] == "TRIGGER"
    }
}

/// The tokens of SQL text that matter for finding where statements begin: words, semicolons, and anything else
/// (whitespace and comments are skipped; a literal or quoted name is one `other`).
struct SQLTokens {
    enum Token: Equatable {
        case word(String)
        case semicolon
        case other
    }

    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func next() -> Token? {
        skipSpaceAndComments()
        guard index < bytes.count else { return nil }
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: ";"):
            index += 1
            return .semicolon
        case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"):
            // A doubled quote inside is two literals back to back here, which is the same to the statement's start.
            skip(past: byte)
            return .other
        case UInt8(ascii: "["):
            skip(past: UInt8(ascii: "]"))
            return .other
        default:
            guard Self.isWordByte(byte) else {
                index += 1
                return .other
            }
            let start = index
            while index < bytes.count, Self.isWordByte(bytes[index]) { index += 1 }
            return .word(String(decoding: bytes[start..<index], as: UTF8.self))
        }
    }

    /// Letters, digits, `_`, `$` and every byte of a non-ASCII character, as in SQLite's identifiers.
    private static func isWordByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "$"), 0x80...0xff:
            true
        default: false
        }
    }

    /// Moves past the opening byte at `index` and the next `closing` byte (to the end when there is none).
    private mutating func skip(past closing: UInt8) {
        index += 1
        while index < bytes.count, bytes[index] != closing { index += 1 }
        index = min(index + 1, bytes.count)
    }

    private mutating func skipSpaceAndComments() {
        while index < bytes.count {
            let byte = bytes[index]
            let following = index + 1 < bytes.count ? bytes[index + 1] : 0
            if byte == 0x20 || (0x09...0x0d).contains(byte) {
                index += 1
            } else if byte == UInt8(ascii: "-"), following == UInt8(ascii: "-") {
                while index < bytes.count, bytes[index] != 0x0a { index += 1 }
            } else if byte == UInt8(ascii: "/"), following == UInt8(ascii: "*") {
                index += 2
                while index < bytes.count,
                    !(bytes[index] == UInt8(ascii: "*") && index + 1 < bytes.count
                        && bytes[index + 1] == UInt8(ascii: "/"))
                {
                    index += 1
                }
                index = min(index + 2, bytes.count)
            } else {
                return
            }
        }
    }
}
