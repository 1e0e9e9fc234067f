import Foundation
import SQLiteToolkit

/// The shell: one open database, the output settings, and the code that runs SQL text and dot-commands from any
/// source (arguments, standard input, the prompt, `.read`).
final class Shell {
    /// What the caller does after a line or a command.
    enum Flow {
        case proceed
        /// The input ends: `.quit`, `.exit` without a code, or an error under `-bail`. In a `.read` file, only
        /// that file ends, as in sqlite3.
        case quit
        /// The shell ends at once, whatever input runs it: `.exit CODE` with a code other than 0, which sqlite3
        /// obeys in a `.read` or `-init` file too.
        case exit
    }

    /// An error the shell reports itself (a bad dot-command, a missing file), printed as `Error: message`.
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    var database: Database
    /// The path given on the command line (or to `.open`), or `nil` for an in-memory database.
    var databasePath: String?
    /// The configuration the database was opened with; `.open` starts from it.
    var configuration = Database.Configuration()
    var settings: OutputSettings
    var showsTimer = false
    /// `-bail`, `.bail on`: stop a script at its first error.
    var bails = false
    /// `-echo`, `.echo on`: print each input before running it.
    var echoes = false
    /// `.changes on`: print the changes after each SQL input.
    var showsChanges = false
    /// `.eqp on`: print the query plan of each statement before running it.
    var showsQueryPlans = false
    /// `.parameter set`: the values bound to the parameters of later statements, by name.
    var parameters: [String: DatabaseValue] = [:]
    /// Where `.output` and `.once` sent standard output, while they do (see Shell+Output.swift).
    var redirection: OutputRedirection?
    /// The key the database was opened with, if any (see Encryption.swift).
    var encryption = EncryptionState()
    /// The number of errors reported so far; the exit status is non-zero when it is not 0.
    var errorCount = 0
    /// The primary result code of the last SQL that failed: sqlite3's exit status after a failing SQL argument.
    var lastSQLErrorStatus: Int32 = 1
    /// Whether standard output and standard error are terminals.
    let isOutputTerminal: Bool
    let isErrorTerminal: Bool
    /// How deep `.read` commands are nested, to stop a file that reads itself.
    private var readDepth = 0

    /// `.exit CODE`: the status the shell leaves with, whatever happened before.
    var requestedExitStatus: Int32?

    /// The exit status so far: `.exit`'s, or 1 once an error was reported.
    var exitStatus: Int32 { requestedExitStatus ?? (errorCount > 0 ? 1 : 0) }

    /// Whether `path` names a database file that does not exist yet, so a key typed for it is asked twice.
    static func isNewFile(_ path: String) -> Bool {
        if path.isEmpty || path == ":memory:" { return false }
        // The file of a URI is not looked up: asking twice is the safe side.
        if path.hasPrefix("file:") { return true }
        return !FileManager.default.fileExists(atPath: path)
    }

    /// Ends the output redirection and closes the database.
    func close() {
        endRedirection()
        database.close()
    }

    init(database: Database, path: String?, settings: OutputSettings) {
        self.database = database
        self.databasePath = path
        self.settings = settings
        self.isOutputTerminal = isatty(STDOUT_FILENO) != 0
        self.isErrorTerminal = isatty(STDERR_FILENO) != 0
    }

    // MARK: - Input

    /// Where SQL text comes from, which error messages name with the line.
    enum InputSource {
        /// The command line's SQL arguments.
        case arguments
        /// The interactive prompt.
        case terminal
        /// Standard input that is not a terminal (a script, a dump).
        case standardInput
        /// A file run by `.read`.
        case file(String)

        /// Whether a sqlite3 dump read from here may write its virtual tables into the schema (see
        /// Shell+DumpLoading.swift): only scripts, never typed or given SQL.
        var loadsDumps: Bool {
            switch self {
            case .standardInput, .file: return true
            case .arguments, .terminal: return false
            }
        }
    }

    /// A line of an input, as error messages name it: `at line 7`, `at line 7 of script.sql`.
    struct Location: CustomStringConvertible {
        var source: InputSource
        var line: Int

