import Foundation
import SQLiteToolkit
import Testing

/// Every scheme the toolkit offers, with cheap key-derivation settings so the suite stays fast in debug builds.
let everyCipher: [(Cipher, DatabaseKey)] = [
    (.chaCha20(kdfIterations: 1000), .passphrase("chacha")),
    (.chaCha20(), TestKeys.raw),
    (.chaCha20(sqleetCompatible: true), TestKeys.raw),
    (.aes128CBC(), .passphrase("aes-128")),
    (.aes256CBC(kdfIterations: 1000), .passphrase("aes-256")),
    (.aegis(timeCost: 1, memoryCost: 64, parallelism: 1), .passphrase("aegis")),
    (.aegis(algorithm: .aegis256X2), TestKeys.raw),
    (.ascon128(kdfIterations: 1000), .passphrase("ascon")),
    (.ascon128(), TestKeys.raw),
    (.sqlcipher(version: 4, kdfIterations: 1000), .passphrase("sqlcipher 4")),
    (.sqlcipher(version: 4), TestKeys.raw),
    (.sqlcipher(version: 3, kdfIterations: 1000), .passphrase("sqlcipher 3")),
    (.sqlcipher(version: 2, kdfIterations: 1000), .passphrase("sqlcipher 2")),
    (.sqlcipher(version: 1, kdfIterations: 1000), .passphrase("sqlcipher 1")),
]

/// Creates a plain database at `path` with `rows` rows of recognizable text.
func makePlainDatabase(_ path: String, rows: Int = 50) throws {
    let db = try Database(path: path)
    try db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    try db.transaction { db in
        for id in 1...rows { try db.execute("INSERT INTO notes (body) VALUES (?)", "plaintext row \(id)") }
    }
}

@Suite("Encryption: rekey, encrypt, decrypt, attach, export")
struct RekeyTests {
    @Test(
        "every cipher: encrypt a plain file, reopen, change to another key and scheme, decrypt", arguments: everyCipher)
    func rekeyRoundTrip(cipher: Cipher, key: DatabaseKey) throws {
        try TemporaryFile.withDatabasePath { path in
            try makePlainDatabase(path)
            do {
                let db = try Database(path: path)
                try db.encrypt(with: key, cipher: cipher)
                #expect(db.isEncrypted)
                #expect(db.cipher == cipher)
            }
            #expect(!holdsText(encryptionTestFileBytes(path), "plaintext row"))
            #expect(try !Database.isPlainDatabase(atPath: path))
            do {
                let db = try openEncrypted(path, key: key, cipher: cipher)
                #expect(try db.queryValue("SELECT count(*) FROM notes", as: Int.self) == 50)
                #expect(try db.queryValue("PRAGMA integrity_check", as: String.self) == "ok")
                try db.changeKey(to: TestKeys.otherRaw, cipher: .chaCha20())
            }
            let wrong = try #require(throws: DatabaseError.self) { try openEncrypted(path, key: key, cipher: cipher) }
            #expect(wrong.reason == .wrongKeyOrNotADatabase)
            do {
                let db = try openEncrypted(path, key: TestKeys.otherRaw, cipher: .chaCha20())
                try db.changeKey(to: key, cipher: cipher)
            }
            do {
                let db = try openEncrypted(path, key: key, cipher: cipher)
                try db.decrypt()
                #expect(!db.isEncrypted)
            }
            #expect(try Database.isPlainDatabase(atPath: path))
            let plain = try Database(path: path)
            #expect(try plain.queryValue("SELECT body FROM notes WHERE id = 7", as: String.self) == "plaintext row 7")
        }
    }

