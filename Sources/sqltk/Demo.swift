import Foundation
import SQLiteToolkit

/// `sqltk --demo`: what the README's first command shows on a fresh machine, with no input and no existing file.
///
/// It creates an encrypted database (ChaCha20-Poly1305) with a full-text table in a temporary
/// folder, searches it with ranking and a Swift function that highlights the matches, reopens it with a wrong key
/// to show the error, and prints each step and its SQL. The folder is removed at the end.
enum Demo {
    /// Short notes to search: written for this demo.
    static let notes: [(title: String, body: String)] = [
        ("Keys", "A database key is set before the first read; a wrong key shows up when the schema is read."),
        ("Ciphers", "ChaCha20-Poly1305 is the default cipher; AES, AEGIS, Ascon and an SQLCipher scheme are built in."),
        ("Full-text search", "FTS5 tables index every word of their text and rank matches with bm25."),
        ("Functions", "A scalar function written in Swift runs inside the query, once per row it is called for."),
        ("Backups", "The backup API copies a live database page by page while other connections keep reading."),
        ("Dumps", "A dump is SQL text that rebuilds the database: schema first, then the rows of every table."),
        ("Prompt", "The shell continues a statement over several lines until a semicolon ends it."),
        ("Imports", "CSV files import with quoted fields, embedded commas and line breaks kept as they are."),
    ]

    /// The search the demo runs: FTS5 query syntax, a prefix term and an OR.
    static let query = "key* OR cipher"

    static func run() throws {
        let isTerminal = isatty(STDOUT_FILENO) != 0
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("sqltk-demo-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("notes.sqlite").path
        var step = 0
        func say(_ text: String) {
            step += 1
            writeOutput("\n\(step). \(text)\n")
        }
        func show(_ sql: String) { writeOutput("   sql> \(sql)\n") }

        writeOutput(
            "sqltk demo: SQLite \(Database.sqliteVersion) with \(Database.multipleCiphersVersion)\n")

        // 1. Create the database.
        let encryption = DemoEncryption.configuration()
        say("Create an encrypted database (\(encryption.cipherName), passphrase \"\(encryption.passphrase)\") at")
        writeOutput("   \(path)\n")
        let db = try Database(path: path, configuration: encryption.configuration)

        // 2. The full-text table.
        say("Create an FTS5 full-text table and add \(notes.count) short notes.")
        let create = "CREATE VIRTUAL TABLE note USING fts5(title, body)"
        show(create)
        try db.execute(create)
        show("INSERT INTO note (title, body) VALUES (?, ?)  -- once per note, in one transaction")
        try db.transaction { db in
            for note in notes {
                try db.execute("INSERT INTO note (title, body) VALUES (?, ?)", note.title, note.body)
            }
        }

        // 3. The Swift function.
        say("Register a Swift function, mark(text, query), that highlights the words the query matches.")
        try registerMark(on: db, highlightingWithColor: isTerminal)

        // 4. The ranked search.
        say("Search for \(query) (a prefix and an OR), best matches first (bm25 rank), highlighted by mark():")
        let search =
            "SELECT title, mark(body, ?1) AS match, round(bm25(note), 2) AS score FROM note "
            + "WHERE note MATCH ?1 ORDER BY rank"
        show(search)
        let printer = ResultPrinter(
            columns: ["title", "match", "score"], settings: OutputSettings(mode: .table, showsHeaders: true))
        let rows = try db.query(search, query)
        while let row = try rows.next() { printer.add(row.values) }
        printer.finish()
        db.close()

        // 5. What is on disk.
        let header = FileManager.default.contents(atPath: path).map { Array($0.prefix(16)) } ?? []
        let readable = String(decoding: header.map { (32..<127).contains($0) ? $0 : UInt8(ascii: ".") }, as: UTF8.self)
        say("The file's first 16 bytes: \"\(readable)\"")
        writeOutput("   A plain SQLite file starts with \"SQLite format 3\": this one is encrypted, header included.\n")

        // 6. The wrong key.
        say("Reopen it with a wrong passphrase:")
        do {
            let wrong = DemoEncryption.configuration(passphrase: "not the passphrase")
            let reopened = try Database(path: path, configuration: wrong.configuration)
            _ = try reopened.queryValue("SELECT count(*) FROM note", as: Int.self)
            writeOutput("   unexpected: the wrong key opened the database\n")
        } catch {
            let message = Shell.message(for: error).trimmingCharacters(in: .newlines)
            writeOutput("   " + message.replacingOccurrences(of: "\n", with: "\n   ") + "\n")
        }

        // 7. The right key again.
        say("Reopen it with the right passphrase and count the notes:")
        let reopened = try Database(path: path, configuration: encryption.configuration)
        let countSQL = "SELECT count(*) FROM note"
        show(countSQL)
        writeOutput("   \(try reopened.queryValue(countSQL, as: Int.self) ?? 0) notes\n")
        reopened.close()

        say("Remove the temporary folder. For a shell of your own: swift run sqltk [FILE] (see --help).")
    }

    /// Defines `mark(text, query)`: `text` with each word that a term of the FTS5 `query` matches wrapped in bold
    /// (on a terminal) or in brackets. A term ending in `*` matches as a prefix; `AND`, `OR` and `NOT` are operators.
    static func registerMark(on db: Database, highlightingWithColor color: Bool) throws {
        let (open, close) = color ? ("\u{1B}[1;33m", "\u{1B}[0m") : ("[", "]")
        try db.createFunction("mark", options: [.deterministic, .innocuous]) { (text: String?, query: String?) in
            guard let text else { return nil as String? }
            let terms = (query ?? "")
                .split(whereSeparator: { $0.isWhitespace || $0 == "(" || $0 == ")" || $0 == "\"" })
                .filter { !["AND", "OR", "NOT"].contains($0) }
                .map { term in
                    term.hasSuffix("*")
                        ? (word: term.dropLast().lowercased(), isPrefix: true)
                        : (word: term.lowercased(), isPrefix: false)
                }
            var result = ""
            var word = ""
            func flush() {
                let lowered = word.lowercased()
                let matches = terms.contains { $0.isPrefix ? lowered.hasPrefix($0.word) : lowered == $0.word }
                result += matches && !word.isEmpty ? open + word + close : word
                word = ""
            }
            for character in text {
                if character.isLetter || character.isNumber {
                    word.append(character)
                } else {
                    flush()
                    result.append(character)
                }
            }
            flush()
            return result
        }
    }
}
