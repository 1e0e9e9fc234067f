import SQLiteBindings

/// Encryption of the main database and of attached ones, through the codec built into this SQLite
/// (SQLite3 Multiple Ciphers): no OpenSSL or CommonCrypto, on every platform SwiftPM builds for.
///
/// ```swift
/// var configuration = Database.Configuration()
/// configuration.key = .passphrase("correct horse battery staple")
/// let db = try Database(path: path, configuration: configuration)   // throws at once on a wrong key
/// try db.changeKey(to: .raw(newKeyBytes))                            // rekey in place
/// ```
///
/// See <doc:Encryption> for what encryption protects, key hygiene and SQLCipher migration.
extension Database {
    // MARK: - Keys at open

    /// Applies the cipher then the key to `main` before anything reads the file, then reads the schema so a wrong
    /// key fails here.
    func applyKeyAtOpen(_ key: DatabaseKey, cipher: Cipher) throws {
        let connection = try connection()
        if let error = keyForPlainDatabaseError(schema: "main") { throw error }
        try applyCipher(cipher, to: connection)
        try checkRawKey(key, cipher: cipher)
        let applyKey = {
            let code = try key.withCodecBytes { bytes in
                connection.key(bytes.baseAddress, count: Int32(bytes.count))
            }
            guard code == .ok else { throw self.error(code, sql: nil) }
        }
        try applyKey()
        do {
            try verifyKey(schema: "main", cipher: cipher)
        } catch let error as DatabaseError where error.reason == .wrongKeyOrNotADatabase {
            // The codec derives the key from the salt it reads at the start of the file, and a read that fails
            // there (an I/O error) leaves it with a key derived from no salt: the right key then looks wrong.
            // Derive it once more; a wrong key fails again, a failing disk fails with its I/O error. The codec
            // forgets the cipher settings once a key used them: set them again first.
            try applyCipher(cipher, to: connection)
            try applyKey()
            try verifyKey(schema: "main", cipher: cipher)
        }
        mainCipher = cipher
    }

    /// Throws ``DatabaseError/Reason/keyInURI`` when `path` is a `file:` URI with a `key`, `hexkey` or `textkey`
    /// parameter (names compared as SQLite does, after percent-decoding), naming the parameter, never its value.
    ///
    /// SQLite passes such a key to the codec at open, out of the toolkit's sight: the connection would report
    /// itself plain (``isEncrypted``), ``decrypt()`` would refuse, and every reopen of the same URI (after a key
    /// change, ``DatabaseQueue/reopen()``, a pool's new reader) would apply the old key again.
    static func refuseURIKey(in path: String) throws {
        guard path.prefix(5).lowercased() == "file:", let question = path.firstIndex(of: "?") else { return }
        let query = path[path.index(after: question)...].prefix { $0 != "#" }
        for parameter in query.split(separator: "&") {
            let name = percentDecoded(parameter.prefix { $0 != "=" }).lowercased()
            guard name == "key" || name == "hexkey" || name == "textkey" else { continue }
            throw DatabaseError.misuse(
                "the file: URI gives the database's key (its \(name) parameter), which the toolkit cannot track or "
                    + "carry over a reopen: give the key in Configuration.key and the cipher in Configuration.cipher; "
                    + "nothing was opened",
                reason: .keyInURI)
        }
    }

