import Foundation
import SQLiteToolkit

extension Shell {
    /// The dot-commands and their one-line help, in the order `.help` lists them.
    static let dotCommandHelp: [(usage: String, summary: String)] = [
        (".backup FILE", "Copy the database to FILE (an encrypted database to a new file, with the same key)"),
        (".decrypt FILE", "Write a plain copy of the encrypted database to the new file FILE"),
        (".dump", "Print SQL text that rebuilds the database"),
        (".encrypt FILE [KEY]", "Write an encrypted copy to the new file FILE (asks for the key; --cipher applies)"),
        (".exit", "Leave the shell (same as .quit)"),
        (".headers on|off", "Show or hide column names"),
        (".help", "Show this list"),
        (".import FILE TABLE", "Import CSV (RFC 4180, header row first) into TABLE, creating it when missing"),
        (".indexes [TABLE]", "List the indexes, or those of TABLE (a LIKE pattern)"),
        (".mode [MODE]", "Set the output mode: table, csv, json, line or list"),
        (".nullvalue TEXT", "Show NULL as TEXT"),
        (".quit", "Leave the shell"),
        (".read FILE", "Run the SQL and dot-commands in FILE"),
        (".rekey [KEY]", "Encrypt the database, or change its key, in place (asks for the new key)"),
        (".schema [PATTERN]", "Show the CREATE statements, or those of tables matching PATTERN (LIKE)"),
        (".separator TEXT", "Set the separator of list mode"),
        (".tables [PATTERN]", "List the tables and views, or those matching PATTERN (LIKE)"),
        (".timer on|off", "Show the time each SQL input takes"),
    ]

    /// Runs one dot-command line and reports its error, if any, naming `location` when given.
    func runDotCommand(_ line: String, location: Location? = nil) -> Flow {
        do {
            return try performDotCommand(Self.words(of: line))
        } catch {
            report(error, at: location)
            return .proceed
        }
    }

