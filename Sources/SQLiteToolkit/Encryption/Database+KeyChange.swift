import SQLiteBindings

extension Database {
    // MARK: - Changing the key

    /// A queue's or pool's set-up hook, run again on a connection a key change reopened.
    typealias SetUpHook = (Database) throws -> Void

    /// Whether the main database is encrypted, as this connection opened or left it.
    public var isEncrypted: Bool { mainCipher != nil }

    /// The cipher of the main database, or `nil` when it is plain.
    public var cipher: Cipher? { mainCipher }

    /// Re-encrypts the encrypted main database with a new key, and with a new scheme when `cipher` is given (for
    /// example ChaCha20 to SQLCipher 4). Works in WAL mode.
    ///
    /// For a database file, the change is atomic whatever happens (an error, a full disk, a crash, a power cut):
    /// the database is copied with the new key into a new file beside it (`<path>-sqltk-rekey`, created with the
    /// original's mode, owner and group where permitted, and extended attributes), which is synced and renamed
    /// over the original, and the connection is reopened on it. The file is the old one, whole, with the old key,
    /// or the new one, whole, with the new key; never neither. It needs free disk space for a copy and no other
    /// connection to the file, in this process or another (see <doc:Encryption>). The reopened connection is on
    /// the file replaced (even when the path given at open now leads elsewhere) and gets back the pragmas set on
    /// this one by hand (`foreign_keys`, `synchronous`, `busy_timeout` and the others <doc:Encryption> lists).
    /// In-memory and temporary databases are re-encrypted in place.
    ///
    /// The rename is the commit point. A throw before it means nothing changed: the old file, the old key, and this
    /// connection usable with them. From it on, the call succeeds, or throws
    /// ``DatabaseError/Reason/keyChangedButReopenFailed`` or ``DatabaseError/Reason/keyChangedButNotDurable``,
    /// whose message says the new key is now the database's key: store the new key then too.
    ///
    /// - Throws: ``DatabaseError/Reason/notEncrypted`` on a plain database (use ``encrypt(with:cipher:)``),
    ///   ``DatabaseError/Reason/rekeyInTransaction`` inside a transaction,
    ///   ``DatabaseError/Reason/keyChangeNeedsSoleAccess`` when another connection uses the file,
    ///   ``DatabaseError/Reason/keyChangeLosesConnectionState`` when reopening would lose what the connection
    ///   holds, ``DatabaseError/Reason/keyChangeOfHardLinkedFile`` when the file has other hard links,
    ///   ``DatabaseError/Reason/fileMetadataNotCopied`` and
    ///   ``DatabaseError/Reason/atomicReplacementUnavailable`` (Windows); in each case nothing changed. After the
    ///   commit point, the two reasons above.
    ///
    /// Related SQLite documentation: <https://utelle.github.io/SQLite3MultipleCiphers/docs/configuration/config_capi/>
    public func changeKey(to key: DatabaseKey, cipher: Cipher? = nil) throws {
        try changeKey(to: key, cipher: cipher, reopeningWith: nil)
    }

    /// ``changeKey(to:cipher:)``, for a queue or a pool on its writer once its readers are closed: `setUp`, when
    /// given, is the set-up hook that gives every connection its functions and collations. The connection may
    /// then hold custom functions and collations, and `setUp` runs again on the reopened connection, after the
    /// new key (a failure there is ``DatabaseError/Reason/keyChangedButReopenFailed``, and the next access reopens
    /// and runs it again).
    func changeKey(to key: DatabaseKey, cipher: Cipher?, reopeningWith setUp: SetUpHook?) throws {
        guard let current = mainCipher else {
            throw DatabaseError.misuse(
                "the database is not encrypted; use encrypt(with:cipher:)", reason: .notEncrypted)
        }
        if let path = try mainFilePath() {
            try rewriteAtomically(
                path: path, key: key, cipher: cipher ?? current, operation: "changeKey(to:cipher:)", setUp: setUp)
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
        try encrypt(with: key, cipher: cipher, reopeningWith: nil)
    }

    /// ``encrypt(with:cipher:)`` for a queue or a pool, as ``changeKey(to:cipher:reopeningWith:)`` describes.
    func encrypt(with key: DatabaseKey, cipher: Cipher, reopeningWith setUp: SetUpHook?) throws {
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
            // The copy gets the page size a legacy scheme needs (writeCopy): the original is not touched first.
            try checkRawKey(key, cipher: cipher)
            try rewriteAtomically(
                path: path, key: key, cipher: cipher, operation: "encrypt(with:cipher:)", setUp: setUp)
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
        try decrypt(reopeningWith: nil)
    }

    /// ``decrypt()`` for a queue or a pool, as ``changeKey(to:cipher:reopeningWith:)`` describes.
    func decrypt(reopeningWith setUp: SetUpHook?) throws {
        guard mainCipher != nil else {
            throw DatabaseError.misuse("the database is not encrypted", reason: .notEncrypted)
        }
        try checkNoTransaction()
        if let path = try mainFilePath() {
            try rewriteAtomically(path: path, key: nil, cipher: .default, operation: "decrypt()", setUp: setUp)
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

    /// Gives a plain in-memory or temporary database, re-keyed in place, the page size a legacy scheme requires
    /// (SQLCipher 1 to 3 use 1024 bytes), which an encrypted database cannot change later: `PRAGMA page_size` then
    /// `VACUUM`. A database file gets it in its copy instead (`writeCopy`), so the original is never rewritten.
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

    func checkNoTransaction() throws {
        if isInTransaction {
            throw DatabaseError.misuse(
                "the key cannot change inside a transaction; commit or roll back first", reason: .rekeyInTransaction)
        }
    }

    func journalMode() throws -> String {
        try query("PRAGMA journal_mode").map { try $0.value(at: 0) as String }.first?.lowercased() ?? ""
    }

    func setJournalMode(_ mode: String) throws {
        let result = try query("PRAGMA journal_mode = \(mode)").map { try $0.value(at: 0) as String }.first
        guard result?.lowercased() == mode else {
            throw DatabaseError(
                extendedCode: .busy,
                message: "could not change journal_mode to \(mode) (it is \(result ?? "unknown")): close the other "
                    + "connections to this file first")
        }
    }
}
