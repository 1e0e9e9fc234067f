import Foundation
import SQLiteToolkit
import Testing

/// Files written by the toolkit open in a real SQLCipher and the other way round. The peers come from
/// `scripts/install-test-peers`; without them these tests are skipped with a message that says what to install,
/// never passed silently.
@Suite("Encryption: interoperability with a real SQLCipher 4 and 3")
struct SQLCipherInteropTests {
    static let rawHex = String(repeating: "0123456789abcdef", count: 4)
    static let rawPragma = "PRAGMA key = \"x'\(rawHex)'\""
    /// A low iteration count on both sides keeps the tests fast; one test uses SQLCipher 4's real default.
    static let iterations = 4000

    /// Rows the tests write, with text that must never appear in the encrypted file.
    static let rows = (1...20).map { "plaintext row \($0)" }

    static func writeRows(_ db: Database) throws {
        try db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
        try db.transaction { db in
            for body in rows { try db.execute("INSERT INTO notes (body) VALUES (?)", body) }
        }
    }

    static let peerInserts =
        ["CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"]
        + rows.map { "INSERT INTO notes (body) VALUES ('\($0)')" }

    static func readRows(_ db: Database) throws -> [String] {
        try db.query("SELECT body FROM notes ORDER BY id").map { try $0.value(at: 0) as String }
    }

    // MARK: SQLCipher 4

    @Test(
        "SQLCipher 4 with a passphrase and its default 256,000 iterations → the toolkit reads every row",
        .enabled(if: SQLCipherPeers.sqlcipher4Python != nil, Comment(rawValue: SQLCipherPeers.missingSQLCipher4)))
    func sqlcipher4PassphraseToToolkit() throws {
        try TemporaryFile.withDatabasePath { path in
            _ = try SQLCipherPeers.sqlcipher4(path, ["PRAGMA key = 'pässphrase'"] + Self.peerInserts)
            #expect(!holdsText(encryptionTestFileBytes(path), "plaintext row"))
            let db = try openEncrypted(path, key: .passphrase("pässphrase"), cipher: .sqlcipher(version: 4))
            #expect(try Self.readRows(db) == Self.rows)
        }
    }

    @Test(
        "SQLCipher 4 with a raw key → the toolkit reads every row",
        .enabled(if: SQLCipherPeers.sqlcipher4Python != nil, Comment(rawValue: SQLCipherPeers.missingSQLCipher4)))
    func sqlcipher4RawKeyToToolkit() throws {
        try TemporaryFile.withDatabasePath { path in
            _ = try SQLCipherPeers.sqlcipher4(path, [Self.rawPragma] + Self.peerInserts)
            let db = try openEncrypted(path, key: .raw(hex: Self.rawHex), cipher: .sqlcipher(version: 4))
            #expect(try Self.readRows(db) == Self.rows)
        }
    }

    @Test(
        "the toolkit in SQLCipher 4 mode → SQLCipher 4 reads every row and passes cipher_integrity_check",
        .enabled(if: SQLCipherPeers.sqlcipher4Python != nil, Comment(rawValue: SQLCipherPeers.missingSQLCipher4)),
        arguments: [true, false])
    func toolkitToSQLCipher4(usesRawKey: Bool) throws {
        try TemporaryFile.withDatabasePath { path in
            let key: DatabaseKey = usesRawKey ? .raw(hex: Self.rawHex) : .passphrase("pässphrase")
            let cipher = Cipher.sqlcipher(version: 4, kdfIterations: usesRawKey ? nil : Self.iterations)
            do {
                let db = try openEncrypted(path, key: key, cipher: cipher)
                try Self.writeRows(db)
            }
            #expect(!holdsText(encryptionTestFileBytes(path), "plaintext row"))
            let keyPragmas =
                usesRawKey
                ? [Self.rawPragma] : ["PRAGMA key = 'pässphrase'", "PRAGMA kdf_iter = \(Self.iterations)"]
            let results = try SQLCipherPeers.sqlcipher4(
                path, keyPragmas + ["PRAGMA cipher_integrity_check", "SELECT body FROM notes ORDER BY id"])
            #expect(results[keyPragmas.count] == [])  // no page failed its HMAC
            #expect(results[keyPragmas.count + 1] == Self.rows.map { [$0] })
        }
    }

    @Test(
        "WAL: a file and its -wal copied before a checkpoint open on the other side, both ways",
        .enabled(if: SQLCipherPeers.sqlcipher4Python != nil, Comment(rawValue: SQLCipherPeers.missingSQLCipher4)))
    func walBothWays() throws {
        try TemporaryFile.withDatabasePath { path in
            let copy = path + ".copy"
            defer {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: copy + suffix) }
            }
            // Toolkit → SQLCipher.
            do {
                let db = try openEncrypted(path, key: .raw(hex: Self.rawHex), cipher: .sqlcipher(version: 4))
                try db.execute("PRAGMA journal_mode = WAL")
                try db.execute("PRAGMA wal_autocheckpoint = 0")
                try Self.writeRows(db)
                #expect(!holdsText(encryptionTestFileBytes(path + "-wal"), "plaintext row"))
                try encryptionTestFileBytes(path).write(to: URL(fileURLWithPath: copy))
                try encryptionTestFileBytes(path + "-wal").write(to: URL(fileURLWithPath: copy + "-wal"))
            }
            let read = try SQLCipherPeers.sqlcipher4(copy, [Self.rawPragma, "SELECT count(*) FROM notes"])
            #expect(read[1] == [["20"]])