    /// The words of a dot-command line: separated by white space, with `'…'` or `"…"` grouping words.
    static func words(of line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var inWord = false
        for character in line {
            if let open = quote {
                if character == open {
                    quote = nil
                } else {
                    current.append(character)
                }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character.isWhitespace {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }

    private func performDotCommand(_ words: [String]) throws -> Flow {
        guard let command = words.first else { return .proceed }
        let arguments = Array(words.dropFirst())
        func argument(_ index: Int, _ usage: String) throws -> String {
            guard index < arguments.count else { throw Failure("usage: \(usage)") }
            return arguments[index]
        }
        switch command {
        case ".quit", ".exit", ".q":
            return .quit
        case ".help":
            let width = Self.dotCommandHelp.map(\.usage.count).max() ?? 0
            for (usage, summary) in Self.dotCommandHelp {
                writeOutput(usage + String(repeating: " ", count: width - usage.count + 2) + summary + "\n")
            }
        case ".mode":
            guard let name = arguments.first else {
                writeOutput("current output mode: \(settings.mode.rawValue)\n")
                return .proceed
            }
            guard let mode = OutputMode(rawValue: name.lowercased()) else {
                let names = OutputMode.allCases.map(\.rawValue).joined(separator: ", ")
                throw Failure("unknown mode \"\(name)\"; the modes are \(names)")
            }
            settings.mode = mode
        case ".headers", ".header":
            settings.showsHeaders = try Self.onOff(try argument(0, ".headers on|off"))
        case ".nullvalue":
            settings.nullValue = try argument(0, ".nullvalue TEXT")
        case ".separator":
            settings.separator = try argument(0, ".separator TEXT")
        case ".timer":
            showsTimer = try Self.onOff(try argument(0, ".timer on|off"))
        case ".tables":
            try listTables(matching: arguments.first)
        case ".schema":
            try showSchema(matching: arguments.first)
        case ".indexes", ".indices":
            try listIndexes(of: arguments.first)
        case ".read":
            try read(file: try argument(0, ".read FILE"))
        case ".import":
            try importCSV(file: try argument(0, ".import FILE TABLE"), into: try argument(1, ".import FILE TABLE"))
        case ".dump":
            try dump()
        case ".backup":
            try backup(to: try argument(0, ".backup FILE"))
        case ".rekey", ".encrypt", ".decrypt":
            try runEncryptionCommand(command, arguments: arguments)
        default:
            throw Failure("unknown command \(command); enter .help for the list")
        }
        return .proceed
    }

    private static func onOff(_ word: String) throws -> Bool {
        switch word.lowercased() {
        case "on", "yes", "true", "1": return true
        case "off", "no", "false", "0": return false
        default: throw Failure("expected on or off, not \"\(word)\"")
        }
    }

    /// The first column of every row of `sql`, as text.
    func strings(_ sql: String, _ arguments: StatementArguments = []) throws -> [String] {
        let rows = try database.query(sql, arguments: arguments)
        return try rows.map { try $0.value(at: 0) as String }
    }

    // MARK: - Schema

    private func listTables(matching pattern: String?) throws {
        // pragma_table_list tells a virtual table's shadow tables (an FTS5 table's _data, _idx, ...) apart.
        let names = try strings(
            """
            SELECT name FROM pragma_table_list
            WHERE schema = 'main' AND type IN ('table', 'view', 'virtual') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
              AND name LIKE ?1
            ORDER BY name
            """, [pattern ?? "%"])
        guard !names.isEmpty else { return }
        // In columns, filled down then across, like `ls`.
        let width = (names.map(\.count).max() ?? 0) + 2
        let columnCount = max(1, 80 / width)
        let rowCount = (names.count + columnCount - 1) / columnCount
        for row in 0..<rowCount {
            var line = ""
            for column in 0..<columnCount {
                let index = column * rowCount + row
                guard index < names.count else { break }
                let name = names[index]
                line += name + String(repeating: " ", count: width - name.count)
            }
            writeOutput(line.trimmingCharacters(in: .whitespaces) + "\n")
        }
    }

    private func showSchema(matching pattern: String?) throws {
        let statements = try strings(
            """
            SELECT sql FROM sqlite_schema
            WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
              AND name NOT IN (SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow')
              AND (name LIKE ?1 OR tbl_name LIKE ?1)
            ORDER BY rowid
            """, [pattern ?? "%"])
        for sql in statements { writeOutput(sql + ";\n") }
    }

    private func listIndexes(of table: String?) throws {
        let names = try strings(
            "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name LIKE ?1 ORDER BY name", [table ?? "%"])
        for name in names { writeOutput(name + "\n") }
    }

    // MARK: - Import

    /// Imports the CSV file at `path` into `table`: the first record names the columns; a missing table is created
    /// with those columns (typed TEXT); every record must have as many fields as the header. All or nothing: the
    /// rows go in one transaction.
    func importCSV(file path: String, into table: String) throws {
        let bytes = try Self.contents(ofFile: path)
        let records: [(line: Int, fields: [String])]
        do {
            records = try CSVReader.records(in: bytes)
        } catch let failure as CSVReader.Failure {
            throw Failure("\(path): \(failure)")
        }
        guard !records.isEmpty else { throw Failure("\(path) is empty: it needs a header row") }
        let progress = ProgressBar("import", enabled: isErrorTerminal)
        defer { progress.finish() }
        do {
            try CSVImport.insert(records, into: table, in: database) { progress.update(done: $0, total: $1) }
        } catch let mismatch as CSVImport.FieldCountMismatch {
            throw Failure(
                "\(path), line \(mismatch.line): \(mismatch.fields) fields, but the header has "
                    + "\(mismatch.headerFields); nothing was imported")
        }
    }

    // MARK: - Backup

    /// Copies the database, page by page, into a new database at `path` (an existing database there is replaced).
    func backup(to path: String) throws {
        if try backupEncrypted(to: path) { return }
        let progress = ProgressBar("backup", enabled: isErrorTerminal)
        defer { progress.finish() }
        try database.backup(toPath: path, pagesPerStep: 64) { state in
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
