import Foundation
import SQLiteToolkit

extension Shell {
    /// `.open`, `.databases`, `.restore`, `.shell`/`.system` and `.load`.
    func runDatabaseCommand(_ command: String, arguments: [String]) throws {
        switch command {
        case ".open":
            try open(arguments)
        case ".databases":
            guard arguments.isEmpty else { throw Failure("usage: .databases") }
            for attached in try database.attachedDatabases() {
                let state = attached.isReadOnly ? "r/o" : "r/w"
                writeOutput("\(attached.name): \(attached.path.isEmpty ? "\"\"" : attached.path) \(state)\n")
            }
        case ".restore":
            guard (1...2).contains(arguments.count) else { throw Failure("usage: .restore [DB] FILE") }
            let schema = arguments.count == 2 ? arguments[0] : "main"
            let path = arguments[arguments.count - 1]
            guard FileManager.default.fileExists(atPath: path) else {
                throw Failure(".restore: cannot open \(path): No such file or directory")
            }
            var sourceConfiguration = Database.Configuration()
            sourceConfiguration.isReadOnly = true
            let source = try Database(path: path, configuration: sourceConfiguration)
            defer { source.close() }
            try source.backup(to: database, destinationSchema: schema)
        case ".shell", ".system":
            guard !arguments.isEmpty else { throw Failure("usage: \(command) COMMAND [ARGUMENTS...]") }
            // Arguments holding a space are put back in double quotes, as the sqlite3 shell does.
            let line = arguments.map { $0.contains(" ") ? "\"\($0)\"" : $0 }.joined(separator: " ")
            let status = try withOriginalStandardOutput { RawText.withCString(line) { system($0) } }
            if status != 0 { writeError("System command returns \(status)\n") }
        case ".load":
            // sqlite3 ignores words after ENTRY; here they are an error, like every argument a command cannot use.
            guard (1...2).contains(arguments.count), !arguments[0].isEmpty else {
                throw Failure("usage: .load FILE [ENTRY]")
            }
            let path = arguments[0]
            do {
                try database.loadExtension(atPath: path, entryPoint: arguments.count == 2 ? arguments[1] : nil)
            } catch let error as DatabaseError where error.reason == .extensionLoadFailed(path: path) {
                // SQLite's message alone, as the sqlite3 shell prints it: it names the file SQLite tried last.
                throw Failure(error.message)
            }
        default:
            throw Failure("unknown command \(command)")
        }
    }

    /// `.open [--new] [--readonly] [--key K|--key-file F|--raw-key H] [--cipher NAME] [FILE]`: closes the
    /// database and opens FILE (a new private in-memory database without one). When FILE does not open, the shell
    /// goes on with a private in-memory database, as sqlite3 does, so no later statement runs on the old one by
    /// mistake.
    private func open(_ arguments: [String]) throws {
        var path: String?
        var isNew = false
        var encryption = EncryptionOptions()
        var configuration = Database.Configuration()
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            guard word.hasPrefix("-") else {
                guard path == nil else { throw Failure(".open: extra argument \"\(word)\"") }
                path = word
                continue
            }
            let option = word.hasPrefix("--") ? String(word.dropFirst(2)) : String(word.dropFirst())
            func value() throws -> String {
                guard index < arguments.count, !arguments[index].isEmpty else {
                    throw Failure(".open: \(word) needs a value")
                }
                index += 1
                return arguments[index - 1]
            }
            switch option {
            case "new": isNew = true
            case "readonly": configuration.isReadOnly = true
            case "key": encryption.passphrase = try value()
            case "key-file": encryption.keyFile = try value()
            case "raw-key": encryption.rawKey = try value()
            case "cipher": encryption.cipher = try value()
            case "ask-key": encryption.askKey = true
            default: throw Failure(".open: \(word) is not supported")
            }
        }
        do {
            try encryption.validate()
        } catch let usage as CommandLineOptions.UsageError {
            throw Failure(".open: \(usage.description)")
        }
        if isNew, let path, path != ":memory:", FileManager.default.fileExists(atPath: path) {
            try FileManager.default.removeItem(atPath: path)
        }
        database.close()
        let opened: Database
        do {
            try encryption.apply(
                to: &configuration, isInputTerminal: self.encryption.isInputTerminal,
                isNewDatabase: path.map(Self.isNewFile) ?? false)
            opened = try Database(path: path, configuration: configuration)
        } catch {
            database = try Database(path: ":memory:")
            databasePath = nil
            self.encryption.key = nil
            throw error
        }
        database = opened
        databasePath = opened.path
        self.configuration = configuration
        self.encryption.key = configuration.key
    }
}
