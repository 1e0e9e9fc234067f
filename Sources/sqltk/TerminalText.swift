/// Text as a terminal shows it: how many columns it takes, and how a table cell shows what a terminal would act on
/// instead of showing (tabs, line breaks, control characters).
enum TerminalText {
    /// `text` for a table cell: a colour or style sequence (`ESC [ … m`) is kept, so highlights still show; a tab,
    /// line break or any other control character is written as an escape (`\t`, `\n`, `\r`, `\x1B`), so every
    /// cell stays on one line and no sequence in the data moves the cursor.
    static func cellText(_ text: String) -> String {
        // The common case: nothing to escape.
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 }) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\u{1B}", let end = styleSequenceEnd(in: scalars, from: index) {
                result.unicodeScalars.append(contentsOf: scalars[index...end])
                index = end + 1
                continue
            }
            switch scalar {
            case "\t": result += "\\t"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\x" + hex(scalar.value, digits: 2)
            case _ where (0x80..<0xA0).contains(scalar.value):
                result += "\\u" + hex(scalar.value, digits: 4)
            default:
                result.unicodeScalars.append(scalar)
            }
            index += 1
        }
        return result
    }

    /// The index of the `m` that ends the style sequence `ESC [ digits;digits m` starting at `start`, or `nil`.
    private static func styleSequenceEnd(in scalars: [Unicode.Scalar], from start: Int) -> Int? {
        guard start + 1 < scalars.count, scalars[start + 1] == "[" else { return nil }
        var index = start + 2
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "m" { return index }
            guard ("0"..."9").contains(scalar) || scalar == ";" else { return nil }
            index += 1
        }
        return nil
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// The columns `text` takes on a terminal: a style sequence takes none, an East Asian wide or full-width
    /// character or an emoji two, a combining mark none, anything else one.
    static func width(of text: String) -> Int {
        // The common case: ASCII without escapes is one column a byte.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        // A U+10FFxx of the data is carried as four stand-ins (see RawText): measured as the one it is.
        return shownWidth(of: RawText.holdsRawBytes(text) ? RawText.shownText(text) : text)
    }

    /// The columns of `text`, whose code points are all shown as themselves.
    private static func shownWidth(of text: String) -> Int {
        var width = 0
        var isInStyleSequence = false
        for character in text {
            if isInStyleSequence {
                if character == "m"
                    || !(character.isASCII && (character.isNumber || character == ";" || character == "["))
                {
                    isInStyleSequence = false
                }
                continue
            }
            if character == "\u{1B}" {
                isInStyleSequence = true
                continue
            }
            width += self.width(of: character)
        }
        return width
    }

    /// The columns one character (a grapheme cluster) takes.
    static func width(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        let properties = first.properties
        if properties.isEmojiPresentation { return 2 }
        // A text-style emoji turned into an emoji by VS16 (U+FE0F), a keycap: two columns as terminals draw it.
        if properties.isEmoji && scalars.contains("\u{FE0F}") { return 2 }
        if isWide(first.value) { return 2 }
        switch properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: return 1
        }
    }

    /// Whether `value` is East Asian Wide or Full-width (Unicode's EastAsianWidth W and F), by block.
    static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F,  // Hangul Jamo initial consonants
            0x2E80...0x303E,  // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
            0x3041...0x33FF,  // Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, Kanbun, CJK compatibility
            0x3400...0x4DBF,  // CJK unified ideographs extension A
            0x4E00...0x9FFF,  // CJK unified ideographs
            0xA000...0xA4CF,  // Yi
            0xA960...0xA97F,  // Hangul Jamo extended A
            0xAC00...0xD7A3,  // Hangul syllables
            0xF900...0xFAFF,  // CJK compatibility ideographs
            0xFE10...0xFE19,  // vertical forms
            0xFE30...0xFE6F,  // CJK compatibility forms, small form variants
            0xFF00...0xFF60,  // full-width forms
            0xFFE0...0xFFE6,  // full-width signs
            0x16FE0...0x16FE4, 0x17000...0x18AFF, 0x1B000...0x1B2FF,  // Tangut, Khitan, Kana supplement
            0x1F200...0x1F2FF,  // enclosed ideographic supplement
            0x20000...0x2FFFD, 0x30000...0x3FFFD:  // CJK extensions B and later
            return true
        default:
            return false
        }
    }
}
