import CSQLiteToolkit
import Testing

@Suite("Encryption with sqltk_sqlite3_key and sqltk_sqlite3_rekey")
struct EncryptionTests {
    /// Text that must never appear on disk while the database is encrypted.
    static let marker = "MARKER-plaintext-7f3c9a1e"

    /// Creates a database at `path` keyed with `key` that holds `marker` in `notes`.
    static func createMarkerDatabase(atPath path: String, key: String) throws {
        let database = try TestDatabase(path: path)
        #expect(database.key(key) == SQLITE_OK)
        try database.execute("CREATE TABLE notes(body TEXT)")
        try database.rows("INSERT INTO notes VALUES (?1)", arguments: [marker])
        try database.close()
    }

    /// Opens the database at `path`, keyed with `key` unless it is nil.
    static func open(atPath path: String, key: String?) throws -> TestDatabase {
        let database = try TestDatabase(path: path)
        if let key {
            // sqlite3_key succeeds whatever the key: a wrong key shows up on first read.
            #expect(database.key(key) == SQLITE_OK)
        }
        return database
    }

    @Test("a keyed database is unreadable on disk, and only its key opens it")
    func keyRoundTrip() throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(atPath: path) }
        try Self.createMarkerDatabase(atPath: path, key: "correct horse")

        let bytes = try fileBytes(atPath: path)
        #expect(!bytes.hasSQLiteHeader)
        #expect(!bytes.contains(Self.marker))

        expectNotADatabase(try Self.open(atPath: path, key: nil))
        expectNotADatabase(try Self.open(atPath: path, key: "battery staple"))
        let database = try Self.open(atPath: path, key: "correct horse")
        #expect(try database.column("SELECT body FROM notes") == [Self.marker])
    }

    @Test("after a rekey only the new key opens the database")
    func rekeyToNewKey() throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(atPath: path) }
        try Self.createMarkerDatabase(atPath: path, key: "old key")

        let database = try Self.open(atPath: path, key: "old key")
        #expect(database.rekey("new key") == SQLITE_OK)
        try database.close()

        let bytes = try fileBytes(atPath: path)
        #expect(!bytes.hasSQLiteHeader)
        #expect(!bytes.contains(Self.marker))
        expectNotADatabase(try Self.open(atPath: path, key: "old key"))
        expectNotADatabase(try Self.open(atPath: path, key: nil))
        let reopened = try Self.open(atPath: path, key: "new key")
        #expect(try reopened.column("SELECT body FROM notes") == [Self.marker])
    }

    @Test("a rekey with no key decrypts the database into a plain one")
    func rekeyToNoKeyDecrypts() throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(atPath: path) }
        try Self.createMarkerDatabase(atPath: path, key: "secret")

        let database = try Self.open(atPath: path, key: "secret")
        #expect(database.rekey(nil) == SQLITE_OK)
        try database.close()

        let bytes = try fileBytes(atPath: path)
        #expect(bytes.hasSQLiteHeader)
        #expect(bytes.contains(Self.marker))
        let reopened = try Self.open(atPath: path, key: nil)
        #expect(try reopened.column("SELECT body FROM notes") == [Self.marker])
    }

    @Test("a key on a plain database does not encrypt it: the first read fails")
    func keyOnPlainDatabase() throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(atPath: path) }
        let plain = try TestDatabase(path: path)
        try plain.execute("CREATE TABLE notes(body TEXT)")
        try plain.close()

        // sqlite3_key only says how to read the file; sqlite3_rekey is what encrypts.
        expectNotADatabase(try Self.open(atPath: path, key: "secret"))
        #expect(try fileBytes(atPath: path).hasSQLiteHeader)
    }

    @Test("an in-memory database cannot be keyed")
    func inMemoryDatabaseRejectsKey() throws {
        let database = try TestDatabase()
        #expect(database.key("secret") == SQLITE_ERROR)
        #expect(
            String(cString: sqltk_sqlite3_errmsg(database.handle))
                == "Setting key not supported for in-memory or temporary databases."
        )
    }
}
