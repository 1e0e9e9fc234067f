import Foundation
import SQLiteToolkit
import Testing

/// Test keys. Passphrase tests use a low KDF iteration count, raw keys skip key derivation: in a debug build the
/// amalgamation is compiled without optimization and a default-strength derivation costs up to a second or more.
enum TestKeys {
    static let raw = DatabaseKey.raw(hex: String(repeating: "0123456789abcdef", count: 4))
    static let otherRaw = DatabaseKey.raw((0..<32).map { UInt8($0) })
    static let fastChaCha20 = Cipher.chaCha20(kdfIterations: 1000)
}

/// A database at `path` keyed with `key` and `cipher`.
func openEncrypted(_ path: String, key: DatabaseKey?, cipher: Cipher = TestKeys.fastChaCha20) throws -> Database {
    var configuration = Database.Configuration()
    configuration.key = key
    configuration.cipher = cipher
    return try Database(path: path, configuration: configuration)
}

/// The bytes of the file at `path`, or empty when it does not exist.
func encryptionTestFileBytes(_ path: String) -> Data {
    FileManager.default.contents(atPath: path) ?? Data()
}

/// Whether `data` holds the UTF-8 bytes of `text`.
func holdsText(_ data: Data, _ text: String) -> Bool {
    data.range(of: Data(text.utf8)) != nil
}

@Suite("Encryption: keys at open, wrong keys, plain files")
struct EncryptionTests {
    @Test("a raw-keyed database round-trips, and neither the file nor its -wal holds the plaintext")
    func rawKeyRoundTripWithoutPlaintext() throws {
        try TemporaryFile.withDatabasePath { path in
            let db = try openEncrypted(path, key: TestKeys.raw)
            #expect(db.isEncrypted)
            #expect(db.configuration.key == nil)
            try db.execute("PRAGMA journal_mode = WAL")
            try db.execute("PRAGMA wal_autocheckpoint = 0")
            try db.execute("CREATE TABLE notes (body TEXT)")
            try db.execute("INSERT INTO notes VALUES (?)", "top secret row")
            // Before any checkpoint the row is only in the -wal.
            #expect(encryptionTestFileBytes(path + "-wal").count > 0)
            #expect(!holdsText(encryptionTestFileBytes(path + "-wal"), "top secret row"))
            #expect(!holdsText(encryptionTestFileBytes(path), "top secret row"))
            db.close()
            #expect(!holdsText(encryptionTestFileBytes(path), "top secret row"))
            #expect(try !Database.isPlainDatabase(atPath: path))

            let reopened = try openEncrypted(path, key: TestKeys.raw)
            #expect(try reopened.queryValue("SELECT body FROM notes", as: String.self) == "top secret row")
        }
    }

