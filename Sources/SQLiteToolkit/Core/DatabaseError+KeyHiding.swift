extension DatabaseError {
    /// The names of the `file:` URI parameters that carry a key to the codec.
    private static let uriKeyParameters: Set<String> = ["key", "hexkey", "textkey"]
    /// The words a key follows: `ATTACH … KEY '…'`, and the codec's pragmas (`PRAGMA rekey = '…'`).
    private static let keyWords: Set<String> = ["KEY", "HEXKEY", "TEXTKEY", "REKEY", "HEXREKEY", "TEXTREKEY"]

    /// `sql` with the keys written into it left out: the string or blob literal after a `KEY` keyword
    /// (`ATTACH 'x' AS y KEY 'secret'`) or a key pragma (`PRAGMA key = '…'`, `rekey`, `hexkey`, ...) becomes `'…'`, and the `key=`, `hexkey=` and `textkey=` parameters of a
    /// `file:` URI in a string literal are dropped, name and value. `firstHiddenOffset` is the byte offset in `sql`
    /// of the first text hidden, `nil` when nothing was.
    ///
    /// Errors never carry key material, and an error keeps the SQL that failed: a key a statement spells out (not
    /// bound with `KEY ?`) would otherwise be in ``sql`` and ``description``.
    static func hidingKeys(in sql: String) -> (sql: String, firstHiddenOffset: Int?) {
        let bytes = Array(sql.utf8)
        // Every statement that can hold a key has the letters "key" (KEY, key=, hexkey=, textkey=).
        guard Self.containsKeyWord(bytes) else { return (sql, nil) }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var firstHidden: Int?
        var afterKeyword = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "'") || Self.startsBlobLiteral(bytes, at: index) {
                let start = index
                let quote = byte == UInt8(ascii: "'") ? index : index + 1
                let end = Self.endOfQuoted(bytes, from: quote, closing: UInt8(ascii: "'"))
                let literal = Array(bytes[start..<end])
                var replacement = literal
                if afterKeyword {
                    replacement = Array("'…'".utf8)
                } else if quote == start, end - start >= 2 {
                    replacement = Self.droppingURIKeys(literal)
                }
                if replacement != literal, firstHidden == nil { firstHidden = start }
                output += replacement
                index = end
                afterKeyword = false
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "`") || byte == UInt8(ascii: "[") {
                let closing = byte == UInt8(ascii: "[") ? UInt8(ascii: "]") : byte
                let end = Self.endOfQuoted(bytes, from: index, closing: closing)
                output += bytes[index..<end]
                index = end
                afterKeyword = false
            } else if byte == UInt8(ascii: "-"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "-") {
                let end = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
                output += bytes[index..<end]
                index = end
            } else if byte == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*") {
                var end = index + 2
                while end < bytes.count, !(bytes[end - 1] == UInt8(ascii: "*") && bytes[end] == UInt8(ascii: "/")) {
                    end += 1
                }
                end = min(end + 1, bytes.count)
                output += bytes[index..<end]
                index = end
            } else if Self.isWordByte(byte) {
                var end = index
                while end < bytes.count, Self.isWordByte(bytes[end]) { end += 1 }
                let word = bytes[index..<end]
                afterKeyword = word.count <= 9 && keyWords.contains(String(decoding: word, as: UTF8.self).uppercased())
                output += word
                index = end
            } else {
                // `PRAGMA key = '…'`, `PRAGMA key('…')`: the value still follows.
                if byte != UInt8(ascii: " ") && byte != UInt8(ascii: "=") && byte != UInt8(ascii: "(")
                    && byte != UInt8(ascii: "\t") && byte != UInt8(ascii: "\n")
                    && byte != UInt8(ascii: "\r")
                {
                    afterKeyword = false
                }
                output.append(byte)
                index += 1
            }
        }
        guard let firstHidden else { return (sql, nil) }
        return (String(decoding: output, as: UTF8.self), firstHidden)
    }

    /// Whether `bytes` holds the letters "key" in any case.
    private static func containsKeyWord(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 3 else { return false }
        for index in 0...(bytes.count - 3) {
            let k = bytes[index] | 0x20
            let e = bytes[index + 1] | 0x20
            let y = bytes[index + 2] | 0x20
            if k == UInt8(ascii: "k") && e == UInt8(ascii: "e") && y == UInt8(ascii: "y") { return true }
        }
        return false
    }

    /// Whether a blob literal (`x'…'`) starts at `index`, not in the middle of a word.
    private static func startsBlobLiteral(_ bytes: [UInt8], at index: Int) -> Bool {
        guard bytes[index] | 0x20 == UInt8(ascii: "x"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "'")
        else { return false }
        return index == 0 || !isWordByte(bytes[index - 1])
    }

    /// The index after the quoted token that opens at `start` and closes with `closing` (doubled, it stands for
    /// itself inside), or the end of `bytes` when it is not closed.
    private static func endOfQuoted(_ bytes: [UInt8], from start: Int, closing: UInt8) -> Int {
        var index = start + 1
        while index < bytes.count {
            if bytes[index] == closing {
                if closing != UInt8(ascii: "]"), index + 1 < bytes.count, bytes[index + 1] == closing {
                    index += 2
                    continue
                }
                return index + 1
            }
            index += 1
        }
        return bytes.count
    }

    /// Letters, digits, `_`, `$` and the bytes of non-ASCII characters, which SQLite allows in a bare word.
    private static func isWordByte(_ byte: UInt8) -> Bool {
        byte >= 0x80 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
    }

    /// The string literal `literal` (quotes included) without the key parameters of the `file:` URI it holds.
    private static func droppingURIKeys(_ literal: [UInt8]) -> [UInt8] {
        let content = String(decoding: literal.dropFirst().dropLast(), as: UTF8.self)
        guard content.lowercased().hasPrefix("file:"), let question = content.firstIndex(of: "?") else {
            return literal
        }
        let parameters = content[content.index(after: question)...].split(
            separator: "&", omittingEmptySubsequences: false)
        let kept = parameters.filter { parameter in
            let name = parameter.prefix { $0 != "=" }.lowercased()
            return !uriKeyParameters.contains(name)
        }
        guard kept.count != parameters.count else { return literal }
        var uri = String(content[..<question])
        if !kept.isEmpty { uri += "?" + kept.joined(separator: "&") }
        return Array("'\(uri)'".utf8)
    }
}
