import Foundation
import Testing

@Suite("sqltk with encrypted databases")
struct EncryptionTests {
    static let create = "CREATE TABLE secret (value TEXT); INSERT INTO secret VALUES ('hidden')"

    /// Whether the file at `path` starts with the plain SQLite header.
    static func isPlain(_ path: String) -> Bool {
        FileManager.default.contents(atPath: path).map { $0.starts(with: Array("SQLite format 3\0".utf8)) } ?? false
    }

    @Test("a database created with --key is encrypted, opens with the key, and refuses a wrong key or none")
    func passphrase() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("secret.sqlite")
        #expect(try ShellProcess.run(["--key=right", path, Self.create]).status == 0)
        #expect(!Self.isPlain(path))

        let right = try ShellProcess.run(["--key=right", path, "SELECT value FROM secret"])
        #expect(right.status == 0)
        #expect(right.output == "hidden\n")

        let wrong = try ShellProcess.run(["--key=wrong", path, "SELECT value FROM secret"])
        #expect(wrong.status == 1)
        #expect(wrong.output == "")
        #expect(wrong.error.hasPrefix("Error: wrong key: "))
        #expect(wrong.error.contains("SQLITE_NOTADB"))

        let none = try ShellProcess.run([path, "SELECT value FROM secret"])
        #expect(none.status == 1)
        #expect(
            none.error.contains(
                "If the file is encrypted, give its key with --key, --ask-key, --key-file or --raw-key."))
    }

    @Test("--key-file, --raw-key, --cipher and --sqlcipher open what they created, and nothing else does")
    func keyForms() throws {
        let folder = try TemporaryFolder()
        let keyFile = folder.path("key.txt")
        try Data("from a file\n".utf8).write(to: URL(fileURLWithPath: keyFile))
        let hex = String(repeating: "0123456789abcdef", count: 4)
        let forms: [[String]] = [
            ["--key-file", keyFile], ["--raw-key", hex], ["--key=p", "--cipher", "aes256cbc"],
            ["--key=p", "--sqlcipher", "4"], ["--key=p", "--sqlcipher", "3"],
        ]
        for (index, options) in forms.enumerated() {
            let path = folder.path("db\(index).sqlite")
            #expect(try ShellProcess.run(options + [path, Self.create]).status == 0)
            #expect(try ShellProcess.run(options + [path, "SELECT value FROM secret"]).output == "hidden\n")
            // The same passphrase with the default cipher is the wrong key for a file of another cipher.
            #expect(try ShellProcess.run(["--key=p", path, "SELECT 1 FROM secret"]).status == 1)
        }
        // The key file's trailing line break is not part of the passphrase.
        #expect(try ShellProcess.run(["--key=from a file", folder.path("db0.sqlite"), "SELECT 1"]).output == "1\n")
    }

    @Test(".rekey changes the key in place; .decrypt and .encrypt write plain and encrypted copies")
    func rekeyAndExport() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("db.sqlite")
        let plainCopy = folder.path("plain.sqlite")
        let encryptedCopy = folder.path("encrypted.sqlite")
        #expect(try ShellProcess.run(["--key=old", path, Self.create, ".rekey new"]).status == 0)
        #expect(try ShellProcess.run(["--key=old", path, "SELECT 1"]).status == 1)
        #expect(try ShellProcess.run(["--key=new", path, ".decrypt \(plainCopy)"]).status == 0)
        #expect(Self.isPlain(plainCopy))
        #expect(try ShellProcess.run([plainCopy, "SELECT value FROM secret"]).output == "hidden\n")

        #expect(try ShellProcess.run([plainCopy, ".encrypt \(encryptedCopy) again"]).status == 0)
        #expect(!Self.isPlain(encryptedCopy))
        #expect(try ShellProcess.run(["--key=again", encryptedCopy, "SELECT value FROM secret"]).output == "hidden\n")

        // .rekey on a plain database encrypts it in place.
        #expect(try ShellProcess.run([plainCopy, ".rekey fresh"]).status == 0)
        #expect(!Self.isPlain(plainCopy))
        #expect(try ShellProcess.run(["--key=fresh", plainCopy, "SELECT value FROM secret"]).output == "hidden\n")
    }

    @Test(".rekey refuses a database Litestream replicates, says why and what to use, and leaves it plain")
    func rekeyRefusesReplicatedDatabase() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("db.sqlite")
        // The tables Litestream creates in a database it replicates (see ReplicatingWithLitestream.md).
        let litestreamTables =
            "CREATE TABLE _litestream_seq (id INTEGER PRIMARY KEY, seq INTEGER); "
            + "CREATE TABLE _litestream_lock (id INTEGER)"
        #expect(try ShellProcess.run([path, Self.create + "; " + litestreamTables]).status == 0)
        let refused = try ShellProcess.run([path, ".rekey fresh"])
        #expect(refused.status == 1)
        #expect(refused.error.contains("Litestream replicates this database"))
        #expect(refused.error.contains(".encrypt FILE writes an encrypted copy instead."))
        #expect(Self.isPlain(path))
        #expect(try ShellProcess.run([path, "SELECT value FROM secret"]).output == "hidden\n")
    }

    @Test(".backup of an encrypted database writes an encrypted copy with the same key")
    func encryptedBackup() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("db.sqlite")
        let copy = folder.path("copy.sqlite")
        #expect(try ShellProcess.run(["--key=k", path, Self.create, ".backup \(copy)"]).status == 0)
        #expect(!Self.isPlain(copy))
        #expect(try ShellProcess.run(["--key=k", copy, "SELECT value FROM secret"]).output == "hidden\n")
    }

    @Test("--key VALUE and --key=VALUE both give the passphrase, as --help says")
    func keySpellings() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("secret.sqlite")
        #expect(try ShellProcess.run(["--key", "two words", path, Self.create]).status == 0)
        #expect(!Self.isPlain(path))
        #expect(try ShellProcess.run(["--key=two words", path, "SELECT value FROM secret"]).output == "hidden\n")
        #expect(try ShellProcess.run([path, "--key", "two words", "SELECT value FROM secret"]).output == "hidden\n")
        // A passphrase that starts with a dash is a value, not an option.
        let dashed = folder.path("dashed.sqlite")
        #expect(try ShellProcess.run(["--key", "-x", dashed, Self.create]).status == 0)
        #expect(try ShellProcess.run(["--key=-x", dashed, "SELECT value FROM secret"]).output == "hidden\n")
        let help = try ShellProcess.run(["--help"])
        #expect(help.output.contains("-key PASSPHRASE"))
        #expect(help.output.contains("-ask-key"))
    }

    @Test(
        "an empty or missing key value is refused before anything is created or read",
        arguments: [
            ["--key=", "db.sqlite", "CREATE TABLE made (a)"],
            ["--key", "", "db.sqlite", "CREATE TABLE made (a)"],
            ["--key-file=", "db.sqlite", "CREATE TABLE made (a)"],
            ["--raw-key=", "db.sqlite", "CREATE TABLE made (a)"],
            ["db.sqlite", "--key"],
            ["--key=", "db.sqlite"],
        ])
    func emptyKeyRefused(arguments: [String]) throws {
        let folder = try TemporaryFolder()
        let arguments = arguments.map { $0 == "db.sqlite" ? folder.path("db.sqlite") : $0 }
        // Standard input holds SQL that would create a table, were it read.
        let result = try ShellProcess.run(arguments, input: "CREATE TABLE from_input (a);\n")
        #expect(result.status != 0)
        #expect(result.output == "")
        #expect(result.error.contains("--key") || result.error.contains("--raw-key"))
        let created = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(created.isEmpty, "created \(created)")
    }

    @Test("an empty key file is refused before the database is opened")
    func emptyKeyFile() throws {
        let folder = try TemporaryFolder()
        let keyFile = folder.path("key.txt")
        try Data("\n".utf8).write(to: URL(fileURLWithPath: keyFile))
        let result = try ShellProcess.run(["--key-file", keyFile, folder.path("db.sqlite"), "SELECT 1"])
        #expect(result.status == 1)
        #expect(result.error.contains("is empty"))
        #expect(!FileManager.default.fileExists(atPath: folder.path("db.sqlite")))
    }

    @Test(
        "no passphrase appears in any output, whatever the mistake",
        arguments: [
            ["--key", "s3cret-Pass", "db.sqlite", "SELEC 1"],
            ["--key=s3cret-Pass", "plain.sqlite", "SELECT 1"],
            ["--key", "s3cret-Pass", "--no-such-option", "db.sqlite"],
            ["--key", "-s3cret-Pass", "--mode", "sideways", "db.sqlite"],
            ["--key", "s3cret-Pass", "--raw-key", "00", "db.sqlite"],
            ["--key", "s3cret-Pass", "--cipher", "rot13", "db.sqlite"],
            ["--key", "s3cret-Pass", "--key", "s3cret-Pass", "db.sqlite"],
            ["--key", "s3cret-Pass", ":memory:", "SELECT 1"],
            ["--key", "s3cret-Pass", "db.sqlite", ".rekey"],
            ["--key", "s3cret-Pass", "db.sqlite"],
            ["--raw-key", "s3cret-Pass", "db.sqlite", "SELECT 1"],
        ])
    func passphraseNeverShown(arguments: [String]) throws {
        let folder = try TemporaryFolder()
        let plain = folder.path("plain.sqlite")
        #expect(try ShellProcess.run([plain, "CREATE TABLE t (a)"]).status == 0)
        let arguments = arguments.map { ["db.sqlite": folder.path("db.sqlite"), "plain.sqlite": plain][$0] ?? $0 }
        let result = try ShellProcess.run(arguments, input: "SELECT x FROM nowhere;\n")
        #expect(result.status != 0)
        #expect(!result.output.contains("s3cret"))
        #expect(!result.error.contains("s3cret"))
    }

    @Test("a key for a plain database says to open it without one and names .rekey, not a Swift API")
    func keyForPlainDatabase() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("plain.sqlite")
        #expect(try ShellProcess.run([path, "CREATE TABLE t (a)"]).status == 0)
        let result = try ShellProcess.run(["--key=k", path, "SELECT 1"])
        #expect(result.status == 1)
        #expect(result.error.contains("not encrypted: open it without a key"))
        #expect(result.error.contains(".rekey"))
        #expect(!result.error.contains("encrypt(with"))
    }

    @Test("--ask-key needs a terminal; conflicting options are usage errors")
    func optionErrors() throws {
        let asked = try ShellProcess.run(["--ask-key", ":memory:", "SELECT 1"])
        #expect(asked.status == 1)
        #expect(asked.error.contains("--ask-key asks on a terminal"))
        #expect(try ShellProcess.run(["--key=a", "--raw-key", "00", ":memory:"]).status == 1)
        #expect(try ShellProcess.run(["--key=a", "--ask-key", ":memory:"]).status == 1)
        #expect(try ShellProcess.run(["--cipher", "rot13", "--key=a", ":memory:"]).status == 1)
        #expect(try ShellProcess.run(["--sqlcipher", "5", "--key=a", ":memory:"]).status == 1)
    }

    @Test(
        "--ask-key asks for the passphrase on the terminal without echo, and opens the database with it",
        .enabled(if: interactiveTmux != nil, "needs tmux to drive a pseudo-terminal: apt-get install -y tmux"))
    func askKey() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("secret.sqlite")
        #expect(try ShellProcess.run(["--key=typed-Secret", path, Self.create]).status == 0)
        let executable = try #require(ShellProcess.executable)
        let shell = try TmuxSession(
            command:
                "HOME='\(folder.url.path)' '\(executable.path)' --ask-key '\(path)' 'SELECT value FROM secret'"
                + "; sleep 10")
        try shell.waitFor("Key:")
        try shell.send("typed-Secret", "Enter")
        let screen = try shell.waitFor("hidden")
        #expect(!screen.contains("typed-Secret"))
    }
}
