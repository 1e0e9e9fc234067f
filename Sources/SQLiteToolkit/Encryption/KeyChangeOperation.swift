/// A key change of a ``DatabaseQueue`` or a ``DatabasePool``: run on its one writing connection, alone, and then
/// given to every connection it opens later (a reopen, a new reader) through its configuration's key.
enum KeyChangeOperation: Sendable {
    case changeKey(DatabaseKey, Cipher?)
    case encrypt(DatabaseKey, Cipher)
    case decrypt

    var name: String {
        switch self {
        case .changeKey: "changeKey(to:cipher:)"
        case .encrypt: "encrypt(with:cipher:)"
        case .decrypt: "decrypt()"
        }
    }

    /// Runs the change on `db`, re-running `setUp` on the reopened connection.
    func run(on db: Database, setUp: Database.SetUpHook?) throws {
        switch self {
        case .changeKey(let key, let cipher): try db.changeKey(to: key, cipher: cipher, reopeningWith: setUp)
        case .encrypt(let key, let cipher): try db.encrypt(with: key, cipher: cipher, reopeningWith: setUp)
        case .decrypt: try db.decrypt(reopeningWith: setUp)
        }
    }

    /// The configuration new connections are opened with once the change committed: the new key and cipher.
    func configuration(after configuration: Database.Configuration, cipher: Cipher?) -> Database.Configuration {
        var changed = configuration
        switch self {
        case .changeKey(let key, let newCipher):
            changed.key = key
            if let newCipher = newCipher ?? cipher { changed.cipher = newCipher }
        case .encrypt(let key, let newCipher):
            changed.key = key
            changed.cipher = newCipher
        case .decrypt:
            changed.key = nil
        }
        return changed
    }
}

extension SerializedDatabase {
    /// Runs a key change on the connection, alone, and gives the new key to every connection opened later; then
    /// `didChange` updates the owner's other recipes (a pool's readers'). The new key is given out when the change
    /// committed, whether or not the call then threw (``DatabaseError/Reason/keyChangedButReopenFailed``,
    /// ``DatabaseError/Reason/keyChangedButNotDurable``): from the commit point on, it is the database's key.
    ///
    /// - Throws: ``DatabaseError/Reason/keyChangeLosesConnectionState`` when the connection's key came from the
    ///   set-up hook rather than ``Database/Configuration/key``: every connection opened later would get the old key
    ///   from the hook. Nothing changed then.
    func changeKey(
        _ operation: KeyChangeOperation,
        didChange: @escaping (Database.Configuration) -> Void = { _ in }
    ) throws {
        try access { db in
            let recipe = self.recipe
            if db.isEncrypted && recipe.configuration.key == nil {
                throw DatabaseError.misuse(
                    "\(operation.name) on a \(ownerName) needs the key in its configuration (Configuration.key): "
                        + "its set-up hook sets the key, and would set the old one on every connection opened after "
                        + "the change; nothing changed",
                    reason: .keyChangeLosesConnectionState)
            }
            do {
                try operation.run(on: db, setUp: recipe.setUp)
            } catch let error as DatabaseError
                where error.reason == .keyChangedButReopenFailed || error.reason == .keyChangedButNotDurable
            {
                commit(operation, cipher: db.cipher, didChange: didChange)
                throw error
            }
            commit(operation, cipher: db.cipher, didChange: didChange)
        }
    }

    /// Runs `body` on ``dispatchQueue`` and waits for it without holding a thread of Swift's cooperative pool: a
    /// key change of a queue or a pool, for async code (it copies the whole database, like a long write).
    func runElsewhere(_ body: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            dispatchQueue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    private func commit(
        _ operation: KeyChangeOperation, cipher: Cipher?, didChange: (Database.Configuration) -> Void
    ) {
        var changed = recipe.configuration
        updateRecipe { recipe in
            recipe.configuration = operation.configuration(after: recipe.configuration, cipher: cipher)
            changed = recipe.configuration
        }
        didChange(changed)
    }
}
