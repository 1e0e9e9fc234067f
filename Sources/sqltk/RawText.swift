/// Text that may hold bytes that are not UTF-8 (a Latin-1 database, a Latin-1 CSV file or script), carried in a
/// Swift `String` without loss, so the shell writes and stores the bytes it was given as the sqlite3 shell does,
/// where decoding with replacement would put U+FFFD (EF BF BD) in their place.
///
/// Each byte of an invalid sequence stands as one code point of the last 256 of Supplementary Private Use Area-B,
/// U+10FF00 + the byte. A code point of that range that the bytes themselves spell (valid UTF-8, but never text a
/// person types) is carried as its four bytes the same way, so ``bytes(of:)`` gives back exactly the bytes
/// ``text(decoding:)`` was given, whatever they were.
enum RawText {
    /// The code point that stands for byte 0; byte N is `base + N`.
    private static let base: UInt32 = 0x10FF00

    /// The first byte of the UTF-8 of every code point from U+100000 up, the standing-in ones among them: text
    /// without it holds no raw byte.
    private static let leadByte: UInt8 = 0xF4

    /// `bytes` as text: UTF-8 as its characters, any other byte as the code point that stands for it.
    static func text<Bytes: Collection<UInt8>>(decoding input: Bytes) -> String {
        if !input.contains(where: { $0 >= 0x80 }) { return String(decoding: input, as: UTF8.self) }
        let bytes = Array(input)
        // Most text is UTF-8 without the standing-in code points: the standard library decodes it faster.
        if !bytes.contains(leadByte) && isUTF8(bytes) { return String(decoding: bytes, as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        func standIn(_ byte: UInt8) {
            if let scalar = Unicode.Scalar(base + UInt32(byte)) { scalars.append(scalar) }
        }
        var index = 0
        while index < bytes.count {
            let first = bytes[index]
            let length = sequenceLength(bytes, at: index)
            guard length > 0 else {
                // Not the start of a well-formed sequence: this byte alone stands in; the next starts afresh.
                standIn(first)
                index += 1
                continue
            }
            var value = length == 1 ? UInt32(first) : UInt32(first) & (0xFF >> (length + 1))
            for offset in 1..<max(1, length) { value = value << 6 | UInt32(bytes[index + offset] & 0x3F) }
            if value >= base {
                for offset in 0..<length { standIn(bytes[index + offset]) }
            } else if let scalar = Unicode.Scalar(value) {
                scalars.append(scalar)
            }
            index += length
        }
        return String(scalars)
    }

    /// Whether `bytes` are well-formed UTF-8 throughout.
    private static func isUTF8(_ bytes: [UInt8]) -> Bool {
        var index = 0
        while index < bytes.count {
            let length = sequenceLength(bytes, at: index)
            guard length > 0 else { return false }
            index += length
        }
        return true
    }

    /// The length of the well-formed UTF-8 sequence at `index` of `bytes` (Unicode's table 3-7: no overlong form,
    /// no surrogate, nothing past U+10FFFF), or 0 when there is none.
    private static func sequenceLength(_ bytes: [UInt8], at index: Int) -> Int {
        let first = bytes[index]
        let length: Int
        var second: ClosedRange<UInt8> = 0x80...0xBF
        switch first {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0: (length, second) = (3, 0xA0...0xBF)
        case 0xED: (length, second) = (3, 0x80...0x9F)
        case 0xE1...0xEF: length = 3
        case 0xF0: (length, second) = (4, 0x90...0xBF)
        case 0xF4: (length, second) = (4, 0x80...0x8F)
        case 0xF1...0xF3: length = 4
        default: return 0
        }
        guard index + length <= bytes.count, second.contains(bytes[index + 1]) else { return 0 }
        for offset in 2..<max(2, length) where !(0x80...0xBF).contains(bytes[index + offset]) { return 0 }
        return length
    }

    /// The text `text` carries when the bytes it stands for are all UTF-8 (its U+10FF00...U+10FFFF carried as
    /// stand-ins, see ``text(decoding:)``), as a plain `String` for the APIs that take one; `nil` when they are not.
    /// Not for ``bytes(of:)`` or ``holdsRawBytes(_:)``, which would take its U+10FFxx for stand-ins.
    static func plainText(_ text: String) -> String? {
        guard holdsRawBytes(text) else { return text }
        let bytes = bytes(of: text)
        return isUTF8(bytes) ? String(decoding: bytes, as: UTF8.self) : nil
    }

    /// Runs `body` with the bytes `text` stands for as a C string, for the system calls that take a path or a
    /// command: a Latin-1 file name or command reaches them as its bytes, as sqlite3 passes it. (A NUL ends it.)
    static func withCString<Result>(_ text: String, _ body: (UnsafePointer<CChar>) throws -> Result) rethrows
        -> Result
    {
        guard holdsRawBytes(text) else { return try text.withCString(body) }
        let bytes = (bytes(of: text) + [0]).map { CChar(bitPattern: $0) }
        return try bytes.withUnsafeBufferPointer { buffer in
            // An array of at least one element has a base address.
            guard let start = buffer.baseAddress else { return try "".withCString(body) }
            return try body(start)
        }
    }

    /// Whether `text` holds a code point that stands for a raw byte (a cheap test on its UTF-8).
    static func holdsRawBytes(_ text: String) -> Bool {
        text.utf8.contains(leadByte) && text.unicodeScalars.contains { $0.value >= base }
    }

    /// The characters of `scalars` (text that carries stand-ins), each as its range of `scalars` and the code point a
    /// terminal shows for it: a run of stand-ins spelling one well-formed UTF-8 sequence (a U+10FF00...U+10FFFF of
    /// the bytes given, carried as its four bytes) is one, shown as that code point; any other code point is one,
    /// shown as itself.
    static func shownCharacters(of scalars: [Unicode.Scalar]) -> [(range: Range<Int>, shown: Unicode.Scalar)] {
        var characters: [(range: Range<Int>, shown: Unicode.Scalar)] = []
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            var bytes: [UInt8] = []
            var end = index
            while end < scalars.count && end - index < 4 && scalars[end].value >= base {
                bytes.append(UInt8(truncatingIfNeeded: scalars[end].value - base))
                end += 1
            }
            let length = bytes.isEmpty ? 0 : sequenceLength(bytes, at: 0)
            if length > 1, let shown = String(decoding: bytes.prefix(length), as: UTF8.self).unicodeScalars.first {
                characters.append((index..<(index + length), shown))
                index += length
            } else {
                characters.append((index..<(index + 1), scalar))
                index += 1
            }
        }
        return characters
    }

    /// `text` as a terminal shows it, for measuring: each character of ``shownCharacters(of:)`` as its shown code
    /// point. Not for writing: its U+10FFxx would be taken for stand-ins.
    static func shownText(_ text: String) -> String {
        var shown = String.UnicodeScalarView()
        for character in shownCharacters(of: Array(text.unicodeScalars)) { shown.append(character.shown) }
        return String(shown)
    }

    /// The bytes `text` stands for: its UTF-8, with each standing-in code point as its byte.
    static func bytes(of text: String) -> [UInt8] {
        guard holdsRawBytes(text) else { return Array(text.utf8) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if scalar.value >= base {
                bytes.append(UInt8(truncatingIfNeeded: scalar.value - base))
            } else {
                bytes.append(contentsOf: scalar.utf8)
            }
        }
        return bytes
    }
}
