import CSQLiteToolkit
import Testing

@Suite("SQLCipher-compatible encryption")
struct SQLCipherCompatibilityTests {
    /// Opens `path` set up for SQLCipher 4 as sqlite3mc documents it (cipher first,
    /// then legacy, then the key) and checks the value each pragma returns.
    /// The key goes through `sqltk_sqlite3_key`; the other test uses `PRAGMA key`.
    static func openAsSQLCipher4(atPath path: String, key: String) throws -> TestDatabase {
        let database = try TestDatabase(path: path)
        #expect(try database.rows("PRAGMA cipher = 'sqlcipher'") == [["sqlcipher"]])
        #expect(try database.rows("PRAGMA legacy = 4") == [["4"]])
        // legacy=4 loads SQLCipher 4's defaults, such as 256,000 PBKDF2 iterations.
        #expect(try database.rows("PRAGMA kdf_iter") == [["256000"]])
        #expect(database.key(key) == SQLITE_OK)
        return database
    }

    @Test("cipher='sqlcipher' then legacy=4 then a key round-trips an encrypted file")
    func sqlcipher4RoundTrip() throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(atPath: path) }
        let database = try Self.openAsSQLCipher4(atPath: path, key: "sqlcipher secret")
        try database.execute("CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES ('hidden in SQLCipher 4')")
        try database.close()

        let bytes = try fileBytes(atPath: path)
        #expect(!bytes.hasSQLiteHeader)
        #expect(!bytes.contains("hidden in SQLCipher 4"))
        let reopened = try Self.openAsSQLCipher4(atPath: path, key: "sqlcipher secret")
        #expect(try reopened.column("SELECT body FROM notes") == ["hidden in SQLCipher 4"])
        // The same key with sqlite3mc's default cipher (ChaCha20) cannot read it,
        // nor can the right scheme with a wrong key.
        let defaultCipher = try TestDatabase(path: path)
        #expect(defaultCipher.key("sqlcipher secret") == SQLITE_OK)
        expectNotADatabase(defaultCipher)
        expectNotADatabase(try Self.openAsSQLCipher4(atPath: path, key: "wrong secret"))
    }

    @Test("legacy=4 before cipher='sqlcipher' is ignored: it returns 0 and the file is not SQLCipher 4")
    func legacyBeforeCipherIsIgnored() throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(atPath: path) }
        let database = try TestDatabase(path: path)
        // Before cipher='sqlcipher', legacy configures the default cipher, ChaCha20,
        // whose legacy setting only goes up to 1. Out of range, 4 is dropped
        // without an error: the pragma succeeds and returns the value in force, 0.
        #expect(try database.rows("PRAGMA cipher") == [["chacha20"]])
        #expect(sqltk_sqlite3mc_config_cipher(database.handle, "chacha20", "max:legacy", -1) == 1)
        #expect(try database.rows("PRAGMA legacy = 4") == [["0"]])
        #expect(try database.rows("PRAGMA cipher = 'sqlcipher'") == [["sqlcipher"]])
        #expect(try database.rows("PRAGMA legacy") == [["0"]])
        #expect(try database.rows("PRAGMA key = 'sqlcipher secret'") == [["ok"]])
        try database.execute("CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES ('wrong order')")
        try database.close()

        // The file is encrypted, but not in the SQLCipher 4 layout that was asked for:
        // the right SQLCipher 4 setup cannot read it, sqlcipher with legacy 0 can.
        #expect(!(try fileBytes(atPath: path).hasSQLiteHeader))
        expectNotADatabase(try Self.openAsSQLCipher4(atPath: path, key: "sqlcipher secret"))
        let legacyZero = try TestDatabase(path: path)
        #expect(try legacyZero.rows("PRAGMA cipher = 'sqlcipher'") == [["sqlcipher"]])
        #expect(try legacyZero.rows("PRAGMA key = 'sqlcipher secret'") == [["ok"]])
        #expect(try legacyZero.column("SELECT body FROM notes") == ["wrong order"])
    }
}
