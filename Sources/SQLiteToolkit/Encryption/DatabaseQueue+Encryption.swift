extension DatabaseQueue {
    /// Re-encrypts the queue's encrypted database with a new key (and scheme, when `cipher` is given), as
    /// ``Database/changeKey(to:cipher:)`` does: atomically, with one commit point. It waits for the access in
    /// progress, runs alone, and reopens the connection with the new key, running the set-up hook again, so the
    /// functions and collations it registers survive. Later connections (a ``reopen()``) get the new key.
    ///
    /// ```swift
    /// var configuration = Database.Configuration()
    /// configuration.key = .passphrase(oldPassphrase)
    /// let queue = try DatabaseQueue(path: path, configuration: configuration) { db in
    ///     try db.createFunction("greet") { (name: String) in "Hello, \(name)" }
    /// }
    /// try queue.changeKey(to: .passphrase(newPassphrase))
    /// ```
    ///
    /// The key must come from ``Database/Configuration/key``: a set-up hook that sets the key itself would set the
    /// old one after the change, so such a queue refuses with ``DatabaseError/Reason/keyChangeLosesConnectionState``.
    ///
    /// - Throws: the errors of ``Database/changeKey(to:cipher:)``, ``DatabaseError/Reason/reentrantAccess`` inside
    ///   an access to this queue, and ``DatabaseError/Reason/accessAfterClose`` after ``close()``.
    public func changeKey(to key: DatabaseKey, cipher: Cipher? = nil) throws {
        try serialized.changeKey(.changeKey(key, cipher))
    }

    /// Encrypts the queue's plain database, as the blocking `changeKey(to:cipher:)` describes for a key change.
    public func encrypt(with key: DatabaseKey, cipher: Cipher = .default) throws {
        try serialized.changeKey(.encrypt(key, cipher))
    }

    /// Decrypts the queue's encrypted database, as the blocking `changeKey(to:cipher:)` describes for a key change.
    public func decrypt() throws {
        try serialized.changeKey(.decrypt)
    }

    /// The blocking `changeKey(to:cipher:)` for async code: runs on the queue's dispatch queue.
    public func changeKey(to key: DatabaseKey, cipher: Cipher? = nil) async throws {
        try await changeKeyElsewhere(.changeKey(key, cipher))
    }

    /// The blocking `encrypt(with:cipher:)` for async code: runs on the queue's dispatch queue.
    public func encrypt(with key: DatabaseKey, cipher: Cipher = .default) async throws {
        try await changeKeyElsewhere(.encrypt(key, cipher))
    }

    /// The blocking `decrypt()` for async code: runs on the queue's dispatch queue.
    public func decrypt() async throws {
        try await changeKeyElsewhere(.decrypt)
    }

    private func changeKeyElsewhere(_ operation: KeyChangeOperation) async throws {
        let serialized = self.serialized
        try await serialized.runElsewhere { try serialized.changeKey(operation) }
    }
}
