import SQLiteBindings

extension Database {
    /// Rolls back the transaction left open, resets every statement still stepping, and, for a database file, closes
    /// the SQLite connection so that it holds no lock on the database, `-wal` or `-shm` file; returns how
    /// ``reopenInPlace(_:)`` opens it again as it was (the key and set-up hook of `configuration` and `setUp`, the
    /// pragmas and limits it has now). An in-memory or temporary database stays open (it holds no file lock, and
    /// closing would lose it): `nil`.
    ///
    /// In WAL mode, SQLite's unix VFS holds a shared lock on the `-shm` file's "DMS" byte for as long as the
    /// connection is open, even idle (and older SQLites one on the database file too): only a close gives it back.
    ///
    /// - Throws: ``DatabaseError/Reason/suspensionLosesConnectionState`` when the connection has state the reopen
    ///   cannot give back (attached databases, temporary tables, sessions, a trace or progress handler, functions
    ///   or collations the set-up hook did not register); it is then left open, as it was.
    func closeForSuspension(setUp: SetUpHook?, configuration: Configuration) throws -> PendingReopen? {
        if isInTransaction { try? rollback() }
        resetSteppingStatements()
        guard let path = try mainFilePath() else { return nil }
        try checkReopenable(operation: "suspend()", rerunsSetUp: setUp != nil, reason: .suspensionLosesConnectionState)
        let pending = PendingReopen(
            key: configuration.key, cipher: mainCipher ?? configuration.cipher, busyMode: busyMode,
            operation: "resume()", setUp: setUp, path: reopenPath(forReplaced: path), pragmas: try connectionPragmas(),
            limits: try connectionLimits())
        closeConnectionForReopen()
        return pending
    }

    /// Resets every statement of the connection that is still stepping, which keeps a read transaction (and its
    /// locks) open until it is reset or finalized.
    func resetSteppingStatements() {
        guard let connection = handle else { return }
        var statement = connection.nextStatement(after: nil)
        while let current = statement {
            if current.isBusy() { _ = current.reset() }
            statement = connection.nextStatement(after: current)
        }
    }
}
