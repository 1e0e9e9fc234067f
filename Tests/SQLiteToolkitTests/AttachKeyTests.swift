import Foundation
import SQLiteToolkit
import Testing

/// One test per statement the documentation makes about attaching and keys (the `attach(path:as:key:cipher:)` doc
/// comment, <doc:SchemaAndMigrations>'s "Several databases" and <doc:Encryption>'s "Rekeying, encrypting,
/// decrypting").
@Suite("Attach and keys: what the docs say")
struct AttachKeyTests {
    /// Runs `body` with the path of an encrypted main database (TestKeys.raw, ChaCha20) and a free path beside it.
    static func withPaths(_ body: (String, String) throws -> Void) throws {
        try TemporaryFile.withDatabasePath { path in
            let other = path + ".other"
            defer { try? FileManager.default.removeItem(atPath: other) }
            try body(path, other)
        }
    }

    /// The schema names the connection has.
    static func schemas(_ db: Database) throws -> [String] {
        try db.attachedDatabases().map(\.name)
    }

    @Test("attach without a key, from an encrypted connection, creates a plain file: never the connection's key")
    func noKeyCreatesPlainFile() throws {
        try Self.withPaths { path, other in
            let db = try openEncrypted(path, key: TestKeys.raw)
            try db.attach(path: other, as: "other")
            try db.execute("CREATE TABLE other.t(x)")
            try db.execute("INSERT INTO other.t VALUES ('plain')")
            try db.detach("other")
            db.close()
            #expect(try Database.isPlainDatabase(atPath: other))
            #expect(try Database(path: other).queryValue("SELECT x FROM t", as: String.self) == "plain")
        }
    }

    @Test("an encrypted file attached without a key fails at attach, says so without speaking of a wrong key")
    func encryptedFileWithoutKey() throws {
        try Self.withPaths { path, other in
            do {
                let encrypted = try openEncrypted(other, key: TestKeys.otherRaw)
                try encrypted.execute("CREATE TABLE t(x)")
            }
            for mainKey in [nil, TestKeys.raw] {
                let db = try openEncrypted(path + (mainKey == nil ? ".plain" : ""), key: mainKey)
                defer { try? FileManager.default.removeItem(atPath: path + ".plain") }
                let error = try #require(throws: DatabaseError.self) { try db.attach(path: other, as: "other") }
                #expect(error.reason == .notADatabase)
                #expect(error.code == .notadb)
                #expect(!error.message.contains("wrong key"), "\(error.message)")
                #expect(error.message.contains("encrypted"), "\(error.message)")
                #expect(try Self.schemas(db) == ["main"])
            }
        }
    }

    @Test("attach with its own key and cipher creates a file encrypted with that key, not the connection's")
    func ownKeyCreatesFileWithThatKey() throws {
        try Self.withPaths { path, other in
            let db = try openEncrypted(path, key: TestKeys.raw)
            try db.attach(path: other, as: "other", key: TestKeys.otherRaw, cipher: .sqlcipher(version: 4))
            try db.execute("CREATE TABLE other.t(x)")
            try db.execute("INSERT INTO other.t VALUES (7)")
            try db.detach("other")
            db.close()
            #expect(try !Database.isPlainDatabase(atPath: other))
            let reopened = try openEncrypted(other, key: TestKeys.otherRaw, cipher: .sqlcipher(version: 4))
            #expect(try reopened.queryValue("SELECT x FROM t", as: Int.self) == 7)
            let mainKey = try #require(throws: DatabaseError.self) {
                try openEncrypted(other, key: TestKeys.raw, cipher: .sqlcipher(version: 4))
            }
            #expect(mainKey.reason == .wrongKeyOrNotADatabase)
        }
    }

    @Test("the attached file's key is checked at once: a wrong cipher with the right key fails at attach")
    func keyCheckedAtOnce() throws {
        try Self.withPaths { path, other in
            do {
                let encrypted = try openEncrypted(other, key: TestKeys.otherRaw, cipher: .sqlcipher(version: 4))
                try encrypted.execute("CREATE TABLE t(x)")
            }
            let db = try openEncrypted(path, key: TestKeys.raw)
            let error = try #require(throws: DatabaseError.self) {
                try db.attach(path: other, as: "other", key: TestKeys.otherRaw, cipher: .chaCha20())
            }
            #expect(error.reason == .wrongKeyOrNotADatabase)
            #expect(error.message.contains("wrong key or cipher (chacha20)"), "\(error.message)")
            #expect(try Self.schemas(db) == ["main"])
        }
    }

    @Test("a key given for a plain file is refused before the codec sees it; the file stays plain and unchanged")
    func keyForPlainFile() throws {
        try Self.withPaths { path, other in
            try makePlainDatabase(other, rows: 2)
            let before = encryptionTestFileBytes(other)
            let db = try openEncrypted(path, key: TestKeys.raw)
            let error = try #require(throws: DatabaseError.self) {
                try db.attach(path: other, as: "other", key: TestKeys.otherRaw)
            }
            #expect(error.reason == .keyForPlainDatabase)
            #expect(try Self.schemas(db) == ["main"])
            #expect(encryptionTestFileBytes(other) == before)
        }
    }
}
