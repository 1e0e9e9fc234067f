import SQLiteBindings

extension Database {
    /// How a transaction takes its locks.
    ///
    /// Related SQLite documentation: <https://sqlite.org/lang_transaction.html>
    public enum TransactionKind: String, Sendable {
        /// Locks on first read or write; a write may then fail with `SQLITE_BUSY` that no retry can fix.
        case deferred = "DEFERRED"
        /// Takes the write lock at once (waiting per the busy mode): the default for writes.
        case immediate = "IMMEDIATE"
        /// Like immediate; in WAL mode the same, otherwise also keeps readers out.
        case exclusive = "EXCLUSIVE"
    }

    /// What a transaction closure asks for when it returns.
    public enum TransactionCompletion: Sendable {
        /// Commit the changes.
        case commit
        /// Roll them back, without an error.
        case rollback
    }

    /// Begins a transaction. Prefer the closure forms, which cannot leave a transaction open.
    ///
    /// With ``Configuration/usesWriteGate``, an immediate or exclusive transaction first waits for the write gate,
    /// which ``commit()`` and ``rollback()`` give back.
    public func beginTransaction(_ kind: TransactionKind = .immediate) throws {
        if configuration.usesWriteGate && kind != .deferred {
            try beginGatedTransaction(kind)
        } else {
            try runTransactionStatement(.begin(kind))
        }
    }

    /// Makes the open read transaction read the database now: in WAL mode a transaction takes its snapshot of the
    /// database at its first read, not at `BEGIN`, and a connection that has not read yet has no WAL open (so no
    /// snapshot can be taken or opened on it). Reads the schema's page, the cheapest read there is.
    func startReading() throws {
        _ = try queryValue("SELECT count(*) FROM sqlite_schema", as: Int.self)
    }

    /// Commits the open transaction. When the commit fails (for example with `SQLITE_BUSY`), the transaction is
    /// rolled back, so none stays open, and the error is thrown. A transaction aborted by a savepoint that could not
    /// be rolled back is rolled back instead, and throws ``DatabaseError/Reason/transactionAborted``.
    public func commit() throws {
        if let aborted = abortedTransactionError {
            abortedTransactionError = nil
            if isInTransaction { try? transactionStatement(.rollback).run() }
            releaseWriteGate()
            throw aborted
        }
        if let refusal = commitVeto?.error {
            if isInTransaction { try? transactionStatement(.rollback).run() }
            releaseWriteGate()
            throw refusal
        }
        do {
            try runTransactionStatement(.commit)
        } catch {
            if isInTransaction { try? transactionStatement(.rollback).run() }
            releaseWriteGate()
            throw error
        }
        // Committed: no transaction is open.
        writeGate?.release()
    }

    /// Rolls back the open transaction; does nothing when none is open (SQLite may have rolled it back already).
    public func rollback() throws {
        abortedTransactionError = nil
        defer { releaseWriteGate() }
        guard isInTransaction else { return }
        try transactionStatement(.rollback).run()
    }

    /// Runs `BEGIN`, `COMMIT` or `ROLLBACK` without retaining its statement: the connection holds it from its first
    /// use until the connection is released (``close()`` keeps it), so it cannot be freed while it runs, even by a
    /// callback that closes the connection.
    func runTransactionStatement(_ kind: TransactionStatements.Kind) throws {
        guard let statement = transactionStatements.unretained(kind) else {
            try transactionStatement(kind).run()
            return
        }
        try statement._withUnsafeGuaranteedRef { try $0.run() }
    }

    /// `BEGIN`, `COMMIT` and `ROLLBACK`, prepared once per connection and kept, so a short transaction costs close
    /// to SQLite's own cost (no SQL text to build, hash or parse).
    func transactionStatement(_ kind: TransactionStatements.Kind) throws -> Statement {
        if let statement = transactionStatements[kind] { return statement }
        let statement = try prepare(kind.sql, persistent: true, isCached: false)
        transactionStatements[kind] = statement
        return statement
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back and rethrows the original error when it
    /// throws.
    ///
    /// ```swift
    /// try db.transaction { db in
    ///     try db.execute("UPDATE account SET balance = balance - ? WHERE id = ?", 10, 1)
    ///     try db.execute("UPDATE account SET balance = balance + ? WHERE id = ?", 10, 2)
    /// }
    /// ```
    ///
    /// - Throws: `SQLITE_MISUSE` before running `body` when a transaction is already open (use ``savepoint(_:)``
    ///   to nest); the error of `body`; or the error of a failed commit, after which no transaction is open.
    @inlinable
    @discardableResult
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: (Database) throws -> T) throws -> T {
        // The same steps as inTransaction(_:_:), without an `Optional<T>` to carry the result out of a closure: for a
        // generic `T` its type metadata was looked up at run time on every transaction. Inlinable, so `T` is
        // concrete in the caller and the result moves without value witnesses.
        guard !isInTransaction else { throw Database.nestedTransactionError() }
        try beginTransaction(kind)
        let result: T
        do {
            result = try body(self)
        } catch {
            try? rollback()
            throw error
        }
        try commit()
        return result
    }

    /// The error of a transaction begun inside another.
    @usableFromInline
    static func nestedTransactionError() -> DatabaseError {
        DatabaseError.misuse("a transaction is already open; use savepoint(_:) to nest", reason: .nestedTransaction)
    }