    @Test("a plain WAL database is encrypted in place and stays in WAL; rekey and decrypt work in WAL")
    func walEncryptRekeyDecrypt() throws {
        try TemporaryFile.withDatabasePath { path in
            try makePlainDatabase(path)
            let db = try Database(path: path)
            try db.execute("PRAGMA journal_mode = WAL")
            try db.encrypt(with: TestKeys.raw)
            #expect(try db.queryValue("PRAGMA journal_mode", as: String.self) == "wal")
            try db.execute("INSERT INTO notes (body) VALUES ('plaintext row after encryption')")
            #expect(!holdsText(encryptionTestFileBytes(path), "plaintext row"))
            #expect(!holdsText(encryptionTestFileBytes(path + "-wal"), "plaintext row"))
            try db.changeKey(to: TestKeys.otherRaw)
            db.close()

            let reopened = try openEncrypted(path, key: TestKeys.otherRaw, cipher: .chaCha20())
            #expect(try reopened.queryValue("PRAGMA journal_mode", as: String.self) == "wal")
            #expect(try reopened.queryValue("SELECT count(*) FROM notes", as: Int.self) == 51)
            try reopened.decrypt()
            reopened.close()
            #expect(try Database.isPlainDatabase(atPath: path))
        }
    }

    @Test("encrypting a WAL database while another connection is open fails with busy and changes nothing")
    func walEncryptNeedsExclusiveAccess() throws {
        try TemporaryFile.withDatabasePath { path in
            try makePlainDatabase(path)
            let db = try Database(path: path)
            try db.execute("PRAGMA journal_mode = WAL")
            let other = try Database(path: path)
            #expect(try other.queryValue("SELECT count(*) FROM notes", as: Int.self) == 50)
            let error = try #require(throws: DatabaseError.self) { try db.encrypt(with: TestKeys.raw) }
            #expect(error.code == .busy)
            #expect(!db.isEncrypted)
            #expect(try db.queryValue("PRAGMA journal_mode", as: String.self) == "wal")
            other.close()
            db.close()
            #expect(try Database.isPlainDatabase(atPath: path))
        }
    }