        var description: String {
            switch source {
            case .file(let path): return "at line \(line) of \(path)"
            default: return "at line \(line)"
            }
        }
    }

    /// Runs every line `nextLine` returns until it returns `nil` or `.quit` is entered: dot-commands on a line of
    /// their own, SQL gathered over lines until ``Database/completeness(of:)`` says its statements end.
    ///
    /// - Parameters:
    ///   - nextLine: returns the next line without its line break, given whether a statement is unfinished (for
    ///     the prompt); `nil` at the end of the input.
    ///   - source: where the lines come from: errors from a script or a file name their line.
    ///   - stopsOnError: whether to stop at the first error (one-shot arguments, `--bail`).
    func run(lines nextLine: (_ isContinuation: Bool) -> String?, source: InputSource, stopsOnError: Bool) -> Flow {
        let namesLines = source.loadsDumps
        var dumpLoad = DumpLoad(isEnabled: source.loadsDumps)
        defer { finish(&dumpLoad) }
        var buffer = ""
        var lineNumber = 0
        var bufferLine = 0
        while let line = nextLine(!buffer.isEmpty) {
            lineNumber += 1
            let errorsBefore = errorCount
            if buffer.isEmpty {
                guard let first = Self.firstNonBlankByte(of: line) else {
                    // sqlite3 echoes a blank line, and a line of comments, as read.
                    if echoes { writeOutput(line + "\n") }
                    continue
                }
                if first == UInt8(ascii: ".") {
                    let location = namesLines ? Location(source: source, line: lineNumber) : nil
                    if echoes { writeOutput(line + "\n") }
                    let trimmed = line.trimmingCharacters(in: .whitespaces)
                    let flow = runDotCommand(trimmed, location: location)
                    if flow != .proceed { return flow }
                    if (stopsOnError || bails) && errorCount > errorsBefore { return .quit }
                    continue
                }
                bufferLine = lineNumber
            }
            buffer += line
            buffer += "\n"
            switch Database.completeness(of: buffer) {
            case .complete:
                let location = namesLines ? Location(source: source, line: bufferLine) : nil
                if echoes { echo(buffer) }
                if !runDumpStatement(buffer, in: &dumpLoad, location: location) {
                    runSQL(buffer, location: location)
                }
                buffer = ""
            case .empty:
                if echoes { writeOutput(buffer) }
                buffer = ""  // only comments so far
            case .incomplete:
                continue
            }
            if (stopsOnError || bails) && errorCount > errorsBefore { return .quit }
        }
        // An unfinished statement at the end of the input still runs, so SQLite reports what is missing.
        if !buffer.isEmpty {
            if echoes { echo(buffer) }
            runSQL(buffer, location: namesLines ? Location(source: source, line: bufferLine) : nil)
        }
        return .proceed
    }

    /// `-echo`: the SQL text as gathered, without the white space before it or the last line break.
    private func echo(_ buffer: String) {
        var text = Substring(buffer)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        if text.last == "\n" { text.removeLast() }
        writeOutput(text + "\n")
    }

