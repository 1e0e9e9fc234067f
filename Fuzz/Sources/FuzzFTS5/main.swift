// libFuzzer target: the FTS5 tokenizer path, with a tokenizer written in Swift (createTokenizer) and wrapper
// tokenizers (createWrapperTokenizer) over random text, valid UTF-8 or not.
//
// Input: a selector byte (raw bytes or text, the wrapper's transform, which two tables), then up to four documents
// and a query, separated by NUL bytes. Documents are stored as text (repaired to valid UTF-8) or, by the selector,
// as their raw bytes cast to TEXT (invalid UTF-8 reaches the tokenizers, which must refuse it with an error). The
// Swift tokenizer can also be told, by the table's arguments, to emit a byte range past the text's end or to
// throw. Then MATCH queries (the query as FTS5 syntax and as one quoted phrase) with highlight(), snippet() and
// bm25(), and FTS5's integrity check. Invariants: highlight() of a stored document without its markers is the
// document; a table whose tokenizer behaves passes integrity-check.
// Build and run with Fuzz/run.
import CFuzzerDriver
import Foundation
import FuzzSupport
import SQLiteToolkit

/// Words of letters, digits and any non-ASCII byte, lowercased (ASCII only); byte ranges in UTF-8 offsets. `mode`,
/// the table's first tokenizer argument: `bad` emits one range past the text's end, `throw` throws at the token
/// `boom`.
final class WordTokenizer: FTS5Tokenizer {
    let mode: String
    init(mode: String) { self.mode = mode }

    func tokenize(_ text: String, flags: FTS5TokenizeFlags, emit: (FTS5Token) throws -> Void) throws {
        let bytes = Array(text.utf8)
        var start: Int?
        func isWordByte(_ byte: UInt8) -> Bool {
            byte >= 0x80 || (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
        }
        for index in 0...bytes.count {
            if index < bytes.count, isWordByte(bytes[index]) {
                if start == nil { start = index }
                continue
            }
            guard let begin = start else { continue }
            start = nil
            let word = String(decoding: bytes[begin..<index], as: UTF8.self).lowercased()
            if mode == "throw" && word == "boom" {
                throw DatabaseError(extendedCode: .error, message: "the tokenizer refuses boom")
            }
            try emit(FTS5Token(word, byteRange: begin..<index, isColocated: word.hasPrefix("syn")))
        }
        if mode == "bad" { try emit(FTS5Token("past", byteRange: bytes.count..<(bytes.count + 2))) }
    }
}

/// The tables an input can use: name, tokenize option, and whether highlight() must give the document back. Each
/// input makes two, chosen by its selector: one with the Swift tokenizer, one with a wrapper tokenizer.
let swiftTables: [(name: String, tokenize: String, checked: Bool)] = [
    ("words", "swift", true), ("bad", "swift bad", false), ("throwing", "swift throw", false),
]
let wrapperTables: [(name: String, tokenize: String, checked: Bool)] = [
    ("folded", "fold unicode61 remove_diacritics 2", true), ("stemmed", "fold porter ascii", true),
    ("trigram", "fold trigram", true),
]

func isCorruption(_ error: DatabaseError) -> Bool { error.code == .corrupt }

/// libFuzzer's entry point: runs one input; always returns 0 (a failure stops the process).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFTS5(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    let selector = input.byte()
    var parts: [[UInt8]] = []
    while !input.isEmpty, parts.count < 5 { parts.append(input.takeUntilNUL()) }
    let query = String(decoding: parts.popLast() ?? [], as: UTF8.self)
    let raw = selector & 1 == 1
    // The wrapper's transform, chosen by the input: fold, drop long tokens, or give empty tokens.
    let transform = (selector >> 1) % 3
    let tables = [swiftTables[Int(selector >> 3) % 3], wrapperTables[Int(selector >> 5) % 3]]
    do {
        let db = try fuzzDatabase()
        try db.createTokenizer("swift") { arguments in WordTokenizer(mode: arguments.first ?? "") }
        try db.createWrapperTokenizer("fold") { token in
            switch transform {
            case 0: return token.lowercased()
            case 1: return token.utf8.count > 6 ? nil : token
            default: return token.hasPrefix("e") ? "" : token
            }
        }
        for table in tables {
            try db.execute("CREATE VIRTUAL TABLE \(table.name) USING fts5(body, tokenize = '\(table.tokenize)')")
        }
        // The documents as text (repaired to valid UTF-8), or as their raw bytes when the selector asks.
        for table in tables {
            for (index, part) in parts.enumerated() {
                let rowid = Int64(index + 1)
                do {
                    if raw {
                        try db.execute(
                            "INSERT INTO \(table.name) (rowid, body) VALUES (?, CAST(? AS TEXT))", rowid, Data(part))
                    } else {
                        try db.execute(
                            "INSERT INTO \(table.name) (rowid, body) VALUES (?, ?)", rowid,
                            String(decoding: part, as: UTF8.self))
                    }
                } catch let error as DatabaseError where !isCorruption(error) {}
            }
        }
        let phrase = "\"" + query.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        for table in tables {
            for match in [query, phrase] {
                do {
                    let rows = try db.query(
                        """
                        SELECT rowid, body, highlight(\(table.name), 0, char(1), char(2)),
                            snippet(\(table.name), 0, '[', ']', '…', 8), bm25(\(table.name))
                        FROM \(table.name) WHERE \(table.name) MATCH ? ORDER BY rank
                        """, match)
                    while let row = try rows.next() {
                        for column in 0..<row.count { readEveryType(row, at: column) }
                        guard table.checked, let body = try row.value(at: 1, as: String?.self),
                            !body.contains("\u{1}"), !body.contains("\u{2}"),
                            let highlighted = try row.value(at: 2, as: String?.self)
                        else { continue }
                        let unmarked = highlighted.filter { $0 != "\u{1}" && $0 != "\u{2}" }
                        guard unmarked == body else {
                            fatalError("\(table.name): highlight() without its markers is not the document")
                        }
                    }
                } catch let error as DatabaseError where !isCorruption(error) {
                }
            }
            if table.checked {
                do {
                    try db.execute("INSERT INTO \(table.name) (\(table.name)) VALUES ('integrity-check')")
                } catch let error as DatabaseError where isCorruption(error) {
                    fatalError("\(table.name) fails FTS5's integrity-check: \(error)")
                } catch is DatabaseError {}
            }
        }
        db.close()
    } catch let error as DatabaseError where isCorruption(error) {
        fatalError("corruption: \(error)")
    } catch is DatabaseError {
    } catch {
        fatalError("\(type(of: error)) is not DatabaseError")
    }
    return 0
}

/// The program's entry: SwiftPM links `main` as `FuzzFTS5_main`; it hands the command line to libFuzzer.
@_cdecl("FuzzFTS5_main")
public func fuzzFTS5Main(_ count: CInt, _ arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = count
    var arguments = arguments
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzFTS5(data, size)
    }
}
