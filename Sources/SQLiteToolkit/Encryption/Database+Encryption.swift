import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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

    /// Throws ``DatabaseError/Reason/keyForPlainDatabase`` when `path` names a non-empty plain database file, before
    /// a key is attached to it (`file:` URIs are left to the codec).
    func refuseKeyForPlainFile(atPath path: String) throws {
        guard !path.hasPrefix("file:"), let header = try? Database.header(atPath: path), !header.isEmpty,
            Database.isPlainHeader(header)
        else { return }
        throw DatabaseError(
            extendedCode: .notadb, message: "\(path) is not encrypted: use it without a key",
            reason: .keyForPlainDatabase)
    }

    /// The error for a key given to a plain database, or `nil`. Checked before the codec sees the key: a codec
    /// once attached to a plain file leaves the connection unable to read it.
    private func keyForPlainDatabaseError(schema: String) -> DatabaseError? {
        guard let filename = try? connection().filename(schema: schema), !filename.isEmpty,
            let header = try? Database.header(atPath: filename), !header.isEmpty, Database.isPlainHeader(header)
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
        if let error = keyForPlainDatabaseError(schema: schema) { throw error }
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

    // MARK: - Changing the key

    /// Whether the main database is encrypted, as this connection opened or left it.
    public var isEncrypted: Bool { mainCipher != nil }

    /// The cipher of the main database, or `nil` when it is plain.
    public var cipher: Cipher? { mainCipher }

    /// Re-encrypts the encrypted main database with a new key, and with a new scheme when `cipher` is given (for
    /// example ChaCha20 to SQLCipher 4). Works in WAL mode.
    ///
    /// For a database file, the change is atomic whatever happens (an error, a full disk, a crash, a power cut):
    /// the database is copied with the new key into a new file beside it (`<path>-sqltk-rekey`), which is synced
    /// and renamed over the original, and the connection is reopened on it. The file is the old one, whole, with
    /// the old key, or the new one, whole, with the new key; never neither. It needs free disk space for a copy
    /// and no other connection to the file, in this process or another (see <doc:Encryption>). In-memory and
    /// temporary databases are re-encrypted in place.
    ///
    /// - Throws: ``DatabaseError/Reason/notEncrypted`` on a plain database (use ``encrypt(with:cipher:)``),
    ///   ``DatabaseError/Reason/rekeyInTransaction`` inside a transaction,
    ///   ``DatabaseError/Reason/keyChangeNeedsSoleAccess`` when another connection uses the file, and
    ///   ``DatabaseError/Reason/keyChangeLosesConnectionState`` when reopening would lose what the connection
    ///   holds; in each case nothing changed.
    ///
    /// Related SQLite documentation: <https://utelle.github.io/SQLite3MultipleCiphers/docs/configuration/config_capi/>
    public func changeKey(to key: DatabaseKey, cipher: Cipher? = nil) throws {
        guard let current = mainCipher else {
            throw DatabaseError.misuse(
                "the database is not encrypted; use encrypt(with:cipher:)", reason: .notEncrypted)
        }
        if let path = try mainFilePath() {
            try rewriteAtomically(path: path, key: key, cipher: cipher ?? current, operation: "changeKey(to:cipher:)")
        } else {
            try rekey(to: key, cipher: cipher ?? current)
        }
    }

    /// Encrypts the plain main database. For a database file, the change is atomic, as ``changeKey(to:cipher:)``
    /// describes: interrupted, the file stays plain; a WAL database stays in WAL. In-memory and temporary
    /// databases are encrypted in place.
    ///
    /// A database that Litestream replicates is refused: Litestream reads the file with an SQLite of its own, which
    /// cannot read an encrypted file (<doc:ReplicatingWithLitestream>).
    ///
    /// - Throws: ``DatabaseError/Reason/alreadyEncrypted`` on an encrypted database (use
    ///   ``changeKey(to:cipher:)``), ``DatabaseError/Reason/rekeyInTransaction`` inside a transaction,
    ///   ``DatabaseError/Reason/encryptingReplicatedDatabase`` when the database holds Litestream's table
    ///   `_litestream_seq`, and the errors of ``changeKey(to:cipher:)``.
    ///
    /// Related SQLite documentation: <https://utelle.github.io/SQLite3MultipleCiphers/docs/configuration/config_capi/>
    public func encrypt(with key: DatabaseKey, cipher: Cipher = .default) throws {
        guard mainCipher == nil else {
            throw DatabaseError.misuse(
                "the database is already encrypted; use changeKey(to:cipher:)", reason: .alreadyEncrypted)
        }
        try checkNoTransaction()
        // Litestream creates `_litestream_seq` the first time it opens a database, and never removes it.
        if try tableExists("_litestream_seq") {
            throw DatabaseError.misuse(
                "Litestream replicates this database (it holds the table _litestream_seq), and Litestream cannot read "
                    + "an encrypted file: replication would stop; to keep an encrypted copy, use export(to:key:) or "
                    + "a changeset",
                reason: .encryptingReplicatedDatabase)
        }
        if let path = try mainFilePath() {
            try checkRawKey(key, cipher: cipher)
            try matchPageSize(of: cipher)
            try rewriteAtomically(path: path, key: key, cipher: cipher, operation: "encrypt(with:cipher:)")
            return
        }
        let wasWAL = try journalMode() == "wal"
        if wasWAL { try setJournalMode("delete") }
        do {
            try matchPageSize(of: cipher)
            try rekey(to: key, cipher: cipher)
        } catch {
            if wasWAL { try? setJournalMode("wal") }
            throw error
        }
        if wasWAL { try setJournalMode("wal") }
    }

    /// Decrypts the encrypted main database, leaving a plain SQLite file. For a database file, the change is
    /// atomic, as ``changeKey(to:cipher:)`` describes: interrupted, the file keeps its key. Works in WAL mode.
    ///
    /// - Throws: ``DatabaseError/Reason/notEncrypted`` on a plain database,
    ///   ``DatabaseError/Reason/rekeyInTransaction`` inside a transaction, and the errors of
    ///   ``changeKey(to:cipher:)``.
    ///
    /// Related SQLite documentation: <https://utelle.github.io/SQLite3MultipleCiphers/docs/configuration/config_capi/>
    public func decrypt() throws {
        guard mainCipher != nil else {
            throw DatabaseError.misuse("the database is not encrypted", reason: .notEncrypted)
        }
        try checkNoTransaction()
        if let path = try mainFilePath() {
            try rewriteAtomically(path: path, key: nil, cipher: .default, operation: "decrypt()")
            return
        }
        let code = try connection().rekey(nil, count: 0)
        guard code == .ok else { throw keyChangeError(code, operation: "decrypt()") }
        mainCipher = nil
    }

    /// SQLCipher and FMDB's `rekey:`: changes the key of an encrypted database, or encrypts a plain one with the
    /// connection's ``Configuration/cipher``.
    public func rekey(_ key: DatabaseKey) throws {
        if mainCipher == nil {
            try encrypt(with: key, cipher: configuration.cipher)
        } else {
            try changeKey(to: key)
        }
    }

    /// FMDB's `rekey:` with a passphrase (its UTF-8 bytes). See ``rekey(_:)-(DatabaseKey)``.
    public func rekey(_ passphrase: String) throws {
        try rekey(.passphrase(passphrase))
    }

    private func rekey(to key: DatabaseKey, cipher: Cipher) throws {
        let connection = try connection()
        try checkNoTransaction()
        do {
            try applyCipher(cipher, to: connection)
            try checkRawKey(key, cipher: cipher)
            let code = try key.withCodecBytes { bytes in
                connection.rekey(bytes.baseAddress, count: Int32(bytes.count))
            }
            guard code == .ok else { throw keyChangeError(code, operation: "rekey") }
        } catch {
            // Put back the settings of the current key, which the next attach or rekey would otherwise inherit.
            try? applyCipher(mainCipher ?? .default, to: connection)
            throw error
        }
        mainCipher = cipher
    }

    /// The error of a key change the codec refused or failed: the codec returns a code without setting the
    /// connection's message, which would read "not an error".
    private func keyChangeError(_ code: ResultCode, operation: String) -> DatabaseError {
        let failure = error(code, sql: nil)
        return DatabaseError(
            extendedCode: failure.extendedCode,
            message: "\(operation) failed: \(SQLiteLibrary.errorString(failure.extendedCode) ?? "\(code)")",
            reason: failure.reason)
    }

    // MARK: - Atomic key changes

    /// The path of the main database file, or `nil` for an in-memory or temporary database.
    private func mainFilePath() throws -> String? {
        guard let filename = try connection().filename(schema: "main"), !filename.isEmpty else { return nil }
        return filename
    }

    /// Writes the main database into a new file beside it with `key` and `cipher` (plain when `key` is `nil`),
    /// syncs it, renames it over the original while this connection keeps every other one out, and reopens the
    /// connection on it. Before the rename nothing changed; after it, the new file is whole and synced.
    private func rewriteAtomically(path: String, key: DatabaseKey?, cipher: Cipher, operation: String) throws {
        try checkNoTransaction()
        try checkReopenable(operation: operation)
        if let key { try checkRawKey(key, cipher: cipher) }
        let copyPath = path + "-sqltk-rekey"
        // A copy left by an interrupted key change is never the database: the rename is the commit.
        removeFile(atPath: copyPath)
        let isWAL = try journalMode() == "wal"
        try takeExclusiveAccess(isWAL: isWAL, operation: operation)
        do {
            try export(to: copyPath, key: key, cipher: cipher)
            try finishCopy(atPath: copyPath, key: key, cipher: cipher, isWAL: isWAL)
            try replaceFile(atPath: path, withFileAt: copyPath, operation: operation)
        } catch {
            removeFile(atPath: copyPath)
            releaseExclusiveAccess()
            try? applyCipher(mainCipher ?? .default, to: connection())
            throw error
        }
        // The file is the new one from here: a failure to reopen leaves the connection closed, not the file.
        mainCipher = nil
        try reopenConnection()
        guard let key else { return }
        do {
            try applyKeyAtOpen(key, cipher: cipher)
        } catch {
            close()
            throw error
        }
    }

    /// Refuses a key change on a connection whose state a reopen would lose, before anything changes.
    private func checkReopenable(operation: String) throws {
        func refuse(_ what: String) -> DatabaseError {
            DatabaseError.misuse(
                "\(operation) reopens the connection, which would lose \(what): run it on a connection that has "
                    + "none (for example right after opening)",
                reason: .keyChangeLosesConnectionState)
        }
        if runningCallbacks.isRunningCallback { throw refuse("the callback that is running") }
        if openCursorCount > 0 { throw refuse("its open cursors") }
        if !liveSessions.isEmpty { throw refuse("its sessions") }
        if runningCallbacks.hasTraceOrProgressHandler { throw refuse("its trace or progress handler") }
        if observation.isActive { throw refuse("its transaction observers") }
        let schemas = try query("PRAGMA database_list").map { try $0.value(at: 1) as String }
        if schemas.contains(where: { $0 != "main" && $0 != "temp" }) { throw refuse("its attached databases") }
        if try queryValue("SELECT count(*) FROM temp.sqlite_schema", as: Int.self) != 0 {
            throw refuse("its temporary tables")
        }
        // What a new connection has without being asked: the built-in functions and collations, and the codec's.
        let definitions =
            "SELECT (SELECT count(*) FROM pragma_function_list WHERE builtin = 0) * 1000000 "
            + "+ (SELECT count(*) FROM pragma_collation_list)"
        let fresh = try Database().queryValue(definitions, as: Int.self)
        if try queryValue(definitions, as: Int.self) != fresh { throw refuse("its custom functions or collations") }
    }

    /// Keeps every other connection out of the file until this one reopens (`locking_mode=EXCLUSIVE` and an
    /// exclusive transaction); in WAL mode, first moves every frame into the database and empties the WAL, so the
    /// file alone holds the database and a WAL left beside it can never be replayed into the new file.
    private func takeExclusiveAccess(isWAL: Bool, operation: String) throws {
        do {
            try execute("PRAGMA locking_mode = EXCLUSIVE")
            if isWAL {
                let busy = try query("PRAGMA wal_checkpoint(TRUNCATE)").map { try $0.value(at: 0) as Int }.first
                if busy != 0 {
                    throw DatabaseError(extendedCode: .busy, message: "the WAL could not be emptied")
                }
            }
            try execute("BEGIN EXCLUSIVE")
            try execute("COMMIT")
        } catch let error as DatabaseError where error.code == .busy || error.code == .locked {
            releaseExclusiveAccess()
            throw DatabaseError(
                extendedCode: .busy,
                message: "\(operation) needs the only connection to the database: close the others first",
                reason: .keyChangeNeedsSoleAccess)
        } catch {
            releaseExclusiveAccess()
            throw error
        }
    }

    /// Lets other connections in again after a key change that did not happen.
    private func releaseExclusiveAccess() {
        if isInTransaction { try? transactionStatement(.rollback).run() }
        try? execute("PRAGMA locking_mode = NORMAL")
        // The lock is released at the end of the next access.
        _ = try? queryValue("SELECT count(*) FROM sqlite_schema", as: Int.self)
    }

    /// Puts the copy in WAL mode when the original was (the mode is recorded in the file), then makes it durable.
    private func finishCopy(atPath copyPath: String, key: DatabaseKey?, cipher: Cipher, isWAL: Bool) throws {
        if isWAL {
            var copyConfiguration = Database.Configuration()
            copyConfiguration.vfs = configuration.vfs
            copyConfiguration.busyMode = .immediateError
            copyConfiguration.key = key
            copyConfiguration.cipher = cipher
            let copy = try Database(path: copyPath, configuration: copyConfiguration)
            defer { copy.close() }
            try copy.setJournalMode("wal")
        }
        try syncFile(atPath: copyPath, operation: "syncing the rewritten database")
    }

    /// Renames the synced copy over the original and syncs the directory, so the rename survives a power cut.
    private func replaceFile(atPath path: String, withFileAt copyPath: String, operation: String) throws {
        try PlatformFiles.rename(
            copyPath, to: path, operation: "\(operation) failed: cannot rename the rewritten database")
        try syncFile(atPath: Database.directory(of: path), operation: "syncing the database's directory")
    }

    /// The folder holding the file at `path`: what is before its last separator, `/` for a file at the root, `.`
    /// for a bare name.
    static func directory(of path: String) -> String {
        #if os(Windows)
            let separator = path.lastIndex { $0 == "/" || $0 == "\\" }
        #else
            let separator = path.lastIndex(of: "/")
        #endif
        guard let separator else { return "." }
        return separator == path.startIndex ? "/" : String(path[..<separator])
    }

    /// Removes the file at `path`, if any.
    private func removeFile(atPath path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// `fsync` of the file or directory at `path`.
    private func syncFile(atPath path: String, operation: String) throws {
        try PlatformFiles.sync(atPath: path, operation: "\(operation) failed")
    }

    /// Gives a plain database the page size a legacy scheme requires (SQLCipher 1 to 3 use 1024 bytes), which an
    /// encrypted file cannot change later: `PRAGMA page_size` then `VACUUM`.
    private func matchPageSize(of cipher: Cipher) throws {
        guard let legacy = cipher.legacy, legacy > 0 else { return }
        let connection = try connection()
        try applyCipher(cipher, to: connection)
        let required = connection.configureCipher(cipher.name, "legacy_page_size", -1)
        try applyCipher(.default, to: connection)
        guard required > 0, let current = try queryValue("PRAGMA page_size", as: Int.self), current != Int(required)
        else { return }
        try execute("PRAGMA page_size = \(required)")
        try execute("VACUUM")
    }

    private func checkNoTransaction() throws {
        if isInTransaction {
            throw DatabaseError.misuse(
                "the key cannot change inside a transaction; commit or roll back first", reason: .rekeyInTransaction)
        }
    }

    private func journalMode() throws -> String {
        try query("PRAGMA journal_mode").map { try $0.value(at: 0) as String }.first?.lowercased() ?? ""
    }

    private func setJournalMode(_ mode: String) throws {
        let result = try query("PRAGMA journal_mode = \(mode)").map { try $0.value(at: 0) as String }.first
        guard result?.lowercased() == mode else {
            throw DatabaseError(
                extendedCode: .busy,
                message: "could not change journal_mode to \(mode) (it is \(result ?? "unknown")): close the other "
                    + "connections to this file first")
        }
    }

    // MARK: - Export

    /// Writes a copy of the main database to a new file at `path`: encrypted with `key` and `cipher`, or plain
    /// when `key` is `nil`. A plain database exports to an encrypted copy and an encrypted one to a plain copy,
    /// for migrations; the original is unchanged. The copy is compacted, like any `VACUUM INTO`.
    ///
    /// The copy is written by `VACUUM INTO` through the codec of the destination, so no plaintext of an encrypted
    /// copy reaches the disk. The destination file must not exist. The key reaches the codec as a `hexkey` URI
    /// parameter from a buffer the toolkit zeroes; SQLite's own copy of that filename is freed unzeroed.
    ///
    /// Related SQLite documentation: <https://sqlite.org/lang_vacuum.html#vacuuminto>
    public func export(to path: String, key: DatabaseKey?, cipher: Cipher = .default) throws {
        let connection = try connection()
        if FileManager.default.fileExists(atPath: path) {
            throw DatabaseError(extendedCode: .cantopen, message: "the export destination already exists: \(path)")
        }
        try checkNoTransaction()
        if let key {
            try applyCipher(cipher, to: connection)
            try checkRawKey(key, cipher: cipher)
        }
        defer { try? applyCipher(mainCipher ?? .default, to: connection) }
        // Without a key parameter the codec would give the copy the main database's key: `key=` asks for none.
        let uriPrefix = "file:" + Database.percentEncodedPath(path) + (key == nil ? "?key=" : "?hexkey=")
        let sql = "VACUUM INTO ?"
        let (prepareCode, prepared) = connection.prepare(sql: sql, flags: [])
        guard prepareCode == .ok, let statement = prepared else { throw error(prepareCode, sql: sql) }
        let runCode = try { () throws -> ResultCode in
            defer { _ = statement.finalize() }
            let write = { (uri: UnsafeRawBufferPointer) -> ResultCode in
                let bound = statement.bindText(
                    1, uri.baseAddress?.assumingMemoryBound(to: CChar.self), byteCount: UInt64(uri.count),
                    destructor: nil)
                return bound == .ok ? statement.step() : bound
            }
            guard let key else { return Array(uriPrefix.utf8).withUnsafeBytes(write) }
            return try key.withCodecBytes { keyBytes in
                let prefix = Array(uriPrefix.utf8)
                let uri = UnsafeMutableRawBufferPointer.allocate(
                    byteCount: prefix.count + 2 * keyBytes.count, alignment: 1)
                defer {
                    zeroBytes(uri)
                    uri.deallocate()
                }
                let hexDigits = Array("0123456789abcdef".utf8)
                for (index, byte) in prefix.enumerated() { uri[index] = byte }
                for (index, byte) in keyBytes.enumerated() {
                    uri[prefix.count + 2 * index] = hexDigits[Int(byte >> 4)]
                    uri[prefix.count + 2 * index + 1] = hexDigits[Int(byte & 0x0F)]
                }
                return write(UnsafeRawBufferPointer(uri))
            }
        }()
        guard runCode == .done else { throw error(runCode, sql: sql) }
    }

    /// `path` with every byte a URI path cannot hold as is written `%XX`.
    static func percentEncodedPath(_ path: String) -> String {
        var encoded = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "_"),
                UInt8(ascii: "."), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                encoded += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return encoded
    }

    // MARK: - Plain files

    /// Whether the file at `path` is a plain (unencrypted) SQLite database, read without a key: it starts with
    /// SQLite's header and its first page is a table page. An empty file counts as plain (SQLite opens it as an
    /// empty database). An encrypted file, including one whose header is left in plain text
    /// (`plaintextHeaderSize`), is not.
    ///
    /// - Throws: ``DatabaseError`` with `SQLITE_CANTOPEN` when the file cannot be opened, `SQLITE_IOERR` when it
    ///   cannot be read.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fileformat2.html#the_database_header>
    public static func isPlainDatabase(atPath path: String) throws -> Bool {
        let header = try header(atPath: path)
        return header.isEmpty || isPlainHeader(header)
    }

    /// The first 101 bytes of the file at `path` (fewer when it is shorter).
    static func header(atPath path: String) throws -> [UInt8] {
        try PlatformFiles.prefix(ofFileAt: path, count: 101)
    }

    /// Whether `bytes`, the start of a file, are those of a plain database.
    static func isPlainHeader(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == 101, bytes.starts(with: Array("SQLite format 3\u{0}".utf8)) else { return false }
        // Bytes 21...23 are fixed by the format (payload fractions 64, 32, 32); byte 100 starts page 1's b-tree
        // header, which is a table b-tree page (leaf 13 or interior 5) in every plain database.
        guard bytes[21] == 64, bytes[22] == 32, bytes[23] == 32 else { return false }
        return bytes[100] == 13 || bytes[100] == 5
    }

    // MARK: - Cipher configuration

    /// Refuses a raw key for a scheme whose key is not 256 bits: the codec would take its `x'…'` text as a
    /// passphrase, or split it into a shorter key and a salt.
    func checkRawKey(_ key: DatabaseKey, cipher: Cipher) throws {
        guard key.kind == .raw else { return }
        let aegisAlgorithm = cipher.parameters.last { $0.name == "algorithm" }?.value
        let takesRawKey: Bool
        switch cipher.name {
        case "chacha20", "sqlcipher", "ascon128": takesRawKey = true
        case "aegis": takesRawKey = aegisAlgorithm.map { $0 >= Cipher.AEGISAlgorithm.aegis256.rawValue } ?? true
        default: takesRawKey = false
        }
        guard takesRawKey else {
            throw DatabaseError.misuse(
                "cipher \(cipher.name) takes no 256-bit raw key; use a passphrase or another cipher",
                reason: .invalidRawKey)
        }
    }

    /// Applies `cipher` to the connection's codec settings, which the next key, rekey or `ATTACH … KEY` uses: the
    /// scheme, then every parameter back to its default, then the legacy level, then the parameters asked for,
    /// checking the value each call returns (the codec ignores a value it refuses without an error).
    func applyCipher(_ cipher: Cipher, to connection: ConnectionHandle) throws {
        func rejected(_ parameter: String) -> DatabaseError {
            DatabaseError.misuse(
                "the codec refused \(parameter) of cipher \(cipher.name)",
                reason: .cipherParameterRejected(cipher: cipher.name, parameter: parameter))
        }
        let index = SQLiteLibrary.cipherIndex(cipher.name)
        guard index >= 1, cipher.name != "rc4" else { throw rejected("cipher") }
        guard connection.configureCipher("cipher", index) == index else { throw rejected("cipher") }
        for parameter in Cipher.resettableParameters[cipher.name] ?? [] {
            let defaultValue = connection.configureCipher(cipher.name, "default:" + parameter, -1)
            guard defaultValue >= 0, connection.configureCipher(cipher.name, parameter, defaultValue) == defaultValue
            else { throw rejected(parameter) }
        }
        if let legacy = cipher.legacy {
            // The codec takes 0 as "not SQLCipher-compatible", a layout SQLCipher cannot read.
            let lowest: Int32 = cipher.name == "sqlcipher" ? 1 : 0
            guard let value = Int32(exactly: legacy), value >= lowest,
                connection.configureCipher(cipher.name, "legacy", value) == value
            else { throw rejected("legacy") }
        }
        for parameter in cipher.parameters {
            guard let value = Int32(exactly: parameter.value), value >= 0,
                connection.configureCipher(cipher.name, parameter.name, value) == value
            else { throw rejected(parameter.name) }
        }
    }
}

extension Cipher {
    /// The parameters of each scheme that a connection keeps between keys, reset to their defaults before a
    /// cipher is applied so a setting of an earlier key never leaks into the next one.
    static let resettableParameters: [String: [String]] = [
        "chacha20": ["legacy", "legacy_page_size", "kdf_iter", "plaintext_header_size"],
        "aes128cbc": ["legacy", "legacy_page_size"],
        "aes256cbc": ["legacy", "legacy_page_size", "kdf_iter"],
        "sqlcipher": [
            "legacy", "legacy_page_size", "kdf_iter", "fast_kdf_iter", "hmac_use", "hmac_pgno", "hmac_salt_mask",
            "kdf_algorithm", "hmac_algorithm", "plaintext_header_size",
        ],
        "ascon128": ["kdf_iter", "plaintext_header_size"],
        "aegis": ["tcost", "mcost", "pcost", "algorithm", "plaintext_header_size"],
    ]
}
