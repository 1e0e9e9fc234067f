import SQLiteBindings
import Testing

@Suite("Encryption through the codec wrappers")
struct CodecTests {
    /// Opens `path`, keyed with `key` unless it is nil.
    private func open(_ path: TemporaryDatabasePath, key: String?) throws -> TestConnection {
        let connection = try TestConnection(path: path.path)
        if let key {
            let bytes = Array(key.utf8)
            // sqlite3_key succeeds whatever the key: a wrong key shows up on first read.
            #expect(connection.handle.key(bytes, count: Int32(bytes.count)) == .ok)
        }
        return connection
    }

    /// The result of the first step of a read of the schema.
    private func firstRead(_ connection: TestConnection) -> ResultCode {
        let (code, statement) = connection.handle.prepare(sql: "SELECT count(*) FROM sqlite_schema", flags: [])
        guard code == .ok, let statement else { return code }
        defer { _ = statement.finalize() }
        return statement.step()
    }

    @Test("a keyed database opens only with its key; a wrong key gives .notadb on first read")
    func keyAndRekey() throws {
        let path = TemporaryDatabasePath()
        defer { path.remove() }
        do {
            let connection = try open(path, key: "correct horse")
            try connection.execute("CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES ('secret')")
        }
        #expect(firstRead(try open(path, key: nil)) == .notadb)
        #expect(firstRead(try open(path, key: "battery staple")) == .notadb)
        do {
            let connection = try open(path, key: "correct horse")
            #expect(try connection.text("SELECT body FROM notes") == "secret")
            let newKey = Array("staple".utf8)
            #expect(connection.handle.rekey(newKey, count: Int32(newKey.count)) == .ok)
        }
        #expect(firstRead(try open(path, key: "correct horse")) == .notadb)
        do {
            let connection = try TestConnection(path: path.path)
            let key = Array("staple".utf8)
            #expect(connection.handle.key(schema: "main", key, count: Int32(key.count)) == .ok)
            #expect(try connection.text("SELECT body FROM notes") == "secret")
            // An empty key decrypts the database.
            #expect(connection.handle.rekey(schema: nil, nil, count: 0) == .ok)
        }
        let plain = try open(path, key: nil)
        #expect(try plain.text("SELECT body FROM notes") == "secret")
    }

    @Test("rekey encrypts a plain database; key on a plain database makes it unreadable instead")
    func rekeyEncryptsPlainDatabase() throws {
        let path = TemporaryDatabasePath()
        defer { path.remove() }
        do {
            let connection = try open(path, key: nil)
            try connection.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        }
        #expect(firstRead(try open(path, key: "not applied")) == .notadb)
        do {
            let connection = try open(path, key: nil)
            #expect(firstRead(connection) == .row)
            let key = Array("now encrypted".utf8)
            #expect(connection.handle.rekey(key, count: Int32(key.count)) == .ok)
        }
        #expect(firstRead(try open(path, key: nil)) == .notadb)
        #expect(firstRead(try open(path, key: "now encrypted")) == .row)
    }

    @Test("the codec reports its ciphers and their parameters")
    func ciphers() throws {
        #expect(SQLiteLibrary.multipleCiphersVersion()?.hasPrefix("SQLite3 Multiple Ciphers ") == true)
        let count = SQLiteLibrary.cipherCount()
        #expect(count >= 7)
        var names: [String] = []
        for index in 1...count {
            names.append(SQLiteLibrary.cipherName(index) ?? "")
        }
        #expect(names.contains("chacha20"))
        #expect(names.contains("sqlcipher"))
        let chacha = SQLiteLibrary.cipherIndex("chacha20")
        #expect(chacha >= 1)
        #expect(SQLiteLibrary.cipherIndex("rot13") == -1)

        var buffer = [CChar](repeating: 0, count: 32)
        #expect(SQLiteLibrary.cipherName(chacha, into: &buffer, capacity: 32) == 1)
        #expect(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) == "chacha20")
        #expect(SQLiteLibrary.cipherName(chacha, into: &buffer, capacity: 3) == -9)  // "chacha20" and its NUL
        #expect(SQLiteLibrary.cipherName(count + 1, into: &buffer, capacity: 32) == 0)

        #expect(ConnectionHandle.cipherDefault("cipher") == chacha)
        #expect(ConnectionHandle.cipherDefault("no_such_parameter") == -1)
        #expect(ConnectionHandle.cipherDefault("sqlcipher", "legacy") >= 0)
    }

    @Test("a connection's cipher and cipher parameters are set and read back")
    func cipherConfiguration() throws {
        let connection = try TestConnection()
        let sqlcipher = SQLiteLibrary.cipherIndex("sqlcipher")
        #expect(connection.handle.configureCipher("cipher", sqlcipher) == sqlcipher)
        #expect(connection.handle.configureCipher("cipher", -1) == sqlcipher)
        #expect(connection.handle.configureCipher("sqlcipher", "legacy", 4) == 4)
        #expect(connection.handle.configureCipher("sqlcipher", "legacy", -1) == 4)
        #expect(connection.handle.configureCipher("sqlcipher", "no_such_parameter", -1) == -1)
        #expect(connection.handle.configureCipher("rot13", "legacy", -1) == -1)
    }
}
