import ArgumentParser
import Foundation
import SQLiteToolkit

/// `sqltk [options] [DATABASE] [SQL …]`: the command line.
@main
struct SQLToolkitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sqltk",
        abstract: "A SQL shell for SQLite databases, encrypted or not.",
        discussion: """
            With SQL arguments, runs them in order and exits (non-zero at the first error). Without, reads SQL from \
            standard input, or shows a prompt when standard input is a terminal. An argument that starts with a \
            dot is a dot-command (.tables, .schema, .dump, ...; see .help). Without DATABASE, the database is a \
            private in-memory one.

            At a terminal, lines can be edited: Left/Right, Home/End (Ctrl-A/E), Up/Down through the history, \
            Ctrl-K, Ctrl-U and Ctrl-W erase, Ctrl-L clears the screen, Ctrl-R searches the history. The history is \
            kept in ~/.sqltk_history (lines holding a key, such as .rekey, are left out).
            """
    )

    @Argument(help: "The database file (created when missing); omit it, or give :memory:, for an in-memory one.")
    var database: String?

    @Argument(help: "SQL statements and dot-commands to run in order, then exit.")
    var sql: [String] = []

    @Option(
        help: "The output mode: table (the default on a terminal), csv, json, line or list (the default otherwise).")
    var mode: OutputMode?

    @Flag(inversion: .prefixedNo, help: "Show column names (default: on a terminal only).")
    var header: Bool?

    @Option(help: "The text shown for NULL.")
    var nullvalue: String = ""

    @Option(help: "The separator of list mode.")
    var separator: String = "|"

    @Flag(help: "Open the database read-only.")
    var readonly = false

    @Flag(help: "Stop at the first error when reading SQL from standard input.")
    var bail = false

    @Flag(help: "Create a demonstration database in a temporary folder, search it, and explain each step.")
    var demo = false

    @OptionGroup(title: "Encryption")
    var encryption: EncryptionOptions

    /// Runs the command. The key options are taken out of the command line first (see ``KeyArguments``), so the
    /// argument parser never sees, and never quotes, a passphrase.
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        do {
            let keys = try KeyArguments.extract(from: &arguments)
            var command = try parseAsRoot(arguments)
            if var shell = command as? SQLToolkitCommand {
                shell.encryption.passphrase = keys.passphrase
                shell.encryption.keyFile = keys.keyFile
                shell.encryption.rawKey = keys.rawKey
                try shell.encryption.validate()
                command = shell
            }
            try command.run()
        } catch let misuse as KeyArguments.Misuse {
            exit(withError: ValidationError(misuse.description))
        } catch {
            exit(withError: error)
        }
    }

    func run() throws {
        if demo {
            try Demo.run()
            return
        }
        let isInputTerminal = isatty(STDIN_FILENO) != 0
        let isOutputTerminal = isatty(STDOUT_FILENO) != 0
        var configuration = Database.Configuration()
        configuration.isReadOnly = readonly
        let shell: Shell
        do {
            try encryption.apply(to: &configuration, isInputTerminal: isInputTerminal)
        } catch {
            writeError(Shell.message(for: error))
            throw ExitCode(1)
        }
        do {
            let key = configuration.key
            let database = try Database(path: database, configuration: configuration)
            let settings = OutputSettings(
                mode: mode ?? (isOutputTerminal ? .table : .list),
                showsHeaders: header ?? isOutputTerminal,
                nullValue: nullvalue,
                separator: separator)
            shell = Shell(database: database, path: database.path, settings: settings)
            shell.encryption = EncryptionState(key: key, isInputTerminal: isInputTerminal)
        } catch {
            writeError(Shell.openFailureMessage(for: error, path: database ?? ":memory:"))
            throw ExitCode(1)
        }

        if !sql.isEmpty {
            // One-shot: stop at the first error.
            for argument in sql {
                let errorsBefore = shell.errorCount
                if shell.runArgument(argument) == .quit || shell.errorCount > errorsBefore { break }
            }
        } else if isInputTerminal {
            Prompt(shell: shell).run()
        } else {
            let reader = LineReader()
            _ = shell.run(lines: { _ in reader.nextLine() }, source: .standardInput, stopsOnError: bail)
            if let failure = reader.failure { shell.report(Shell.Failure("cannot read standard input: \(failure)")) }
        }
        shell.database.close()
        if shell.errorCount > 0 { throw ExitCode(1) }
    }
}