    /// `text` with its `%XX` escapes decoded; a malformed escape is kept as it is.
    private static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), let first = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex),
                let second = utf8.index(first, offsetBy: 1, limitedBy: utf8.endIndex), second < utf8.endIndex,
                let value = UInt8(String(decoding: [utf8[first], utf8[second]], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index = utf8.index(after: second)
                continue
            }
            bytes.append(byte)
            index = utf8.index(after: index)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Throws ``DatabaseError/Reason/keyForPlainDatabase`` when `path` (a path or a `file:` URI) names a non-empty
    /// plain database file, before a key is attached to it.
    func refuseKeyForPlainFile(atPath path: String) throws {
        let filePath = path.hasPrefix("file:") ? Self.filePath(ofURI: path) : path
        guard let filePath, let header = try? Database.header(atPath: filePath), !header.isEmpty,
            Database.isPlainHeader(header)
        else { return }
        throw DatabaseError(
            extendedCode: .notadb, message: "\(path) is not encrypted: use it without a key",
            reason: .keyForPlainDatabase)
    }

    /// The file a `file:` URI names (`file:/a/b.db?mode=rw`, `file://localhost/a/b.db`, `file:b.db`), its percent
    /// escapes decoded; `nil` for an in-memory database (`mode=memory`), another host or a malformed escape.
    static func filePath(ofURI uri: String) -> String? {
        guard uri.hasPrefix("file:") else { return nil }
        var rest = uri.utf8.dropFirst(5)
        let query = rest.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
        let parameters = query.map { String(rest[$0...]) ?? "" } ?? ""
        if let query { rest = rest[..<query] }
        if parameters.contains("mode=memory") { return nil }
        if rest.starts(with: "//".utf8) {
            let authority = rest.dropFirst(2)
            let end = authority.firstIndex(of: UInt8(ascii: "/")) ?? authority.endIndex
            let host = String(authority[..<end]) ?? ""
            guard host.isEmpty || host == "localhost" else { return nil }
            rest = authority[end...]
        }
        var bytes: [UInt8] = []
        var index = rest.startIndex
        while index < rest.endIndex {
            let byte = rest[index]
            index = rest.index(after: index)
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard rest.distance(from: index, to: rest.endIndex) >= 2,
                let value = UInt8(String(rest[index..<rest.index(index, offsetBy: 2)]) ?? "", radix: 16)
            else { return nil }
            bytes.append(value)
            index = rest.index(index, offsetBy: 2)
        }
        guard !bytes.isEmpty, !bytes.contains(0) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The error for a key given to a plain database, or `nil`. Checked before the codec sees the key: a codec
    /// once attached to a plain file leaves the connection unable to read it.
    private func keyForPlainDatabaseError(schema: String) -> DatabaseError? {
        // Through the connection's own file: a descriptor of ours would release the process's locks on it at close.
        guard let header = try? connection().filePrefix(schema: schema, count: 101), !header.isEmpty,
            Database.isPlainHeader(header)
        else { return nil }
        return DatabaseError(
            extendedCode: .notadb,
            message: "the database is not encrypted: open it without a key, then call encrypt(with:cipher:)",
            reason: .keyForPlainDatabase)
    }

    /// Reads the schema of `schema`; maps `SQLITE_NOTADB` to a typed reason.
    func verifyKey(schema: String, cipher: Cipher) throws {
        let connection = try connection()
        let sql = "SELECT count(*) FROM \(try Database.schemaTable(schema))"
        let (code, statement) = connection.prepare(sql: sql, flags: [])
        var stepCode = code
        if code == .ok, let statement {
            stepCode = statement.step()
            _ = statement.finalize()
        }
        guard stepCode != .row, stepCode != .ok else { return }
        guard stepCode.primary == .notadb else { throw error(stepCode, sql: sql) }
        // `main` was checked before its key was applied (``applyKeyAtOpen(_:cipher:)``): once a key is applied,
        // SQLite3 Multiple Ciphers' file layer decrypts what is read through it, and a database whose key is right
        // (a read that failed for another reason) would look plain.
        if schema != "main", let error = keyForPlainDatabaseError(schema: schema) { throw error }
        throw DatabaseError(
            extendedCode: .notadb,
            message: "wrong key or cipher (\(cipher.name)), or the file is not a database",
            reason: .wrongKeyOrNotADatabase)
    }

    /// Sets the key of the main database of a connection opened without one, SQLCipher and FMDB's `setKey:`, and
    /// checks it by reading the schema. Call it right after opening, before any other statement.
    ///
    /// Prefer ``Configuration/key``, which makes the wrong order impossible.
    ///
    /// - Parameters:
    ///   - key: the key.
    ///   - cipher: the scheme; `nil` uses the connection's ``Configuration/cipher``.
    /// - Throws: ``DatabaseError`` with ``DatabaseError/Reason/wrongKeyOrNotADatabase`` for a wrong key,
    ///   ``DatabaseError/Reason/keyForPlainDatabase`` when the file is not encrypted,
    ///   ``DatabaseError/Reason/alreadyEncrypted`` when this connection already has a key.
    ///
    /// Related SQLite documentation: <https://utelle.github.io/SQLite3MultipleCiphers/docs/configuration/config_capi/>
    public func setKey(_ key: DatabaseKey, cipher: Cipher? = nil) throws {
        guard mainCipher == nil else {
            throw DatabaseError.misuse(
                "the database already has a key; use changeKey(to:cipher:) to change it", reason: .alreadyEncrypted)
        }
        try applyKeyAtOpen(key, cipher: cipher ?? configuration.cipher)
    }

    /// Sets the key as a passphrase (its UTF-8 bytes): FMDB's `setKey:`. See ``setKey(_:cipher:)``.
    public func setKey(_ passphrase: String) throws {
        try setKey(.passphrase(passphrase))
    }
}
