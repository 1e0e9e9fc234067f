import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Database {
    // MARK: - Atomic key changes

    /// The path of the main database file, or `nil` for an in-memory or temporary database.
    func mainFilePath() throws -> String? {
        guard let filename = try connection().filename(schema: "main"), !filename.isEmpty else { return nil }
        return filename
    }

    /// Writes the main database into a new file beside it with `key` and `cipher` (plain when `key` is `nil`),
    /// with the original's metadata, syncs it, renames it over the original while this connection keeps every
    /// other one out, and reopens the connection on it.
    ///
    /// The rename is the commit point. Before it, a throw means nothing changed: the old file, the old key, and
    /// this connection usable with them. From it on, the call succeeds or throws
    /// ``DatabaseError/Reason/keyChangedButReopenFailed`` (the connection reopens with the new key on its next
    /// access) or ``DatabaseError/Reason/keyChangedButNotDurable``, whose messages say the new key is in effect.
    ///
    /// `setUp`, a queue's or pool's set-up hook, runs on the reopened connection after the new key; with it, the
    /// connection may hold custom functions and collations (the hook gives them again).
    func rewriteAtomically(
        path: String, key: DatabaseKey?, cipher: Cipher, operation: String, setUp: SetUpHook? = nil
    ) throws {
        try checkNoTransaction()
        if try connection().readOnlyState("main") == 1 {
            throw DatabaseError.misuse(
                "\(operation) rewrites the database file, and this connection was opened read-only; nothing changed",
                reason: .keyChangeOnReadOnlyConnection)
        }
        try checkReopenable(operation: operation, rerunsSetUp: setUp != nil)
        if let key { try checkRawKey(key, cipher: cipher) }
        // Read before the change, while the connection still has them: reopened, it would have the defaults.
        let pragmas = try connectionPragmas()
        let limits = try connectionLimits()
        let replacement = AtomicFileReplacement(replacing: path)
        let isWAL = try journalMode() == "wal"
        // A connection that chose exclusive locking keeps it after a change that did not happen.
        let wasExclusive = try queryValue("PRAGMA locking_mode", as: String.self)?.lowercased() == "exclusive"
        // Before the exclusive access: on Apple platforms the replacement's creation closes a descriptor of the
        // original, which releases the process's locks on it.
        do {
            try replacement.prepare(operation: operation)
            try takeExclusiveAccess(isWAL: isWAL, operation: operation, wasExclusive: wasExclusive)
        } catch {
            replacement.discard()
            throw error
        }
        do {
            try writeCopy(to: replacement.replacementPath, key: key, cipher: cipher)
            try finishCopy(atPath: replacement.replacementPath, key: key, cipher: cipher, isWAL: isWAL)
            try replacement.commit(operation: operation)
        } catch {
            replacement.discard()
            releaseExclusiveAccess(wasExclusive: wasExclusive)
            try? applyCipher(mainCipher ?? .default, to: connection())
            throw error
        }
        // The commit point: the file is the new one, with the new key. Nothing from here reports a failure as if
        // the key had not changed.
        mainCipher = key == nil ? nil : cipher
        var durability: DatabaseError?
        do {
            try replacement.syncDirectory(operation: operation)
        } catch {
            durability =
                error as? DatabaseError
                ?? DatabaseError(extendedCode: .ioerrFsync, message: "\(operation): syncing the directory: \(error)")
        }
        pendingReopen = PendingReopen(
            key: key, cipher: cipher, busyMode: busyMode, operation: operation, setUp: setUp,
            path: reopenPath(forReplaced: path), pragmas: pragmas, limits: limits)
        closeConnectionForReopen()
        _ = try reopenAfterKeyChange()
        if let durability {
            throw DatabaseError(
                extendedCode: durability.extendedCode,
                message: "\(operation) committed: \(Self.newKeyInEffect(key)), and the connection uses it; but "
                    + "\(durability.message), so until the next sync of the directory a power cut may bring back "
                    + "the old file with the old key",
                reason: .keyChangedButNotDurable)
        }
    }

    /// Says which key the file has after a key change committed.
    static func newKeyInEffect(_ key: DatabaseKey?) -> String {
        key == nil
            ? "the new key is now the database's key: none, the file is plain"
            : "the new key is now the database's key"
    }

    /// Opens the connection on the file a key change renamed into place, with the new key, and forgets the key.
    /// On failure the connection stays closed, keeps the key, and the next access tries again; the error is
    /// ``DatabaseError/Reason/keyChangedButReopenFailed``.
    func reopenAfterKeyChange() throws -> ConnectionHandle {
        guard let pending = pendingReopen else { throw closedError(sql: nil) }
        do {
            try reopenInPlace(pending)
        } catch {
            let underlying = (error as? DatabaseError)?.message ?? "\(error)"
            throw DatabaseError(
                extendedCode: (error as? DatabaseError)?.extendedCode ?? .cantopen,
                message: "\(pending.operation) committed: \(Self.newKeyInEffect(pending.key)); but reopening the "
                    + "connection on it failed (\(underlying)): the connection reopens with the new key on its next "
                    + "access",
                reason: .keyChangedButReopenFailed)
        }
        pendingReopen = nil
        return try connection()
    }

    /// Opens the SQLite connection again after ``closeConnectionForReopen()``, as `pending` says: the key, the
    /// configuration's extensions, the set-up hook, then the pragmas and limits the connection had, and the
    /// observers' hooks. Shared by the key change and the resume of a suspension. On failure the connection stays
    /// closed and keeps the key's cipher; the error is thrown as is.
    func reopenInPlace(_ pending: PendingReopen) throws {
        do {
            try openConnectionAgain(busyMode: pending.busyMode, at: pending.path)
            mainCipher = nil
            if let key = pending.key { try applyKeyAtOpen(key, cipher: pending.cipher) }
            try loadConfiguredExtensions()
            try pending.setUp?(self)
            if pending.setUp != nil { setUpDefinitions = try customDefinitions() }
            try restorePragmas(pending.pragmas)
            try restoreLimits(pending.limits)
            // The observers carry on, on the new connection.
            if !observation.isEmpty { observation.install(on: try connection()) }
            // A new connection counts its data version afresh: the watch compares with the new count from now on.
            // (Commits of other processes while none was open are the resume's to tell: ``FileSignature``.)
            if observation.watchesExternalChanges { observation.dataVersion = try? readDataVersion() }
        } catch {
            closeConnectionForReopen()
            mainCipher = pending.key == nil ? nil : pending.cipher
            throw error
        }
    }

    /// What the reopen after a key change opens: the file replaced (`replaced`, as SQLite resolved it at open,
    /// links followed), never the name given at open resolved again, which may lead elsewhere by now (a switched
    /// directory link, another working directory). A `file:` URI keeps its parameters.
    func reopenPath(forReplaced replaced: String) -> String {
        guard path.hasPrefix("file:") else { return replaced }
        let parameters = path.firstIndex(of: "?").map { String(path[$0...]) } ?? ""
        return "file:" + Database.percentEncodedPath(replaced) + parameters
    }

    /// The per-connection settings a reopen would reset to their defaults, which a key change reads before and
    /// sets again after (a queue's or pool's set-up hook runs first, so a value set by hand after it still wins).
    /// `case_sensitive_like` cannot be read back; it replaces `like()`, so a key change refuses
    /// the change on a connection that set it. `cache_spill` reads as the larger of its threshold and the cache's
    /// size in pages, so it comes after `cache_size`: then `OFF` (0) and any threshold above the cache's size are
    /// carried exactly. `journal_mode` is the connection's (`TRUNCATE`, `PERSIST`, `MEMORY`, `OFF`) except for
    /// WAL, which the copy records in its file. The settings of the `temp` schema, which the connection keeps
    /// apart from `main`'s, come last, so the unqualified ones (which some pragmas apply to every schema) do not
    /// overwrite them.
    static let carriedPragmas = [
        "foreign_keys", "synchronous", "busy_timeout", "secure_delete", "recursive_triggers", "cache_size",
        "cache_spill", "temp_store", "automatic_index", "cell_size_check", "ignore_check_constraints",
        "trusted_schema", "reverse_unordered_selects", "mmap_size", "journal_size_limit", "wal_autocheckpoint",
        "analysis_limit", "legacy_alter_table", "fullfsync", "checkpoint_fullfsync", "threads", "locking_mode",
        "query_only", "journal_mode", "temp.cache_size", "temp.cache_spill", "temp.synchronous",
        "temp.secure_delete", "temp.journal_size_limit",
    ]

    /// The value of every run-time limit (`sqlite3_limit`) this connection has, by category; the categories this
    /// SQLite does not know (it answers -1) end the list.
    func connectionLimits() throws -> [(category: LimitCategory, value: Int)] {
        var limits: [(category: LimitCategory, value: Int)] = []
        for rawValue in Int32(0)..<64 {
            let category = LimitCategory(rawValue: rawValue)
            let value = try limit(category)
            if value < 0 { break }
            limits.append((category, value))
        }
        return limits
    }

    /// Sets on the reopened connection every limit of `limits` whose value differs from the one it has, and checks
    /// that it took.
    private func restoreLimits(_ limits: [(category: LimitCategory, value: Int)]) throws {
        for (category, value) in limits where try limit(category) != value {
            try setLimit(category, to: value)
            let after = try limit(category)
            guard after == value else {
                throw DatabaseError(
                    extendedCode: .error,
                    message: "the limit \(category.rawValue) could not be set back to \(value) (it is \(after))")
            }
        }
    }

    /// The values of ``carriedPragmas`` this connection has, in that order; a pragma this SQLite does not know
    /// (it answers no row) is left out.
    func connectionPragmas() throws -> [(name: String, value: String)] {
        try Self.carriedPragmas.compactMap { name in
            try queryValue("PRAGMA \(name)", as: String.self).map { (name, $0) }
        }
    }

    /// Sets on the reopened connection every pragma of `pragmas` whose value differs from the one it had, and
    /// checks that it took: a setting that cannot be carried over is an error, never silently lost.
    private func restorePragmas(_ pragmas: [(name: String, value: String)]) throws {
        for (name, value) in pragmas {
            let now = try queryValue("PRAGMA \(name)", as: String.self)
            if now?.lowercased() == value.lowercased() { continue }
            if name.hasSuffix("cache_spill"), try restoreCacheSpill(name, value: value, now: now) { continue }
            // Values SQLite printed itself: an integer, or a word (locking_mode); anything else is not pasted.
            let isPlainValue = value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
            if isPlainValue { try execute("PRAGMA \(name) = \(value)") }
            let after = try queryValue("PRAGMA \(name)", as: String.self)
            guard isPlainValue, after?.lowercased() == value.lowercased() else {
                throw DatabaseError(
                    extendedCode: .error,
                    message: "PRAGMA \(name) could not be set back to \(value) (it is \(after ?? "unknown"))")
            }
        }
    }

    /// Sets `cache_spill` (`name`, maybe schema-qualified) back to `value` where it differs from `now` for a reason
    /// other than the cache's size in pages: it reads as the larger of its threshold and that size, which a new
    /// page size (another cipher's) changes. Off (0) is carried exactly; a threshold above the reopened cache's
    /// size too; one below it read as the old cache's size, which is not a threshold set. Returns whether the
    /// setting is carried (else the general check reports it).
    private func restoreCacheSpill(_ name: String, value: String, now: String?) throws -> Bool {
        guard let old = Int(value), let current = now.flatMap({ Int($0) }) else { return false }
        if old == 0 || old > current { return false }
        if current == 0 {
            // Off on the reopened connection (its hook's doing), on before: on again, with the old threshold.
            try execute("PRAGMA \(name) = \(old)")
            return try queryValue("PRAGMA \(name)", as: Int.self) != 0
        }
        return true
    }

    /// Refuses a key change on a connection whose state a reopen would lose, before anything changes.
    /// `rerunsSetUp`: a set-up hook runs again after the reopen, so the custom functions and collations it gave
    /// are allowed, and only those.
    func checkReopenable(
        operation: String, rerunsSetUp: Bool, reason: DatabaseError.Reason = .keyChangeLosesConnectionState
    ) throws {
        func refuse(_ what: String) -> DatabaseError {
            DatabaseError.misuse(
                "\(operation) reopens the connection, which would lose \(what): run it on a connection that has "
                    + "none (for example right after opening)",
                reason: reason)
        }
        if runningCallbacks.isRunningCallback { throw refuse("the callback that is running") }
        if openCursorCount > 0 { throw refuse("its open cursors") }
        if !liveSessions.isEmpty { throw refuse("its sessions") }
        if runningCallbacks.hasTraceOrProgressHandler { throw refuse("its trace or progress handler") }
        let schemas = try query("PRAGMA database_list").map { try $0.value(at: 1) as String }
        if schemas.contains(where: { $0 != "main" && $0 != "temp" }) { throw refuse("its attached databases") }
        if try queryValue("SELECT count(*) FROM temp.sqlite_schema", as: Int.self) != 0 {
            throw refuse("its temporary tables")
        }
        // What the reopened connection has without being asked: with a set-up hook, what the connection had when
        // the hook finished (the hook runs again); without, what a new connection has (the built-in functions and
        // collations, the codec's, and those of the configuration's extensions, which the reopen loads again).
        let expected: Set<String>
        if rerunsSetUp, let setUpDefinitions {
            expected = setUpDefinitions
        } else {
            var freshConfiguration = Configuration()
            freshConfiguration.extensions = configuration.extensions
            expected = try Database(configuration: freshConfiguration).customDefinitions()
        }
        let lost = try customDefinitions().subtracting(expected).sorted()
        if !lost.isEmpty {
            let likeNote =
                lost.contains("function like") || lost.contains("function glob")
                ? "; PRAGMA case_sensitive_like replaces like()" : ""
            throw refuse("its custom functions or collations (\(lost.joined(separator: ", "))\(likeNote))")
        }
    }

    /// The names of the functions and collations registered on this connection beyond SQLite's built-in functions,
    /// as `function name` and `collation name`.
    func customDefinitions() throws -> Set<String> {
        let names = try query(
            "SELECT 'function ' || name FROM pragma_function_list WHERE builtin = 0 "
                + "UNION SELECT 'collation ' || name FROM pragma_collation_list"
        ).map { try $0.value(at: 0) as String }
        return Set(names)
    }

    /// Keeps every other connection out of the file until this one reopens (`locking_mode=EXCLUSIVE` and an
    /// exclusive transaction); in WAL mode, first moves every frame into the database and empties the WAL, so the
    /// file alone holds the database and a WAL left beside it can never be replayed into the new file.
    private func takeExclusiveAccess(isWAL: Bool, operation: String, wasExclusive: Bool) throws {
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
            releaseExclusiveAccess(wasExclusive: wasExclusive)
            throw DatabaseError(
                extendedCode: .busy,
                message: "\(operation) needs the only connection to the database: close the others first",
                reason: .keyChangeNeedsSoleAccess)
        } catch {
            releaseExclusiveAccess(wasExclusive: wasExclusive)
            throw error
        }
    }

    /// Lets other connections in again after a key change that did not happen, unless the connection had chosen
    /// exclusive locking itself (`wasExclusive`): then it keeps it.
    private func releaseExclusiveAccess(wasExclusive: Bool) {
        if isInTransaction { try? transactionStatement(.rollback).run() }
        if wasExclusive { return }
        try? execute("PRAGMA locking_mode = NORMAL")
        // The lock is released at the end of the next access.
        _ = try? queryValue("SELECT count(*) FROM sqlite_schema", as: Int.self)
    }

    /// Puts the copy in WAL mode when the original was (the mode is recorded in the file); the copy is closed
    /// after, so every write reached it before it is synced.
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
    }
}

/// What a key change that committed needs to reopen its connection: the new key (`nil` after ``Database/decrypt()``)
/// and cipher, the busy mode to restore, the operation's name for the error, and the set-up hook to run again.
struct PendingReopen {
    var key: DatabaseKey?
    var cipher: Cipher
    var busyMode: Database.BusyMode
    var operation: String
    var setUp: Database.SetUpHook?
    /// What the reopen opens: the file replaced, not the name given at open resolved again.
    var path: String
    /// The connection's own settings before the change, set again after the reopen.
    var pragmas: [(name: String, value: String)]
    /// The connection's run-time limits before the change, set again after the reopen.
    var limits: [(category: LimitCategory, value: Int)]
}