    /// Runs `body` in a transaction and commits or rolls back as it answers; a throw rolls back and rethrows.
    public func inTransaction(
        _ kind: TransactionKind = .immediate,
        _ body: (Database) throws -> TransactionCompletion
    ) throws {
        guard !isInTransaction else { throw Database.nestedTransactionError() }
        try beginTransaction(kind)
        let completion: TransactionCompletion
        do {
            completion = try body(self)
        } catch {
            try? rollback()
            throw error
        }
        switch completion {
        case .commit: try commit()
        case .rollback: try rollback()
        }
    }

    /// Runs `body` in a savepoint, which nests inside transactions and other savepoints: releases it when `body`
    /// returns, rolls back to it and rethrows when `body` throws. Outside a transaction, a savepoint is one.
    ///
    /// Related SQLite documentation: <https://sqlite.org/lang_savepoint.html>
    @discardableResult
    public func savepoint<T>(_ body: (Database) throws -> T) throws -> T {
        try withSavepoint { db in (try body(db), .commit) }
    }

    /// Runs `body` in a savepoint and releases it or rolls back to it as `body` answers; a throw rolls back and
    /// rethrows. The enclosing transaction, if any, stays open either way: only the savepoint's changes are undone.
    /// FMDB's `inSavePoint:` with its `rollback` flag.
    ///
    /// ```swift
    /// try db.transaction { db in
    ///     try db.execute("INSERT INTO player (name) VALUES (?)", "Arthur")
    ///     try db.inSavepoint { db in
    ///         try db.execute("DELETE FROM player")
    ///         return .rollback  // undoes the DELETE, keeps the INSERT
    ///     }
    /// }
    /// ```
    ///
    /// Related SQLite documentation: <https://sqlite.org/lang_savepoint.html>
    public func inSavepoint(_ body: (Database) throws -> TransactionCompletion) throws {
        try withSavepoint { db in ((), try body(db)) }
    }

    /// The savepoint of ``savepoint(_:)`` and ``inSavepoint(_:)``: `body` says whether to keep its changes.
    private func withSavepoint<T>(_ body: (Database) throws -> (T, TransactionCompletion)) throws -> T {
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let name = "sqltk_savepoint_\(savepointDepth)"
        let isNested = isInTransaction
        try execute("SAVEPOINT \(name)")
        let result: T
        let completion: TransactionCompletion
        do {
            (result, completion) = try body(self)
        } catch {
            try abandonSavepoint(name, isNested: isNested)
            throw error
        }
        switch completion {
        case .commit:
            do {
                try execute("RELEASE SAVEPOINT \(name)")
            } catch {
                // A failed release (a deferred foreign key of the outermost savepoint) rolls back like a throw.
                try abandonSavepoint(name, isNested: isNested)
                throw error
            }
        case .rollback:
            try abandonSavepoint(name, isNested: isNested)
        }
        return result
    }

    /// Undoes the changes of savepoint `name`, whose body threw or asked for a rollback, then removes it; the
    /// enclosing transaction, if any, stays open.
    ///
    /// When the rollback itself fails (an I/O error reading the journal, a full disk), SQLite may have rolled back
    /// the whole enclosing transaction, and what the caller runs next would then commit on its own, outside the
    /// transaction it believes open. The enclosing transaction is then replaced by one that can only roll back:
    /// its commit throws ``DatabaseError/Reason/transactionAborted``, as this does.
    func abandonSavepoint(_ name: String, isNested: Bool) throws {
        do {
            try execute("ROLLBACK TO SAVEPOINT \(name)")
            try execute("RELEASE SAVEPOINT \(name)")
        } catch {
            let failure = error as? DatabaseError
            let aborted = DatabaseError(
                extendedCode: failure?.extendedCode ?? .error,
                message: "rolling back to a savepoint failed (\(failure?.message ?? "\(error)")), so its transaction "
                    + "is rolled back",
                reason: .transactionAborted)
            if isInTransaction { try? transactionStatement(.rollback).run() }
            guard isNested else { return }
            if abortedTransactionError == nil { abortedTransactionError = aborted }
            try? runTransactionStatement(.begin(.deferred))
            throw abortedTransactionError ?? aborted
        }
    }
}

/// The prepared transaction statements of a connection, by kind.
struct TransactionStatements {
    enum Kind {
        case begin(Database.TransactionKind)
        case commit
        case rollback

        var sql: String {
            switch self {
            case .begin(let kind): "BEGIN \(kind.rawValue) TRANSACTION"
            case .commit: "COMMIT TRANSACTION"
            case .rollback: "ROLLBACK TRANSACTION"
            }
        }
    }

    // One stored property per kind rather than an array: no bounds check and no array buffer to go through on
    // every transaction.
    private var beginDeferred: Statement?
    private var beginImmediate: Statement?
    private var beginExclusive: Statement?
    private var commit: Statement?
    private var rollback: Statement?

    /// The statement of `kind`, if prepared, unretained: valid while this value holds it.
    func unretained(_ kind: Kind) -> Unmanaged<Statement>? {
        self[kind].map { Unmanaged.passUnretained($0) }
    }

    subscript(kind: Kind) -> Statement? {
        get {
            switch kind {
            case .begin(.deferred): beginDeferred
            case .begin(.immediate): beginImmediate
            case .begin(.exclusive): beginExclusive
            case .commit: commit
            case .rollback: rollback
            }
        }
        set {
            switch kind {
            case .begin(.deferred): beginDeferred = newValue
            case .begin(.immediate): beginImmediate = newValue
            case .begin(.exclusive): beginExclusive = newValue
            case .commit: commit = newValue
            case .rollback: rollback = newValue
            }
        }
    }
}
