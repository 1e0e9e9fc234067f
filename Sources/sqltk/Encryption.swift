import ArgumentParser
import SQLiteToolkit

/// Everything about keys and ciphers in one place: the options, opening with a key, the wrong-key message, and
/// `.rekey`, `.encrypt`, `.decrypt`.
struct EncryptionOptions: ParsableArguments {
    /// Sets the key and cipher of `configuration` from the options.
    func apply(to configuration: inout Database.Configuration, isInputTerminal: Bool) throws {}

    /// The message for an error that means a wrong key, or `nil` for any other error.
    static func wrongKeyMessage(for error: DatabaseError) -> String? {
        guard error.code == .notadb else { return nil }
        return "Error: the file is not a database, or it is encrypted (code \(error.extendedCode.rawValue): "
            + "\(error.extendedCode.name ?? "SQLITE_NOTADB"))\n"
    }
}

extension Shell {
    /// `.rekey`, `.encrypt FILE`, `.decrypt FILE`.
    func runEncryptionCommand(_ command: String, arguments: [String]) throws {
        throw Failure("\(command): this build of sqltk has no encryption commands")
    }

    /// Gives a `.backup` destination the key of the database being copied, when it has one.
    func prepareBackupDestination(_ destination: Database) throws {}
}

/// The demo's encryption: `nil` while this build has no encryption API.
enum DemoEncryption {
    /// The demo's passphrase.
    static let passphrase = "correct horse battery staple"

    /// The configuration that opens the demo database with `passphrase`, and how to describe it.
    static func configuration(passphrase: String = passphrase) -> (
        configuration: Database.Configuration, cipherName: String, passphrase: String
    )? {
        nil
    }
}
