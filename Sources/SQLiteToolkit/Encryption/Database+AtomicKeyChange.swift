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
    /// syncs it, renames it over the original while this connection keeps every other one out, and reopens the
    /// connection on it. Before the rename nothing changed; after it, the new file is whole and synced.
    func rewriteAtomically(path: String, key: DatabaseKey?, cipher: Cipher, operation: String) throws {
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
        if callbackScope.isRunningCallback { throw refuse("the callback that is running") }
        if openCursorCount > 0 { throw refuse("its open cursors") }
        if !liveSessions.isEmpty { throw refuse("its sessions") }
        if callbackScope.hasTraceOrProgressHandler { throw refuse("its trace or progress handler") }
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
}
