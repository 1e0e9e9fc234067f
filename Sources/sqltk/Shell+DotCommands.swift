import Foundation
import SQLiteToolkit

extension Shell {
    /// The dot-commands and their one-line help, in the order `.help` lists them.
    static let dotCommandHelp: [(usage: String, summary: String)] = [
        (".backup [DB] FILE", "Copy the database (or DB) to FILE (an encrypted one to a new file, with its key)"),
        (".bail on|off", "Stop a script at its first error"),
        (".changes on|off", "Show the changes of each SQL input"),
        (".databases", "List the databases of the connection and their files"),
        (".decrypt FILE", "Write a plain copy of the encrypted database to the new file FILE"),
        (".dump", "Print SQL text that rebuilds the database"),
        (".echo on|off", "Print each input before running it"),
        (".encrypt FILE [KEY]", "Write an encrypted copy to the new file FILE (asks for the key; --cipher applies)"),
        (".eqp on|off", "Show the query plan of each statement before running it"),
        (".exit [CODE]", "Leave the shell, with exit status CODE"),
        (".headers on|off", "Show or hide column names"),
        (".help [COMMAND]", "Show this list, or the commands that start with COMMAND"),
        (".import FILE TABLE", "Import FILE into TABLE (--csv, --ascii, --skip N, --schema S; FILE: or |COMMAND)"),
        (".indexes [TABLE]", "List the indexes, or those of TABLE (a LIKE pattern)"),
        (".load FILE [ENTRY]", "Load the SQLite extension in the library FILE, through its init function ENTRY"),
        (".mode [MODE] [TABLE]", "Set the output mode: \(OutputSettings.ModeChoice.names)"),
        (".nullvalue TEXT", "Show NULL as TEXT"),
        (".once FILE", "Send the output of the next command to FILE (or |COMMAND)"),
        (".open [OPTIONS] [FILE]", "Open FILE instead (--new, --readonly, --key, --key-file, --raw-key, --cipher)"),
        (".output [FILE]", "Send output to FILE (or |COMMAND), or back to standard output"),
        (
            ".parameter CMD ...",
            "set NAME VALUE, unset NAME, list, clear: values for the parameters of later statements"
        ),
        (".print TEXT...", "Print the words of TEXT"),
        (".quit", "Leave the shell"),
        (".read FILE", "Run the SQL and dot-commands in FILE"),
        (".rekey [KEY]", "Encrypt the database, or change its key, in place (asks for the new key)"),
        (".restore [DB] FILE", "Replace the database (or the attached DB) with a copy of FILE"),
        (".schema [PATTERN]", "Show the CREATE statements, or those of tables matching PATTERN (LIKE)"),
        (".separator COL [ROW]", "Set the column (and row) separators"),
        (".shell CMD ARGS...", "Run CMD ARGS... in the system's shell (same as .system)"),
        (".show", "Show the current settings"),
        (".tables [PATTERN]", "List the tables and views, or those matching PATTERN (LIKE)"),
        (".timer on|off", "Show the time each SQL input takes"),
        (".width N1 N2 ...", "Set the column widths of the column modes (negative: right-aligned; 0: automatic)"),
    ]

    /// Runs one dot-command line and reports its error, if any, naming `location` when given.
    func runDotCommand(_ line: String, location: Location? = nil) -> Flow {
        defer { endOnce() }
        do {
            return try performDotCommand(Self.words(of: line))
        } catch {
            report(error, at: location)
            return .proceed
        }
    }

    /// The words of a dot-command line, as the sqlite3 shell splits them: separated by white space; a word that
    /// starts with `'` runs to the next `'`, as typed; one that starts with `"` runs to the next unescaped `"`. In a
    /// bare or double-quoted word, backslash escapes stand for their characters (`\t`, `\n`, `\\`, octal `\NNN`).
    static func words(of line: String) -> [String] {
        let bytes = Array(line.utf8)
        let backslash = UInt8(ascii: "\\")
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        var words: [String] = []
        var index = 0
        while index < bytes.count {
            while index < bytes.count && isSpace(bytes[index]) { index += 1 }
            guard index < bytes.count else { break }
            let delimiter = bytes[index]
            if delimiter == UInt8(ascii: "'") || delimiter == UInt8(ascii: "\"") {
                index += 1
                var word: [UInt8] = []
                while index < bytes.count && bytes[index] != delimiter {
                    if bytes[index] == backslash && delimiter == UInt8(ascii: "\"") && index + 1 < bytes.count {
                        word.append(bytes[index])
                        index += 1
                    }
                    word.append(bytes[index])
                    index += 1
                }
                if index < bytes.count { index += 1 }
                let text = String(decoding: word, as: UTF8.self)
                words.append(delimiter == UInt8(ascii: "'") ? text : OutputSettings.unescaped(text))
            } else {
                let start = index
                while index < bytes.count && !isSpace(bytes[index]) { index += 1 }
                words.append(OutputSettings.unescaped(String(decoding: bytes[start..<index], as: UTF8.self)))
            }
        }
        return words
    }

