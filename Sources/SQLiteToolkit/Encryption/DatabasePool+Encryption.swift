extension DatabasePool {
    /// Re-encrypts the pool's encrypted database with a new key (and scheme, when `cipher` is given), as
    /// ``Database/changeKey(to:cipher:)`` does: atomically, with one commit point.
    ///
    /// A barrier: it waits for the reads and the write in progress and keeps new ones waiting; closes the readers
    /// (and the live ``DatabaseSnapshot``s, whose reads throw ``DatabaseError/Reason/accessAfterClose`` from then
    /// on); changes the key on the writer, which it reopens with the new key and the set-up hook run again (so the
    /// functions and collations the hook registers survive, and the observed queries carry on); then lets reads
    /// run again, on new readers opened with the new key and the hook. Every connection opened later, a
    /// ``reopen()`` included, gets the new key.
    ///
    /// ```swift
    /// var configuration = Database.Configuration()
    /// configuration.key = .passphrase(oldPassphrase)
    /// let pool = try DatabasePool(path: path, configuration: configuration)
    /// try pool.changeKey(to: .passphrase(newPassphrase))
    /// ```
    ///
    /// The key must come from ``Database/Configuration/key``: a set-up hook that sets the key itself would set the
    /// old one after the change, so such a pool refuses with ``DatabaseError/Reason/keyChangeLosesConnectionState``.
    ///
    /// - Throws: the errors of ``Database/changeKey(to:cipher:)`` (nothing changed before its commit point; the
    ///   new key is in effect after it), ``DatabaseError/Reason/keyChangeNeedsSoleAccess`` when another connection
    ///   (another process, or a snapshot made while the change began) uses the file,
    ///   ``DatabaseError/Reason/reentrantAccess`` inside an access to this pool, and
    ///   ``DatabaseError/Reason/accessAfterClose`` after ``close()``.
    public func changeKey(to key: DatabaseKey, cipher: Cipher? = nil) throws {
        try changeKey(.changeKey(key, cipher))
    }

    /// Encrypts the pool's plain database, as the blocking `changeKey(to:cipher:)` describes for a key change.
    public func encrypt(with key: DatabaseKey, cipher: Cipher = .default) throws {
        try changeKey(.encrypt(key, cipher))
    }

    /// Decrypts the pool's encrypted database, as the blocking `changeKey(to:cipher:)` describes for a key change.
    public func decrypt() throws {
        try changeKey(.decrypt)
    }

    /// The blocking `changeKey(to:cipher:)` for async code: runs on the writer's dispatch queue.
    public func changeKey(to key: DatabaseKey, cipher: Cipher? = nil) async throws {
        try await changeKeyElsewhere(.changeKey(key, cipher))
    }

    /// The blocking `encrypt(with:cipher:)` for async code: runs on the writer's dispatch queue.
    public func encrypt(with key: DatabaseKey, cipher: Cipher = .default) async throws {
        try await changeKeyElsewhere(.encrypt(key, cipher))
    }

    /// The blocking `decrypt()` for async code: runs on the writer's dispatch queue.
    public func decrypt() async throws {
        try await changeKeyElsewhere(.decrypt)
    }

    private func changeKeyElsewhere(_ operation: KeyChangeOperation) async throws {
        try await writer.runElsewhere { try self.changeKey(operation) }
    }

    private func changeKey(_ operation: KeyChangeOperation) throws {
        // Before waiting for the reads: a key change inside a read would wait for itself.
        try writer.checkNotReentrant(operation.name)
        try readers.beginBarrier()
        defer { readers.endBarrier() }
        // No read runs now, and none starts until the barrier ends: every reader is idle.
        closeIdleReaders()
        snapshots.closeLive()
        try writer.changeKey(operation) { configuration in
            self.updateReaderRecipe { $0.configuration = configuration }
        }
    }
}
