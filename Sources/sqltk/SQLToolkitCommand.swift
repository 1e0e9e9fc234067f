import Foundation
import SQLiteToolkit

/// `sqltk [options] [DATABASE] [SQL …]`: the command line (see ``CommandLineOptions`` for its grammar).
@main
enum SQLToolkitCommand {
    static func main() {
        let options: CommandLineOptions
        do {
            options = try CommandLineOptions.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            // One line, as the sqlite3 shell's own first line says it; the status is sqlite3's too.
            writeError("sqltk: Error: \(error)\n")
            exit(1)
        }
        if options.showsHelp {
            writeOutput(CommandLineOptions.help)
            exit(0)
        }
        if options.showsVersion {
            writeOutput("\(Database.sqliteVersion) \(Database.sqliteSourceID)\n")
            exit(0)
        }
        if options.demo {
            do {
                try Demo.run()
            } catch {
                flushOutput()
                writeError(Shell.message(for: error))
                exit(1)
            }
            exit(0)
        }
        let status = run(options)
        flushOutput()
        exit(status)
    }

    /// Opens the database, runs `-init`, the `-cmd` commands, then the SQL arguments, the prompt or standard input;
    /// returns the exit status.
    static func run(_ options: CommandLineOptions) -> Int32 {
        let isInputTerminal = !options.isBatch && isatty(STDIN_FILENO) != 0
        let isOutputTerminal = isatty(STDOUT_FILENO) != 0
        var configuration = Database.Configuration()
        configuration.isReadOnly = options.isReadOnly
        let isNewDatabase = options.database.map { Shell.isNewFile($0) } ?? false
        do {
            try options.encryption.apply(
                to: &configuration, isInputTerminal: isInputTerminal, isNewDatabase: isNewDatabase)
        } catch {
            writeError(Shell.message(for: error))
            return 1
        }
        let shell: Shell
        do {
            let key = configuration.key
            let database = try Database(path: options.database, configuration: configuration)
            var settings = options.output
            if !options.modeWasSet && isOutputTerminal { settings.mode = .table }
            if !settings.headersWereSet { settings.showsHeaders = isOutputTerminal }
            shell = Shell(database: database, path: database.path, settings: settings)
            shell.encryption = EncryptionState(key: key, isInputTerminal: isInputTerminal)
            shell.configuration = configuration
        } catch {
            writeError(Shell.openFailureMessage(for: error, path: options.database ?? ":memory:"))
            return 1
        }
        shell.bails = options.bails
        defer { shell.close() }

        if let initFile = options.initFile {
            let errorsBefore = shell.errorCount
            do {
                if try shell.read(file: initFile) != .proceed { return shell.exitStatus }
            } catch {
                shell.report(error)
            }
            if shell.bails && shell.errorCount > errorsBefore { return 1 }
        }
        // After -init, as in sqlite3: -echo shows what the user runs, not the set-up file (whose own `.echo on`
        // stands when -echo is not given).
        if options.echoes { shell.echoes = true }
        for command in options.commands {
            let errorsBefore = shell.errorCount
            if shell.runArgument(command) != .proceed { return shell.exitStatus }
            if shell.bails && shell.errorCount > errorsBefore { return 1 }
        }
        if !options.sql.isEmpty {
            // One-shot: stop at the first error. As in sqlite3, failing SQL exits with SQLite's primary result code
            // (1 for most errors, 8 for a read-only database, 19 for a constraint, ...).
            for argument in options.sql {
                let errorsBefore = shell.errorCount
                if shell.runArgument(argument) != .proceed { break }
                if shell.errorCount > errorsBefore {
                    let isSQL = Shell.firstNonBlankByte(of: argument) != UInt8(ascii: ".")
                    return isSQL ? max(1, shell.lastSQLErrorStatus) : 1
                }
            }
        } else if isInputTerminal {
            Prompt(shell: shell).run()
        } else {
            let reader = LineReader()
            _ = shell.run(lines: { _ in reader.nextLine() }, source: .standardInput, stopsOnError: false)
            if let failure = reader.failure { shell.report(Shell.Failure("cannot read standard input: \(failure)")) }
        }
        return shell.exitStatus
    }
}