    private func performDotCommand(_ words: [String]) throws -> Flow {
        guard let command = words.first else { return .proceed }
        let arguments = Array(words.dropFirst())
        func argument(_ index: Int, _ usage: String) throws -> String {
            guard index < arguments.count else { throw Failure("usage: \(usage)") }
            return arguments[index]
        }
        // A command given more than it takes says so, rather than ignoring the rest (an option such as
        // `.schema --indent` included).
        func atMost(_ count: Int, _ usage: String) throws {
            guard arguments.count <= count else { throw Failure("usage: \(usage)") }
            if let option = arguments.first(where: { $0.hasPrefix("-") }) {
                throw Failure("\(command): \(option) is not supported; usage: \(usage)")
            }
        }
        switch command {
        case ".quit", ".q":
            try atMost(0, ".quit")
            return .quit
        case ".exit":
            try atMost(1, ".exit [CODE]")
            if let code = arguments.first {
                guard let status = Int32(code) else { throw Failure(".exit takes a number, not \"\(code)\"") }
                requestedExitStatus = status
                if status != 0 { return .exit }
            }
            return .quit
        case ".help":
            try atMost(1, ".help [COMMAND]")
            let topic = arguments.first.map { $0.hasPrefix(".") ? $0 : "." + $0 }
            let lines = Self.dotCommandHelp.filter { topic == nil || $0.usage.hasPrefix(topic ?? "") }
            guard !lines.isEmpty else { throw Failure(".help: no command \(topic ?? "")") }
            let width = lines.map(\.usage.count).max() ?? 0
            for (usage, summary) in lines {
                writeOutput(usage + String(repeating: " ", count: width - usage.count + 2) + summary + "\n")
            }
        case ".read":
            try atMost(1, ".read FILE")
            return try read(file: try argument(0, ".read FILE"))
        case ".tables":
            try atMost(1, ".tables [PATTERN]")
            try listTables(matching: arguments.first)
        case ".schema":
            try atMost(1, ".schema [PATTERN]")
            try showSchema(matching: arguments.first)
        case ".indexes", ".indices":
            try atMost(1, ".indexes [TABLE]")
            try listIndexes(of: arguments.first)
        case ".import":
            try importFile(arguments)
        case ".dump":
            guard arguments.isEmpty else { throw Failure(".dump takes no argument here (it dumps the whole database)") }
            try dump()
        case ".backup", ".save":
            try atMost(2, "\(command) [DB] FILE")
            let path = try argument(0, "\(command) [DB] FILE")
            if arguments.count == 2 {
                try backup(to: arguments[1], schema: path)
            } else {
                try backup(to: path)
            }
        case ".rekey", ".encrypt", ".decrypt":
            try runEncryptionCommand(command, arguments: arguments)
        case ".parameter", ".param":
            try runParameterCommand(arguments)
        case ".open", ".databases", ".restore", ".shell", ".system", ".load":
            try runDatabaseCommand(command, arguments: arguments)
        default:
            try runSettingsCommand(command, arguments: arguments)
        }
        return .proceed
    }

    static func onOff(_ word: String) throws -> Bool {
        switch word.lowercased() {
        case "on", "yes", "true", "1": return true
        case "off", "no", "false", "0": return false
        default: throw Failure("expected on or off, not \"\(word)\"")
        }
    }

    /// The first column of every row of `sql`, as text; bytes that are not UTF-8 (a Latin-1 name) are kept as
    /// ``RawText`` carries them.
    func strings(_ sql: String, _ arguments: StatementArguments = []) throws -> [String] {
        let rows = try database.query(sql, arguments: arguments)
        return try rows.map { try Self.rawText(of: $0, at: 0) }
    }

    /// Column `index` of `row` as text, its bytes that are not UTF-8 kept (see ``RawText``); NULL reads as empty.
    static func rawText(of row: Row, at index: Int) throws -> String {
        try row.withUnsafeBytes(at: index) { RawText.text(decoding: $0) }
    }

    /// Runs the query `sql` and gives `body` each row. SQL holding bytes that are not UTF-8 (a Latin-1 name) reaches
    /// SQLite as those bytes, through the script runner, which takes bytes.
    func forEachRow(of sql: String, _ body: (Row) throws -> Void) throws {
        guard RawText.holdsRawBytes(sql) else {
            let rows = try database.query(sql)
            while let row = try rows.next() { try body(row) }
            return
        }
        try withoutActuallyEscaping(body) { body in
            try database.executeScript(bytes: RawText.bytes(of: sql), rowHandler: body)
        }
    }

    /// `text` as an SQL string literal.
    static func stringLiteral(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    // MARK: - Backup

    /// Copies the database, page by page, into a new database at `path` (an existing database there is replaced).
    func backup(to path: String, schema: String = "main") throws {
        if schema == "main", try backupEncrypted(to: path) { return }
        let progress = ProgressBar("backup", enabled: isErrorTerminal)
        defer { progress.finish() }
        try database.backup(toPath: path, schema: schema, pagesPerStep: 64) { state in
            progress.update(done: state.copiedPageCount, total: state.totalPageCount)
            return .proceed
        }
    }

    // MARK: - Files

    /// The bytes of the file at `path`.
    ///
    /// - Throws: ``Failure`` naming the path and the system's reason (`No such file or directory`, ...).
    static func contents(ofFile path: String) throws -> [UInt8] {
        let reader = try LineReader(path: path)
        return try reader.remainingBytes(path: path)
    }
}