    @Test("a rekey that fails midway leaves a file that opens with the old key and passes integrity_check")
    func failedRekeyKeepsOldKey() throws {
        try TemporaryFile.withDatabasePath { path in
            try makePlainDatabase(path, rows: 5000)
            do {
                let db = try Database(path: path)
                try db.encrypt(with: .passphrase("aes"), cipher: .aes128CBC())
            }
            let db = try openEncrypted(path, key: .passphrase("aes"), cipher: .aes128CBC())
            // A reader in another connection keeps its shared lock while the rekey rewrites every page: the
            // rewrite cannot commit (nor spill its pages to the file) and fails with SQLITE_BUSY.
            try db.setBusyMode(.immediateError)
            let reader = try openEncrypted(path, key: .passphrase("aes"), cipher: .aes128CBC())
            let rows = try reader.query("SELECT body FROM notes")
            _ = try rows.next()
            let error = try #require(throws: DatabaseError.self) {
                try db.changeKey(to: TestKeys.otherRaw, cipher: .chaCha20())
            }
            rows.close()
            reader.close()
            #expect(error.code == .busy)
            #expect(db.cipher == .aes128CBC())
            db.close()

            let reopened = try openEncrypted(path, key: .passphrase("aes"), cipher: .aes128CBC())
            #expect(try reopened.queryValue("PRAGMA integrity_check", as: String.self) == "ok")
            #expect(try reopened.queryValue("SELECT count(*) FROM notes", as: Int.self) == 5000)
        }
    }

    /// The environment variable that makes ``rekeyChildProcess()`` run, with the database path.
    static let childVariable = "SQLTK_REKEY_CHILD_DATABASE"

    @Test(
        "a process killed while it rekeys leaves a file that opens with one of the two keys and passes integrity_check",
        .enabled(
            if: FileManager.default.fileExists(atPath: "/proc/self/exe"),
            "re-runs the test binary through /proc/self/exe, which only Linux has"))
    func killedRekey() throws {
        try TemporaryFile.withDatabasePath { path in
            try makePlainDatabase(path, rows: 20000)
            do {
                let db = try Database(path: path)
                try db.encrypt(with: TestKeys.raw, cipher: .chaCha20())
            }
            let child = Process()
            child.executableURL = URL(
                fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            child.arguments = ["--testing-library", "swift-testing", "--filter", "rekeyChildProcess"]
            child.environment = ProcessInfo.processInfo.environment.merging([Self.childVariable: path]) { $1 }
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            try child.run()
            // Kill it once a rekey is writing (its rewritten copy exists), or after 20 seconds at most.
            let deadline = Date().addingTimeInterval(20)
            while child.isRunning, !TemporaryFile.exists(path + "-sqltk-rekey"), Date() < deadline {
                usleep(500)
            }
            let sawRekeyWriting = TemporaryFile.exists(path + "-sqltk-rekey")
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            // Killed while rewriting pages, not failed or finished on its own.
            #expect(sawRekeyWriting)
            #expect(child.terminationReason == .uncaughtSignal)

            var opened: Database?
            for key in [TestKeys.raw, TestKeys.otherRaw] where opened == nil {
                opened = try? openEncrypted(path, key: key, cipher: .chaCha20())
            }
            let db = try #require(opened, "the file opens with neither key")
            #expect(try db.queryValue("PRAGMA integrity_check", as: String.self) == "ok")
            #expect(try db.queryValue("SELECT count(*) FROM notes", as: Int.self) == 20000)
        }
    }

    @Test(
        "child process of the killed-rekey test: rekeys back and forth until killed",
        .enabled(
            if: ProcessInfo.processInfo.environment[RekeyTests.childVariable] != nil,
            "runs only as the child process the killed-rekey test starts"))
    func rekeyChildProcess() throws {
        let path = try #require(ProcessInfo.processInfo.environment[Self.childVariable])
        let db = try openEncrypted(path, key: TestKeys.raw, cipher: .chaCha20())
        try db.execute("PRAGMA journal_mode = DELETE")
        for round in 0..<200 {
            try db.changeKey(to: round % 2 == 0 ? TestKeys.otherRaw : TestKeys.raw)
        }
    }

    @Test("encrypt, changeKey, decrypt and setKey refuse the wrong state with a typed reason")
    func wrongStateIsRefused() throws {
        try TemporaryFile.withDatabasePath { path in
            let db = try Database(path: path)
            try db.execute("CREATE TABLE t (x)")
            #expect(throws: DatabaseError.self) { try db.changeKey(to: TestKeys.raw) }
            #expect((try? db.decrypt()) == nil)
            try db.transaction { db in
                let error = try #require(throws: DatabaseError.self) { try db.encrypt(with: TestKeys.raw) }
                #expect(error.reason == .rekeyInTransaction)
            }
            try db.encrypt(with: TestKeys.raw)
            let again = try #require(throws: DatabaseError.self) { try db.encrypt(with: TestKeys.raw) }
            #expect(again.reason == .alreadyEncrypted)
            let setKey = try #require(throws: DatabaseError.self) { try db.setKey(TestKeys.raw) }
            #expect(setKey.reason == .alreadyEncrypted)
            db.close()
            // Without its key the encrypted file is not a database to open; with the check off it opens plain.
            let openError = try #require(throws: DatabaseError.self) { try Database(path: path) }
            #expect(openError.reason == .notADatabase)
            var unchecked = Database.Configuration()
            unchecked.checksHeaderAtOpen = false
            let plainError = try #require(throws: DatabaseError.self) {
                try Database(path: path, configuration: unchecked).decrypt()
            }
            #expect(plainError.reason == .notEncrypted)
        }
    }

    @Test("FMDB's verbs: setKey after open, rekey to encrypt and to change the key")
    func fmdbVerbs() throws {
        try TemporaryFile.withDatabasePath { path in
            var configuration = Database.Configuration()
            configuration.cipher = TestKeys.fastChaCha20
            // The key comes after open, so the header check, which an encrypted file fails, is off.
            configuration.checksHeaderAtOpen = false
            do {
                let db = try Database(path: path, configuration: configuration)
                try db.execute("CREATE TABLE t (x)")
                try db.rekey("first")
                try db.rekey("second")
            }
            let db = try Database(path: path, configuration: configuration)
            let error = try #require(throws: DatabaseError.self) { try db.setKey("first") }
            #expect(error.reason == .wrongKeyOrNotADatabase)
            try db.setKey("second")
            #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 0)
        }
    }

    @Test("a refused setKey on a plain database leaves the connection reading it in plain")
    func setKeyOnPlainDatabase() throws {
        try TemporaryFile.withDatabasePath { path in
            try makePlainDatabase(path, rows: 3)
            let before = encryptionTestFileBytes(path)
            let db = try Database(path: path)
            let error = try #require(throws: DatabaseError.self) { try db.setKey(TestKeys.raw) }
            #expect(error.reason == .keyForPlainDatabase)
            #expect(!db.isEncrypted)
            #expect(try db.queryValue("SELECT count(*) FROM notes", as: Int.self) == 3)
            db.close()
            #expect(encryptionTestFileBytes(path) == before)
        }
    }

    @Test("an encrypted database attached with its own key joins with the main one, and detaches")
    func attachWithKey() throws {
        try TemporaryFile.withDatabasePath { path in
            let archive = path + ".archive"
            defer { try? FileManager.default.removeItem(atPath: archive) }
            do {
                let db = try openEncrypted(archive, key: TestKeys.otherRaw, cipher: .sqlcipher(version: 4))
                try db.executeScript("CREATE TABLE score (id INTEGER, points INT); INSERT INTO score VALUES (1, 42)")
            }
            let db = try openEncrypted(path, key: TestKeys.raw, cipher: .chaCha20())
            try db.executeScript("CREATE TABLE player (id INTEGER, name TEXT); INSERT INTO player VALUES (1, 'Ann')")

            let wrong = try #require(throws: DatabaseError.self) {
                try db.attach(path: archive, as: "archive", key: TestKeys.raw, cipher: .sqlcipher(version: 4))
            }
            #expect(wrong.reason == .wrongKeyOrNotADatabase)
            #expect(
                try db.query("SELECT name FROM pragma_database_list").map { try $0.value(at: 0) as String } == ["main"])

            try db.attach(path: archive, as: "archive", key: TestKeys.otherRaw, cipher: .sqlcipher(version: 4))
            let joined = try db.queryValue(
                "SELECT name || ':' || points FROM player JOIN archive.score USING (id)", as: String.self)
            #expect(joined == "Ann:42")
            try db.detach("archive")
            #expect(throws: DatabaseError.self) { try db.execute("SELECT * FROM archive.score") }

            // The main database's settings are untouched: a rekey still uses ChaCha20.
            try db.changeKey(to: TestKeys.otherRaw)
            db.close()
            let reopened = try openEncrypted(path, key: TestKeys.otherRaw, cipher: .chaCha20())
            #expect(try reopened.queryValue("SELECT name FROM player", as: String.self) == "Ann")
        }
    }

    @Test("a plain database attached without a key from an encrypted connection stays plain")
    func attachPlain() throws {
        try TemporaryFile.withDatabasePath { path in
            let plainPath = path + ".plain"
            defer { try? FileManager.default.removeItem(atPath: plainPath) }
            try makePlainDatabase(plainPath, rows: 3)
            let db = try openEncrypted(path, key: TestKeys.raw, cipher: .chaCha20())
            let keyed = try #require(throws: DatabaseError.self) {
                try db.attach(path: plainPath, as: "plain", key: TestKeys.raw)
            }
            #expect(keyed.reason == .keyForPlainDatabase)
            try db.attach(path: plainPath, as: "plain")
            try db.execute("INSERT INTO plain.notes (body) VALUES ('plaintext row 4')")
            try db.detach("plain")
            db.close()
            #expect(try Database.isPlainDatabase(atPath: plainPath))
            #expect(try Database(path: plainPath).queryValue("SELECT count(*) FROM notes", as: Int.self) == 4)
        }
    }

    @Test("export writes an encrypted copy of a plain database and a plain copy of an encrypted one")
    func export() throws {
        try TemporaryFile.withDatabasePath { path in
            let encryptedCopy = path + ".encrypted"
            let plainCopy = path + ".plain"
            defer {
                for file in [encryptedCopy, plainCopy] { try? FileManager.default.removeItem(atPath: file) }
            }
            try makePlainDatabase(path)
            let db = try Database(path: path)
            try db.export(to: encryptedCopy, key: TestKeys.raw, cipher: .sqlcipher(version: 4))
            #expect(!holdsText(encryptionTestFileBytes(encryptedCopy), "plaintext row"))
            #expect(try Database.isPlainDatabase(atPath: path))

            let encrypted = try openEncrypted(encryptedCopy, key: TestKeys.raw, cipher: .sqlcipher(version: 4))
            #expect(try encrypted.queryValue("SELECT count(*) FROM notes", as: Int.self) == 50)
            #expect(try encrypted.queryValue("PRAGMA integrity_check", as: String.self) == "ok")
            try encrypted.export(to: plainCopy, key: nil)
            #expect(try Database.isPlainDatabase(atPath: plainCopy))
            let plain = try Database(path: plainCopy)
            #expect(try plain.queryValue("SELECT body FROM notes WHERE id = 50", as: String.self) == "plaintext row 50")

            // Encrypted to encrypted, with another key and scheme; the source keeps its own.
            let rekeyedCopy = path + ".rekeyed"
            defer { try? FileManager.default.removeItem(atPath: rekeyedCopy) }
            try encrypted.export(to: rekeyedCopy, key: TestKeys.otherRaw, cipher: .chaCha20())
            let rekeyed = try openEncrypted(rekeyedCopy, key: TestKeys.otherRaw, cipher: .chaCha20())
            #expect(try rekeyed.queryValue("SELECT count(*) FROM notes", as: Int.self) == 50)
            #expect(encrypted.cipher == .sqlcipher(version: 4))
            #expect(try encrypted.queryValue("SELECT count(*) FROM notes", as: Int.self) == 50)

            let exists = try #require(throws: DatabaseError.self) { try db.export(to: plainCopy, key: nil) }
            #expect(exists.code == .cantopen)
        }
    }

    @Test("a flipped byte in an encrypted page is reported as corruption")
    func tamperIsDetected() throws {
        try TemporaryFile.withDatabasePath { path in
            try makePlainDatabase(path, rows: 200)
            do {
                let db = try Database(path: path)
                try db.encrypt(with: TestKeys.raw, cipher: .chaCha20())
            }
            var bytes = encryptionTestFileBytes(path)
            bytes[4096 + 100] ^= 0x01  // page 2, a page of the notes table
            try bytes.write(to: URL(fileURLWithPath: path))
            let db = try openEncrypted(path, key: TestKeys.raw, cipher: .chaCha20())
            let error = try #require(throws: DatabaseError.self) {
                try db.queryValue("SELECT count(*) FROM notes WHERE body LIKE 'x%'", as: Int.self)
            }
            #expect(error.code == .corrupt)
        }
    }

    @Test("two connections to one encrypted WAL file read and write concurrently")
    func concurrentConnections() throws {
        try TemporaryFile.withDatabasePath { path in
            do {
                let db = try openEncrypted(path, key: TestKeys.raw, cipher: .chaCha20())
                try db.execute("PRAGMA journal_mode = WAL")
                try db.execute("CREATE TABLE counter (n INTEGER)")
            }
            let writers = 2
            let inserts = 50
            DispatchQueue.concurrentPerform(iterations: writers) { _ in
                do {
                    let db = try openEncrypted(path, key: TestKeys.raw, cipher: .chaCha20())
                    for n in 0..<inserts {
                        try db.execute("INSERT INTO counter VALUES (?)", n)
                        _ = try db.queryValue("SELECT count(*) FROM counter", as: Int.self)
                    }
                } catch {
                    Issue.record(error)
                }
            }
            let db = try openEncrypted(path, key: TestKeys.raw, cipher: .chaCha20())
            #expect(try db.queryValue("SELECT count(*) FROM counter", as: Int.self) == writers * inserts)
            #expect(try db.queryValue("PRAGMA integrity_check", as: String.self) == "ok")
        }
    }
}
