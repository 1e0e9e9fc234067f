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
        #expect(none.error.contains("If the file is encrypted, give its key with --key, --key-file or --raw-key."))
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

    @Test(".backup of an encrypted database writes an encrypted copy with the same key")
    func encryptedBackup() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("db.sqlite")
        let copy = folder.path("copy.sqlite")
        #expect(try ShellProcess.run(["--key=k", path, Self.create, ".backup \(copy)"]).status == 0)
        #expect(!Self.isPlain(copy))
        #expect(try ShellProcess.run(["--key=k", copy, "SELECT value FROM secret"]).output == "hidden\n")
    }

    @Test("--key without a value needs a terminal; conflicting options are usage errors")
    func optionErrors() throws {
        let bare = try ShellProcess.run(["--key", ":memory:", "SELECT 1"])
        #expect(bare.status == 1)
        #expect(bare.error.contains("--key without a value asks on a terminal"))
        #expect(try ShellProcess.run(["--key=a", "--raw-key", "00", ":memory:"]).status == 64)
        #expect(try ShellProcess.run(["--cipher", "rot13", "--key=a", ":memory:"]).status == 64)
        #expect(try ShellProcess.run(["--sqlcipher", "5", "--key=a", ":memory:"]).status == 64)
    }
}