    @Test("a passphrase is its UTF-8 bytes: \"pässword\" does not open a file keyed with \"pässworX\"")
    func passphraseIsUTF8Bytes() throws {
        try TemporaryFile.withDatabasePath { path in
            do {
                let db = try openEncrypted(path, key: .passphrase("pässworX"))
                try db.execute("CREATE TABLE t (x)")
            }
            let error = try #require(throws: DatabaseError.self) {
                try openEncrypted(path, key: .passphrase("pässword"))
            }
            #expect(error.reason == .wrongKeyOrNotADatabase)
            let db = try openEncrypted(path, key: .passphrase(bytes: Array("pässworX".utf8)))
            #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 0)
        }
    }

    @Test("a wrong key fails at open with a typed reason and leaves the file byte-identical")
    func wrongKeyFailsAtOpen() throws {
        try TemporaryFile.withDatabasePath { path in
            do {
                let db = try openEncrypted(path, key: TestKeys.raw)
                try db.executeScript("CREATE TABLE t (x); INSERT INTO t VALUES (1)")
            }
            let before = encryptionTestFileBytes(path)
            let error = try #require(throws: DatabaseError.self) { try openEncrypted(path, key: TestKeys.otherRaw) }
            #expect(error.reason == .wrongKeyOrNotADatabase)
            #expect(error.code == .notadb)
            // The right key with the wrong scheme is a wrong key too.
            let wrongScheme = try #require(throws: DatabaseError.self) {
                try openEncrypted(path, key: TestKeys.raw, cipher: .sqlcipher(version: 4))
            }
            #expect(wrongScheme.reason == .wrongKeyOrNotADatabase)
            #expect(encryptionTestFileBytes(path) == before)
        }
    }

    @Test("an encrypted file opened without a key fails at open with notADatabase (on first read unchecked)")
    func missingKey() throws {
        try TemporaryFile.withDatabasePath { path in
            do {
                let db = try openEncrypted(path, key: TestKeys.raw)
                try db.executeScript("CREATE TABLE t (x); INSERT INTO t VALUES (1)")
            }
            let before = encryptionTestFileBytes(path)
            let atOpen = try #require(throws: DatabaseError.self) { try Database(path: path) }
            #expect(atOpen.reason == .notADatabase)
            #expect(atOpen.path == path)
            var unchecked = Database.Configuration()
            unchecked.checksHeaderAtOpen = false
            let db = try Database(path: path, configuration: unchecked)
            #expect(!db.isEncrypted)
            let error = try #require(throws: DatabaseError.self) { try db.execute("SELECT * FROM t") }
            #expect(error.isNotADatabase)
            db.close()
            #expect(encryptionTestFileBytes(path) == before)
        }
    }

    @Test("a key given for a plain database fails at open with keyForPlainDatabase and changes nothing")
    func keyOnPlainDatabase() throws {
        try TemporaryFile.withDatabasePath { path in
            do {
                let db = try Database(path: path)
                try db.executeScript("CREATE TABLE t (x); INSERT INTO t VALUES (1)")
            }
            #expect(try Database.isPlainDatabase(atPath: path))
            let before = encryptionTestFileBytes(path)
            let error = try #require(throws: DatabaseError.self) { try openEncrypted(path, key: TestKeys.raw) }
            #expect(error.reason == .keyForPlainDatabase)
            #expect(encryptionTestFileBytes(path) == before)
        }
    }

    @Test("keys the codec cannot use are refused before it sees them")
    func invalidKeys() throws {
        try TemporaryFile.withDatabasePath { path in
            let cases: [(DatabaseKey, Cipher, DatabaseError.Reason)] = [
                (.passphrase(""), .default, .invalidKey),
                (.raw([1, 2, 3]), .default, .invalidRawKey),
                (.raw(hex: "not hex"), .default, .invalidRawKey),
                (TestKeys.raw, .aes256CBC(), .invalidRawKey),
                (TestKeys.raw, .aes128CBC(), .invalidRawKey),
                (TestKeys.raw, .aegis(algorithm: .aegis128L), .invalidRawKey),
            ]
            for (key, cipher, reason) in cases {
                let error = try #require(throws: DatabaseError.self) {
                    try openEncrypted(path, key: key, cipher: cipher)
                }
                #expect(error.reason == reason, "\(key) with \(cipher)")
            }
            #expect(!TemporaryFile.exists(path) || encryptionTestFileBytes(path).isEmpty)
        }
    }

    @Test("a cipher setting the codec refuses throws instead of being ignored")
    func rejectedCipherParameters() throws {
        let cases: [(Cipher, String)] = [
            (.sqlcipher(version: 5), "legacy"),
            (.sqlcipher(version: 0), "legacy"),
            (.chaCha20(plaintextHeaderSize: 101), "plaintext_header_size"),
            (.chaCha20(kdfIterations: 0), "kdf_iter"),
            (.sqlcipher(pageSize: 1000), "legacy_page_size"),
            (Cipher(name: "rot13"), "cipher"),
            (Cipher(name: "rc4"), "cipher"),
            (Cipher(name: "chacha20", parameters: [.init("hmac_use", 1)]), "hmac_use"),
        ]
        try TemporaryFile.withDatabasePath { path in
            for (cipher, parameter) in cases {
                let error = try #require(throws: DatabaseError.self) {
                    try openEncrypted(path, key: TestKeys.raw, cipher: cipher)
                }
                #expect(
                    error.reason == .cipherParameterRejected(cipher: cipher.name, parameter: parameter), "\(cipher)")
            }
            #expect(!TemporaryFile.exists(path) || encryptionTestFileBytes(path).isEmpty)
        }
    }

    @Test("the README's encryption lines run (with fewer KDF iterations, for the suite's speed)")
    func readmeSnippet() throws {
        try TemporaryFile.withDatabasePath { path in
            var configuration = Database.Configuration()
            configuration.key = .passphrase("correct horse battery staple")
            configuration.cipher = .sqlcipher(version: 4, kdfIterations: 1000)
            do {
                let secret = try Database(path: path, configuration: configuration)
                try secret.execute("CREATE TABLE t (x)")
            }
            configuration.key = .passphrase("Correct horse battery staple")
            let error = try #require(throws: DatabaseError.self) {
                try Database(path: path, configuration: configuration)
            }
            #expect(error.reason == .wrongKeyOrNotADatabase)
        }
    }

    @Test("ciphers are found by the names a command line uses; RC4 and unknown names are not")
    func ciphersByName() {
        #expect(Cipher(named: "ChaCha20") == .chaCha20())
        #expect(Cipher(named: "sqlcipher") == .sqlcipher(version: 4))
        #expect(Cipher(named: "sqlcipher3") == .sqlcipher(version: 3))
        #expect(Cipher(named: "aes256cbc") == .aes256CBC())
        #expect(Cipher(named: "aegis")?.name == "aegis")
        #expect(Cipher(named: "rc4") == nil)
        #expect(Cipher(named: "rot13") == nil)
        #expect(Cipher.sqlcipher(version: 4, kdfIterations: 1000).description == "sqlcipher(legacy: 4, kdf_iter: 1000)")
        #expect(Cipher.default.description == "chacha20")
    }

    @Test("a key never appears in its description, and equal keys compare equal")
    func keyDescription() {
        let key = DatabaseKey.passphrase("hunter2")
        #expect(!key.description.contains("hunter2"))
        #expect(key == .passphrase(bytes: Array("hunter2".utf8)))
        #expect(key != .passphrase("hunter3"))
        #expect(TestKeys.raw == .raw(hex: String(repeating: "0123456789ABCDEF", count: 4)))
        #expect(TestKeys.raw.byteCount == 32)
        #expect(TestKeys.raw.description == "DatabaseKey(raw, 32 bytes)")
    }

    @Test("isPlainDatabase tells plain, empty, encrypted and non-database files apart without a key")
    func plainDatabaseDetection() throws {
        try TemporaryFile.withDatabasePath { path in
            _ = FileManager.default.createFile(atPath: path, contents: Data())
            #expect(try Database.isPlainDatabase(atPath: path))
            try FileManager.default.removeItem(atPath: path)
            do {
                let db = try Database(path: path)
                try db.execute("CREATE TABLE t (x)")
            }
            #expect(try Database.isPlainDatabase(atPath: path))
            let encrypted = path + ".enc"
            defer { try? FileManager.default.removeItem(atPath: encrypted) }
            do {
                // Header left in plain text, as SQLCipher does for iOS shared containers.
                let db = try openEncrypted(
                    encrypted, key: TestKeys.raw, cipher: .sqlcipher(version: 4, plaintextHeaderSize: 32))
                try db.execute("CREATE TABLE t (x)")
            }
            #expect(encryptionTestFileBytes(encrypted).starts(with: Data("SQLite format 3".utf8)))
            #expect(try !Database.isPlainDatabase(atPath: encrypted))
            _ = FileManager.default.createFile(atPath: encrypted, contents: Data(repeating: 65, count: 4096))
            #expect(try !Database.isPlainDatabase(atPath: encrypted))
            #expect(throws: (any Error).self) { try Database.isPlainDatabase(atPath: path + ".missing") }
        }
    }

    /// A file whose first 32 bytes are plain (SQLCipher's plaintext header) and the rest encrypted passed as plain
    /// whenever its encrypted byte 100 happened to be 13 or 5: 2 files in 256.
    @Test(
        "a plaintext header over encrypted bytes is not a plain database, whatever byte 100 holds", arguments: [5, 13])
    func plaintextHeaderWithLuckyByte(pageType: UInt8) throws {
        try TemporaryFile.withDatabasePath { path in
            var random = SeededRandom(seed: 42)
            var header = Array("SQLite format 3\u{0}".utf8)
            header += [0x10, 0x00, 0x01, 0x01, 0x00, 64, 32, 32]
            while header.count < 100 { header.append(UInt8.random(in: 1...255, using: &random)) }
            header.append(pageType)
            for _ in 0..<4000 { header.append(UInt8.random(in: 0...255, using: &random)) }
            _ = FileManager.default.createFile(atPath: path, contents: Data(header))
            let isPlain = try Database.isPlainDatabase(atPath: path)
            #expect(!isPlain)
        }
    }
}