    /// The first byte of `line` that is not a space or a tab, or `nil` for a blank line.
    static func firstNonBlankByte(of line: String) -> UInt8? {
        line.utf8.first { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
    }

    /// Runs one argument of the command line: a dot-command, or SQL text (which may hold several statements).
    func runArgument(_ argument: String) -> Flow {
        let trimmed = argument.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix(".") { return runDotCommand(trimmed) }
        runSQL(argument)
        return .proceed
    }

    // MARK: - SQL

    /// Runs the statements of `sql` in order, printing each one's rows; stops at the first error and reports it.
    ///
    /// - Parameter location: where `sql` starts in its input, for the error's line; `nil` for typed SQL.
    func runSQL(_ sql: String, location: Location? = nil) {
        let timer = showsTimer ? RunTimer() : nil
        var printer: ResultPrinter?
        // Kept alive while its rows print, so a new statement is never mistaken for it.
        var currentStatement: Statement?
        defer { endOnce() }
        do {
            let handleRow = { [settings] (row: Row) in
                if currentStatement !== row.statement {
                    printer?.finish()
                    currentStatement = row.statement
                    // As in sqlite3, a columnar result gives `.width` a width (0, automatic) for each column.
                    let columnCount = row.count
                    if settings.mode.isColumnar && self.settings.widths.count < columnCount {
                        self.settings.widths += Array(repeating: 0, count: columnCount - self.settings.widths.count)
                    }
                    printer = ResultPrinter(columns: Self.columnNames(of: row.statement), settings: settings)
                }
                printer?.add(row)
            }
            if parameters.isEmpty && !showsQueryPlans && !Self.mayHoldExplain(sql) {
                // SQL whose stand-ins spell only UTF-8 (a U+10FFxx typed as such) runs as the plain text it is;
                // other bytes that are not UTF-8 reach SQLite as they are, as the sqlite3 shell passes them.
                if let plainSQL = RawText.plainText(sql) {
                    try database.executeScript(plainSQL, rowHandler: handleRow)
                } else {
                    try database.executeScript(bytes: RawText.bytes(of: sql), rowHandler: handleRow)
                }
            } else {
                // Each statement is prepared from the bytes its text stands for (see RawText).
                try runStatementByStatement(sql, rowHandler: handleRow) {
                    printer?.finish()
                    printer = nil
                    currentStatement = nil
                }
            }
            printer?.finish()
            if showsChanges {
                writeOutput("changes: \(database.changes)   total_changes: \(database.totalChanges)\n")
            }
        } catch var error as DatabaseError {
            printer?.finish()
            lastSQLErrorStatus = error.code.rawValue & 0xFF
            // executeScript names the failing statement: when it appears once in the input, show the caret in the
            // input's own lines, and name the line where it starts.
            var statementOffset: Int?
            if let failing = error.sql, failing != sql, let range = sql.range(of: failing),
                sql.range(of: failing, range: range.upperBound..<sql.endIndex) == nil
            {
                let offset = sql.utf8.distance(from: sql.startIndex, to: range.lowerBound)
                statementOffset = offset
                if let errorOffset = error.errorOffset {
                    error.errorOffset = offset + errorOffset
                    error.sql = sql
                }
            } else if error.sql == sql {
                statementOffset = 0
            }
            var errorLocation = location
            // The line where the failing statement starts, as the sqlite3 shell counts; the caret shows the rest.
            if var located = location, let offset = statementOffset {
                located.line += sql.utf8.prefix(offset).lazy.filter { $0 == UInt8(ascii: "\n") }.count
                errorLocation = located
            }
            report(error, at: errorLocation)
        } catch {
            printer?.finish()
            report(error, at: location)
        }
        if let timer { writeOutput(timer.summary() + "\n") }
    }

    // MARK: - Errors

    /// Prints `error` on standard error and counts it: SQLite's message and code and, when SQLite names a position
    /// in the SQL, the line with a caret under it; `location` names the input's line.
    func report(_ error: any Error, at location: Location? = nil) {
        errorCount += 1
        flushOutput()
        var error = error
        if var failure = error as? DatabaseError {
            failure.message = rawMessage(failure.message)
            error = failure
        }
        writeError(Self.message(for: error, location: location))
    }

    /// SQLite's message `message` as ``RawText`` carries it: a name that is not UTF-8 keeps its bytes, read again
    /// from the connection (the toolkit's message holds U+FFFD for them), as sqlite3 writes them.
    private func rawMessage(_ message: String) -> String {
        guard message.contains("\u{FFFD}"), let bytes = database.lastErrorMessageBytes else {
            return RawText.text(decoding: Array(message.utf8))
        }
        let replaced = String(decoding: bytes, as: UTF8.self)
        guard message.hasPrefix(replaced) else { return RawText.text(decoding: Array(message.utf8)) }
        return RawText.text(decoding: bytes)
            + RawText.text(decoding: Array(message.utf8.dropFirst(replaced.utf8.count)))
    }

    /// The names of a statement's columns, their bytes that are not UTF-8 kept (see ``RawText``).
    static func columnNames(of statement: Statement) -> [String] {
        (0..<Int(statement.columnCount)).map { index in
            RawText.text(decoding: statement.columnNameBytes(at: index) ?? [])
        }
    }

    /// The text ``report(_:at:)`` prints: `Error: message`, or `Error at line 7: message` with a location.
    static func message(for error: any Error, location: Location? = nil) -> String {
        let prefix = "Error" + (location.map { " \($0)" } ?? "") + ": "
        guard let error = error as? DatabaseError else { return prefix + "\(error)\n" }
        if let text = EncryptionOptions.keyMessage(for: error, prefix: prefix) { return text }
        var text = prefix + "\(error.message) \(codeText(error))\n"
        if let sql = error.sql, let offset = error.errorOffset {
            text += caret(in: sql, atByte: offset)
        }
        return text
    }

    /// The message for a database that did not open: it names the path, unless it is about the key.
    static func openFailureMessage(for error: any Error, path: String) -> String {
        guard let error = error as? DatabaseError, EncryptionOptions.keyMessage(for: error, prefix: "") == nil else {
            return message(for: error)
        }
        return "Error: cannot open \(path): \(error.message) \(codeText(error))\n"
    }

    /// `(code 1: SQLITE_ERROR)`: the extended result code and its name.
    static func codeText(_ error: DatabaseError) -> String {
        let code = error.extendedCode
        return "(code \(code.rawValue): \(code.name ?? "unknown code"))"
    }

    /// The line of `sql` that holds byte `offset`, and a caret under that byte.
    static func caret(in sql: String, atByte offset: Int) -> String {
        let bytes = Array(sql.utf8)
        let offset = min(max(0, offset), bytes.count)
        let newline = UInt8(ascii: "\n")
        var lineStart = offset
        while lineStart > 0 && bytes[lineStart - 1] != newline { lineStart -= 1 }
        var lineEnd = offset
        while lineEnd < bytes.count && bytes[lineEnd] != newline { lineEnd += 1 }
        let line = String(decoding: bytes[lineStart..<lineEnd], as: UTF8.self)
            .trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
        // Tabs stay tabs, so the caret lines up however the terminal sets its tab stops.
        let before = String(decoding: bytes[lineStart..<offset], as: UTF8.self)
        let padding = String(before.map { $0 == "\t" ? "\t" : " " })
        return "  \(line)\n  \(padding)^--- error here\n"
    }

    // MARK: - Files

    /// Runs the lines of the file at `path` as if typed; errors name the file and the line.
    ///
    /// - Returns: `.quit` when the file stopped at an error under `-bail`, `.exit` at its `.exit CODE`, so the
    ///   caller stops too.
    func read(file path: String) throws -> Flow {
        guard readDepth < 16 else { throw Failure(".read is nested too deeply (a file that reads itself?)") }
        let reader = try LineReader(path: path)
        readDepth += 1
        defer { readDepth -= 1 }
        let errorsBefore = errorCount
        let flow = run(lines: { _ in reader.nextLine() }, source: .file(path), stopsOnError: false)
        if flow == .exit { return .exit }
        if let failure = reader.failure { throw Failure("cannot read \(path): \(failure)") }
        return bails && errorCount > errorsBefore ? .quit : .proceed
    }
}

/// Measures the real and CPU time of a piece of work, for `.timer on`.
struct RunTimer {
    private let start = Date()
    private let startUsage = RunTimer.usage()

    private static func usage() -> (user: Double, system: Double) {
        var usage = rusage()
        #if canImport(Glibc)
            getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return (seconds(usage.ru_utime), seconds(usage.ru_stime))
    }

    /// `Run Time: real 0.002 user 0.001000 sys 0.000000`.
    func summary() -> String {
        let end = RunTimer.usage()
        let real = Date().timeIntervalSince(start)
        return String(
            format: "Run Time: real %.3f user %.6f sys %.6f", real, end.user - startUsage.user,
            end.system - startUsage.system)
    }
}
