import Foundation
import SQLiteToolkit

/// Everything about keys and ciphers in one place: the options, the prompt without echo, the key error messages,
/// and `.rekey`, `.encrypt`, `.decrypt` and the encrypted `.backup`.
///
/// ``CommandLineOptions`` fills these in; it takes a key option's value from the next argument whatever it is (a
/// passphrase may start with a dash) and no message of it ever quotes a value.
struct EncryptionOptions {
    var passphrase: String?
    var askKey = false
    var keyFile: String?
    var rawKey: String?
    var cipher: String?
    var sqlcipher: Int?

    func validate() throws {
        typealias UsageError = CommandLineOptions.UsageError
        let keyCount = [passphrase != nil, askKey, keyFile != nil, rawKey != nil].filter { $0 }.count
        guard keyCount <= 1 else { throw UsageError("give one of --key, --ask-key, --key-file and --raw-key") }
        if cipher != nil && sqlcipher != nil { throw UsageError("give --cipher or --sqlcipher, not both") }
        if let sqlcipher, sqlcipher != 3 && sqlcipher != 4 { throw UsageError("--sqlcipher takes 3 or 4") }
        if let cipher, Cipher(named: cipher) == nil {
            throw UsageError(
                "unknown cipher \"\(cipher)\"; the ciphers are chacha20, aes128cbc, aes256cbc, aegis, ascon128, "
                    + "sqlcipher1 to sqlcipher4")
        }
    }

    /// The cipher the options name, or `nil` for the default.
    var selectedCipher: Cipher? {
        if let sqlcipher { return .sqlcipher(version: sqlcipher) }
        return cipher.flatMap { Cipher(named: $0) }
    }

    /// The key the options give, asking for it on the terminal for `--ask-key` (twice for a new database).
    func key(isInputTerminal: Bool, isNewDatabase: Bool) throws -> DatabaseKey? {
        if let passphrase { return .passphrase(passphrase) }
        if let rawKey { return .raw(hex: rawKey) }
        if let keyFile {
            var bytes = try Shell.contents(ofFile: keyFile)
            defer { bytes.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
            if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
            if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
            guard !bytes.isEmpty else {
                throw Shell.Failure("the key file \(keyFile) is empty: it holds no passphrase")
            }
            return .passphrase(bytes: bytes)
        }
        if askKey {
            guard isInputTerminal else {
                throw Shell.Failure(
                    "--ask-key asks on a terminal, and standard input is not one; give --key-file FILE instead")
            }
            let key = try Self.readWithoutEcho(prompt: "Key: ")
            // A typo in the key of a new database makes a file nobody can open: ask again, as .rekey does.
            if isNewDatabase {
                let again = try Self.readWithoutEcho(prompt: "Repeat the key: ")
                guard key == again else { throw Shell.Failure("the two keys differ; nothing was created") }
            }
            return .passphrase(key)
        }
        return nil
    }

    /// Sets the key and cipher of `configuration` from the options.
    func apply(to configuration: inout Database.Configuration, isInputTerminal: Bool, isNewDatabase: Bool) throws {
        if let cipher = selectedCipher { configuration.cipher = cipher }
        configuration.key = try key(isInputTerminal: isInputTerminal, isNewDatabase: isNewDatabase)
    }

    /// Reads a line from the terminal with echo turned off, showing `prompt` on standard error.
    static func readWithoutEcho(prompt: String) throws -> String {
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { throw Shell.Failure("cannot read the key: no terminal") }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        // Echo goes off before the prompt shows: a key typed as soon as the prompt appears is neither echoed nor
        // flushed away by TCSAFLUSH.
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        writeError(prompt)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            writeError("\n")
        }
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw Shell.Failure("no key was entered")
        }
        return line
    }

    /// The message for an error about a key, or `nil` for any other error: what to type, never a Swift API.
    ///
    /// - Parameter prefix: `Error: ` or `Error at line 7: `.
    static func keyMessage(for error: DatabaseError, prefix: String) -> String? {
        let code = Shell.codeText(error)
        switch error.reason {
        case .wrongKeyOrNotADatabase?:
            return "\(prefix)wrong key: \(error.message) \(code)\n"
        case .keyForPlainDatabase?:
            return "\(prefix)the database is not encrypted: open it without a key \(code)\n"
                + "  To encrypt it, open it without a key and enter .rekey (in place) or .encrypt FILE (a copy).\n"
        case .notEncrypted?:
            return "\(prefix)the database is not encrypted; .rekey encrypts it in place \(code)\n"
        case .alreadyEncrypted?:
            return "\(prefix)the database is already encrypted; .rekey changes its key \(code)\n"
        case .invalidKey?:
            return "\(prefix)an empty passphrase is no key; give a non-empty one \(code)\n"
        case .encryptingReplicatedDatabase?:
            return "\(prefix)Litestream replicates this database and cannot read an encrypted file; nothing was "
                + "changed \(code)\n  .encrypt FILE writes an encrypted copy instead.\n"
        case .notADatabase?:
            // The toolkit's message names its Swift API for the key; the shell names its options instead.
            return "\(prefix)file is not a database: its first bytes are not SQLite's header \(code)\n"
                + "  If the file is encrypted, give its key with --key, --ask-key, --key-file or --raw-key.\n"
        default:
            guard error.code == .notadb else { return nil }
            return "\(prefix)\(error.message) \(code)\n"
                + "  If the file is encrypted, give its key with --key, --ask-key, --key-file or --raw-key.\n"
        }
    }
}

