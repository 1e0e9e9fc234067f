import ArgumentParser
import Foundation
import SQLiteToolkit

/// Everything about keys and ciphers in one place: the options, the prompt without echo, the key error messages,
/// and `.rekey`, `.encrypt`, `.decrypt` and the encrypted `.backup`.
///
/// The three key options are declared here for `--help`, but ``KeyArguments`` takes them out of the command line
/// before the argument parser sees it, so no parser message can ever quote a passphrase.
struct EncryptionOptions: ParsableArguments {
    @Option(
        name: .customLong("key"),
        help: ArgumentHelp(
            "The passphrase of an encrypted database (--key VALUE or --key=VALUE); see --ask-key.",
            valueName: "passphrase"))
    var passphrase: String?

    @Flag(help: "Ask for the passphrase on the terminal, without echo.")
    var askKey = false

    @Option(
        help: ArgumentHelp("Read the passphrase from FILE (one trailing line break is ignored).", valueName: "file"))
    var keyFile: String?

    @Option(help: ArgumentHelp("A raw 256-bit key: 64 hexadecimal digits, no key derivation.", valueName: "hex"))
    var rawKey: String?

    @Option(
        help: ArgumentHelp(
            "The cipher: chacha20 (the default), aes128cbc, aes256cbc, aegis, ascon128, sqlcipher1 to sqlcipher4.",
            valueName: "name"))
    var cipher: String?

    @Option(
        help: ArgumentHelp(
            "Open or create a file SQLCipher 3 or 4 reads (same as --cipher sqlcipherN).", valueName: "3|4"))
    var sqlcipher: Int?

    func validate() throws {
        let keyCount = [passphrase != nil, askKey, keyFile != nil, rawKey != nil].filter { $0 }.count
        guard keyCount <= 1 else { throw ValidationError("give one of --key, --ask-key, --key-file and --raw-key") }
        if cipher != nil && sqlcipher != nil { throw ValidationError("give --cipher or --sqlcipher, not both") }
        if let sqlcipher, sqlcipher != 3 && sqlcipher != 4 { throw ValidationError("--sqlcipher takes 3 or 4") }
        if let cipher, Cipher(named: cipher) == nil {
            throw ValidationError(
                "unknown cipher \"\(cipher)\"; the ciphers are chacha20, aes128cbc, aes256cbc, aegis, ascon128, "
                    + "sqlcipher1 to sqlcipher4")
        }
    }

    /// The cipher the options name, or `nil` for the default.
    var selectedCipher: Cipher? {
        if let sqlcipher { return .sqlcipher(version: sqlcipher) }
        return cipher.flatMap { Cipher(named: $0) }
    }

    /// The key the options give, asking for it on the terminal for `--ask-key`.
    func key(isInputTerminal: Bool) throws -> DatabaseKey? {
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
            return .passphrase(try Self.readWithoutEcho(prompt: "Key: "))
        }
        return nil
    }

    /// Sets the key and cipher of `configuration` from the options.
    func apply(to configuration: inout Database.Configuration, isInputTerminal: Bool) throws {
        if let cipher = selectedCipher { configuration.cipher = cipher }
        configuration.key = try key(isInputTerminal: isInputTerminal)
    }

    /// Reads a line from the terminal with echo turned off, showing `prompt` on standard error.
    static func readWithoutEcho(prompt: String) throws -> String {
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { throw Shell.Failure("cannot read the key: no terminal") }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        writeError(prompt)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
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
        default:
            guard error.code == .notadb else { return nil }
            return "\(prefix)\(error.message) \(code)\n"
                + "  If the file is encrypted, give its key with --key, --ask-key, --key-file or --raw-key.\n"
        }
    }
}

/// The key options, taken out of the command line before the argument parser reads it.
///
/// The parser would take `--key= db.sqlite` as the passphrase `db.sqlite`, and a passphrase that starts with a
/// dash as an unknown option, which its error message quotes. Here a key option takes the next argument whatever
/// it is (as `getopt` does), an empty value is refused before anything is opened, and errors never quote a value.
struct KeyArguments {
    var passphrase: String?
    var keyFile: String?
    var rawKey: String?

    /// A key option misused; the message names the option, never its value.
    struct Misuse: Error, CustomStringConvertible {
        var description: String
    }

    /// Removes `--key`, `--key-file` and `--raw-key` with their values (`--key VALUE` or `--key=VALUE`) from
    /// `arguments`, up to a `--` that ends the options, and returns them.
    static func extract(from arguments: inout [String]) throws -> KeyArguments {
        var result = KeyArguments()
        var kept: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                kept += arguments[index...]
                break
            }
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            guard ["--key", "--key-file", "--raw-key"].contains(name) else {
                kept.append(argument)
                index += 1
                continue
            }
            let value: String
            if argument.count > name.count {
                value = String(argument.dropFirst(name.count + 1))
                index += 1
            } else {
                guard index + 1 < arguments.count else {
                    throw Misuse(
                        description: name == "--key"
                            ? "--key needs the passphrase after it; --ask-key asks for it without echo"
                            : "\(name) needs a value after it")
                }
                value = arguments[index + 1]
                index += 2
            }
            guard !value.isEmpty else {
                throw Misuse(
                    description: "\(name) has an empty value (an empty passphrase is no key); nothing was opened")
            }
            switch name {
            case "--key":
                guard result.passphrase == nil else { throw Misuse(description: "--key is given twice") }
                result.passphrase = value
            case "--key-file":
                guard result.keyFile == nil else { throw Misuse(description: "--key-file is given twice") }
                result.keyFile = value
            default:
                guard result.rawKey == nil else { throw Misuse(description: "--raw-key is given twice") }
                result.rawKey = value
            }
        }
        arguments = kept
        return result
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
            let key = try newKey(arguments.first)
            // Encrypts a plain database with the --cipher of the command line, or changes the key of an encrypted
            // one (keeping its cipher).
            try database.rekey(key)
            encryption.key = key
        case ".encrypt":
            guard let path = arguments.first else { throw Failure("usage: .encrypt FILE [PASSPHRASE]") }
            let key = try newKey(arguments.dropFirst().first)
            try database.export(to: path, key: key, cipher: database.configuration.cipher)
        case ".decrypt":
            guard let path = arguments.first else { throw Failure("usage: .decrypt FILE") }
            try database.export(to: path, key: nil)
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
