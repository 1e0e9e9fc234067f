import Foundation
import SQLiteToolkit

/// The shell: one open database, the output settings, and the code that runs SQL text and dot-commands from any
/// source (arguments, standard input, the prompt, `.read`).
final class Shell {
    /// What the caller does after a line or a command.
    enum Flow {
        case proceed
        case quit
    }

    /// An error the shell reports itself (a bad dot-command, a missing file), printed as `Error: message`.
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    var database: Database
    /// The path given on the command line, or `nil` for an in-memory database.
    let databasePath: String?
    var settings: OutputSettings
    var showsTimer = false
    /// The key the database was opened with, if any (see Encryption.swift).
    var encryption = EncryptionState()
    /// The number of errors reported so far; the exit status is non-zero when it is not 0.
    var errorCount = 0
    /// Whether standard output and standard error are terminals.
    let isOutputTerminal: Bool
    let isErrorTerminal: Bool
    /// How deep `.read` commands are nested, to stop a file that reads itself.
    private var readDepth = 0

    init(database: Database, path: String?, settings: OutputSettings) {
        self.database = database
        self.databasePath = path
        self.settings = settings
        self.isOutputTerminal = isatty(STDOUT_FILENO) != 0
        self.isErrorTerminal = isatty(STDERR_FILENO) != 0
    }

    // MARK: - Input

    /// Runs every line `nextLine` returns until it returns `nil` or `.quit` is entered: dot-commands on a line of
    /// their own, SQL gathered over lines until `sqlite3_complete` says a statement ends.
    ///
    /// - Parameters:
    ///   - nextLine: returns the next line without its line break, given whether a statement is unfinished (for
    ///     the prompt); `nil` at the end of the input.
    ///   - stopsOnError: whether to stop at the first error (one-shot arguments, `--bail`).
    func run(lines nextLine: (_ isContinuation: Bool) -> String?, stopsOnError: Bool) -> Flow {
        var buffer = ""
        while let line = nextLine(!buffer.isEmpty) {
            let errorsBefore = errorCount
            if buffer.isEmpty {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty { continue }
                if trimmed.hasPrefix(".") {
                    if runDotCommand(trimmed) == .quit { return .quit }
                    if stopsOnError && errorCount > errorsBefore { return .quit }
                    continue
                }
            }
            buffer += line + "\n"
            switch SQLiteLibrary.incompleteness(buffer) {
            case 0:
                runSQL(buffer)
                buffer = ""
            case Int64(ResultCode.empty.rawValue):
                buffer = ""  // only comments so far
            default:
                continue
            }
            if stopsOnError && errorCount > errorsBefore { return .quit }
        }
        // An unfinished statement at the end of the input still runs, so SQLite reports what is missing.
        if !buffer.isEmpty { runSQL(buffer) }
        return .proceed
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
    func runSQL(_ sql: String) {
        let timer = showsTimer ? RunTimer() : nil
        var printer: ResultPrinter?
        // Kept alive while its rows print, so a new statement is never mistaken for it.
        var currentStatement: Statement?
        do {
            try database.executeScript(sql) { [settings] row in
                if currentStatement !== row.statement {
                    printer?.finish()
                    currentStatement = row.statement
                    printer = ResultPrinter(columns: row.statement.columnNames, settings: settings)
                }
                printer?.add(row.values)
            }
            printer?.finish()
        } catch var error as DatabaseError {
            printer?.finish()
            // executeScript names the failing statement: when it appears once in the input, show the caret in the
            // input's own lines.
            if let failing = error.sql, let offset = error.errorOffset, failing != sql,
                let range = sql.range(of: failing),
                sql.range(of: failing, range: range.upperBound..<sql.endIndex) == nil
            {
                error.errorOffset = sql.utf8.distance(from: sql.startIndex, to: range.lowerBound) + offset
                error.sql = sql
            }
            report(error)
        } catch {
            printer?.finish()
            report(error)
        }
        if let timer { writeOutput(timer.summary() + "\n") }
    }

    // MARK: - Errors

    /// Prints `error` on standard error and counts it: SQLite's message and code and, when SQLite names a position
    /// in the SQL, the line with a caret under it.
    func report(_ error: any Error) {
        errorCount += 1
        flushOutput()
        writeError(Self.message(for: error))
    }

    /// The text ``report(_:)`` prints.
    static func message(for error: any Error) -> String {
        guard let error = error as? DatabaseError else { return "Error: \(error)\n" }
        if let text = EncryptionOptions.wrongKeyMessage(for: error) { return text }
        let code = error.extendedCode
        var text = "Error: \(error.message) (code \(code.rawValue): \(code.name ?? "unknown code"))\n"
        if let sql = error.sql, let offset = error.errorOffset {
            text += caret(in: sql, atByte: offset)
        }
        return text
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

    /// Runs the lines of the file at `path` as if typed.
    func read(file path: String) throws {
        guard readDepth < 16 else { throw Failure(".read is nested too deeply (a file that reads itself?)") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure("cannot read \(path)")
        }
        var lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .makeIterator()
        readDepth += 1
        defer { readDepth -= 1 }
        _ = run(lines: { _ in lines.next().map(String.init) }, stopsOnError: false)
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