            // SQLCipher → toolkit.
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: copy + suffix) }
            let peerPath = path + ".peer"
            defer {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: peerPath + suffix) }
            }
            _ = try SQLCipherPeers.sqlcipher4(
                peerPath,
                [Self.rawPragma, "PRAGMA journal_mode = WAL", "PRAGMA wal_autocheckpoint = 0"] + Self.peerInserts,
                copyTo: copy)
            #expect(encryptionTestFileBytes(copy + "-wal").count > 0)
            #expect(!holdsText(encryptionTestFileBytes(copy + "-wal"), "plaintext row"))
            let db = try openEncrypted(copy, key: .raw(hex: Self.rawHex), cipher: .sqlcipher(version: 4))
            #expect(try Self.readRows(db) == Self.rows)
        }
    }

    @Test(
        "a flipped byte: SQLCipher reports an HMAC failure, the toolkit a corruption error",
        .enabled(if: SQLCipherPeers.sqlcipher4Python != nil, Comment(rawValue: SQLCipherPeers.missingSQLCipher4)))
    func tamper() throws {
        try TemporaryFile.withDatabasePath { path in
            do {
                let db = try openEncrypted(path, key: .raw(hex: Self.rawHex), cipher: .sqlcipher(version: 4))
                try Self.writeRows(db)
            }
            var bytes = encryptionTestFileBytes(path)
            bytes[4096 + 200] ^= 0x01  // inside page 2, the notes table
            try bytes.write(to: URL(fileURLWithPath: path))

            let report = try SQLCipherPeers.sqlcipher4(path, [Self.rawPragma, "PRAGMA cipher_integrity_check"])
            #expect(report[1].flatMap { $0 }.contains { $0.lowercased().contains("hmac") && $0.contains("2") })

            let db = try openEncrypted(path, key: .raw(hex: Self.rawHex), cipher: .sqlcipher(version: 4))
            let error = try #require(throws: DatabaseError.self) { try Self.readRows(db) }
            #expect(error.code == .corrupt)
        }
    }

    // MARK: SQLCipher 3

    @Test(
        "SQLCipher 3.4.1 with a passphrase or a raw key → the toolkit in SQLCipher 3 mode reads every row",
        .enabled(if: SQLCipherPeers.sqlcipher3Shell != nil, Comment(rawValue: SQLCipherPeers.missingSQLCipher3)),
        arguments: [true, false])
    func sqlcipher3ToToolkit(usesRawKey: Bool) throws {
        try TemporaryFile.withDatabasePath { path in
            let keyScript =
                usesRawKey
                ? Self.rawPragma + ";\n" : "PRAGMA key = 'pässphrase';\nPRAGMA kdf_iter = \(Self.iterations);\n"
            _ = try SQLCipherPeers.sqlcipher3(path, keyScript + Self.peerInserts.joined(separator: ";\n") + ";\n")
            #expect(!holdsText(encryptionTestFileBytes(path), "plaintext row"))
            let key: DatabaseKey = usesRawKey ? .raw(hex: Self.rawHex) : .passphrase("pässphrase")
            let cipher = Cipher.sqlcipher(version: 3, kdfIterations: usesRawKey ? nil : Self.iterations)
            let db = try openEncrypted(path, key: key, cipher: cipher)
            #expect(try Self.readRows(db) == Self.rows)
        }
    }

    @Test(
        "the toolkit in SQLCipher 3 mode → SQLCipher 3.4.1 reads every row and passes integrity_check",
        .enabled(if: SQLCipherPeers.sqlcipher3Shell != nil, Comment(rawValue: SQLCipherPeers.missingSQLCipher3)),
        arguments: [true, false])
    func toolkitToSQLCipher3(usesRawKey: Bool) throws {
        try TemporaryFile.withDatabasePath { path in
            let key: DatabaseKey = usesRawKey ? .raw(hex: Self.rawHex) : .passphrase("pässphrase")
            let cipher = Cipher.sqlcipher(version: 3, kdfIterations: usesRawKey ? nil : Self.iterations)
            do {
                let db = try openEncrypted(path, key: key, cipher: cipher)
                try Self.writeRows(db)
            }
            let keyScript =
                usesRawKey
                ? Self.rawPragma + ";\n" : "PRAGMA key = 'pässphrase';\nPRAGMA kdf_iter = \(Self.iterations);\n"
            let lines = try SQLCipherPeers.sqlcipher3(
                path, keyScript + "PRAGMA integrity_check;\nSELECT body FROM notes ORDER BY id;\n")
            #expect(lines == ["ok"] + Self.rows)
        }
    }

    @Test(
        "SQLCipher 4.12 with cipher_compatibility = 3 reads the toolkit's SQLCipher 3 files",
        .enabled(if: SQLCipherPeers.sqlcipher4Python != nil, Comment(rawValue: SQLCipherPeers.missingSQLCipher4)),
        arguments: [true, false])
    func toolkitSQLCipher3ToSQLCipher4(usesRawKey: Bool) throws {
        try TemporaryFile.withDatabasePath { path in
            let key: DatabaseKey = usesRawKey ? .raw(hex: Self.rawHex) : .passphrase("pässphrase")
            let cipher = Cipher.sqlcipher(version: 3, kdfIterations: usesRawKey ? nil : Self.iterations)
            do {
                let db = try openEncrypted(path, key: key, cipher: cipher)
                try Self.writeRows(db)
            }
            let keyPragmas =
                (usesRawKey ? [Self.rawPragma] : ["PRAGMA key = 'pässphrase'"])
                + ["PRAGMA cipher_compatibility = 3"]
                + (usesRawKey ? [] : ["PRAGMA kdf_iter = \(Self.iterations)"])
            let results = try SQLCipherPeers.sqlcipher4(
                path, keyPragmas + ["PRAGMA cipher_integrity_check", "SELECT body FROM notes ORDER BY id"])
            #expect(results[keyPragmas.count] == [])
            #expect(results[keyPragmas.count + 1] == Self.rows.map { [$0] })
        }
    }
}