/// The key the shell opened its database with, kept for `.backup` of an encrypted database (a ``DatabaseKey``
/// zeroes its bytes when released).
struct EncryptionState {
    var key: DatabaseKey?
    var isInputTerminal = false
}

extension Shell {
    /// `.rekey [PASSPHRASE]`, `.encrypt FILE [PASSPHRASE]`, `.decrypt FILE`. Without a passphrase, the key is asked
    /// for twice on the terminal, without echo.
    func runEncryptionCommand(_ command: String, arguments: [String]) throws {
        switch command {
        case ".rekey":
            guard arguments.count <= 1 else { throw Failure("usage: .rekey [PASSPHRASE]") }
            let key = try newKey(arguments.first)
            // Encrypts a plain database with the --cipher of the command line, or changes the key of an encrypted
            // one (keeping its cipher).
            let wasEncrypted = database.isEncrypted
            try database.rekey(key)
            encryption.key = key
            writeOutput(
                wasEncrypted
                    ? "The key of the database was changed.\n"
                    : "The database is now encrypted (\((database.cipher ?? database.configuration.cipher).name)).\n")
        case ".encrypt":
            guard let path = arguments.first, arguments.count <= 2 else {
                throw Failure("usage: .encrypt FILE [PASSPHRASE]")
            }
            let key = try newKey(arguments.dropFirst().first)
            let cipher = database.configuration.cipher
            try database.export(to: path, key: key, cipher: cipher)
            writeOutput("Wrote an encrypted copy (\(cipher.name)) of the database to \(path).\n")
        case ".decrypt":
            guard let path = arguments.first, arguments.count == 1 else { throw Failure("usage: .decrypt FILE") }
            try database.export(to: path, key: nil)
            writeOutput("Wrote a plain copy of the database to \(path).\n")
        default:
            throw Failure("unknown command \(command)")
        }
    }

    /// The key given as an argument, or asked for twice on the terminal.
    private func newKey(_ argument: String?) throws -> DatabaseKey {
        if let argument { return .passphrase(argument) }
        guard encryption.isInputTerminal else { throw Failure("give the new passphrase after the command") }
        let first = try EncryptionOptions.readWithoutEcho(prompt: "New key: ")
        let second = try EncryptionOptions.readWithoutEcho(prompt: "Repeat the new key: ")
        guard first == second else { throw Failure("the two keys differ; nothing was changed") }
        return .passphrase(first)
    }

    /// `.backup` of an encrypted database: an encrypted copy with the same key and cipher, written by the codec
    /// (`VACUUM INTO`), so no page of it reaches the disk in plain text. Returns `false` for a plain database,
    /// which is copied page by page.
    func backupEncrypted(to path: String) throws -> Bool {
        guard database.isEncrypted else { return false }
        guard let key = encryption.key else {
            throw Failure("the key of this database is unknown to the shell; use .encrypt FILE")
        }
        if FileManager.default.fileExists(atPath: path) {
            throw Failure("\(path) exists; an encrypted backup is written to a new file")
        }
        try database.export(to: path, key: key, cipher: database.cipher ?? database.configuration.cipher)
        return true
    }
}

/// The demo's encryption.
enum DemoEncryption {
    /// The demo's passphrase.
    static let passphrase = "correct horse battery staple"

    /// The configuration that opens the demo database with `passphrase` and the default cipher.
    static func configuration(passphrase: String = passphrase) -> (
        configuration: Database.Configuration, cipherName: String, passphrase: String
    ) {
        var configuration = Database.Configuration()
        configuration.key = .passphrase(passphrase)
        configuration.cipher = .default
        return (configuration, "ChaCha20-Poly1305", passphrase)
    }
}
