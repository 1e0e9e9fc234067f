import SQLiteBindings

extension Database {
    /// How far an online backup has come, after a step.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/backup_finish.html#sqlite3backupremaining>
    public struct BackupProgress: Sendable, Hashable {
        /// The pages still to copy.
        public var remainingPageCount: Int
        /// The pages of the source database (it can change between steps when the source is written).
        public var totalPageCount: Int
        /// The pages copied so far.
        public var copiedPageCount: Int { max(0, totalPageCount - remainingPageCount) }
        /// Whether every page has been copied.
        public var isComplete: Bool { remainingPageCount == 0 }
    }

    /// What a backup's progress closure asks for.
    public enum BackupDecision: Sendable, Hashable {
        /// Copy the next pages.
        case proceed
        /// Stop now: the destination is rolled back to what it was, and the backup throws
        /// ``DatabaseError/Reason/backupCancelled``.
        case cancel
    }

    /// Copies the schema `schema` of this connection into the schema `destinationSchema` of `destination`,
    /// replacing its contents, while this connection stays usable: SQLite's online backup.
    ///
    /// ```swift
    /// let copy = try Database(path: backupPath)
    /// try db.backup(to: copy, pagesPerStep: 100) { progress in
    ///     print(progress.copiedPageCount, "of", progress.totalPageCount)
    ///     return userCancelled ? .cancel : .proceed
    /// }
    /// ```
    ///
    /// Pages are copied `pagesPerStep` at a time (all at once by default); between steps the source is not
    /// locked, so other connections can read and write it. When another connection writes the source between
    /// steps, SQLite starts the copy again at the next step, so the result is always a consistent snapshot; writes
    /// through this connection are copied as they happen. A busy or locked step is retried after a short sleep
    /// (for up to about five seconds in all), reporting no progress meanwhile.
    ///
    /// - Parameters:
    ///   - destination: another connection (a backup onto the same connection fails).
    ///   - schema: the database of this connection to copy: `main` by default, `temp`, or an attached one's name.
    ///   - destinationSchema: the database of `destination` that the copy replaces, `main` by default.
    ///   - pagesPerStep: the pages each step copies; 0 or less copies everything in one step.
    ///   - progress: called after every step, with the pages left; return `.cancel` (or throw) to stop. It may use
    ///     this connection, but not `destination`, which SQLite forbids using until the backup ends: its calls
    ///     throw ``DatabaseError/Reason/backupInProgress``, and closing it stops the backup and closes it after.
    /// - Throws: ``DatabaseError``: SQLite's error (a destination in a transaction, a page-size mismatch with an
    ///   in-memory or WAL destination, ...), ``DatabaseError/Reason/backupCancelled``, the progress closure's error,
    ///   or ``DatabaseError/Reason/connectionClosed`` when the closure closed either connection. On any error the
    ///   destination is left as it was.
    ///
    /// Related SQLite documentation: <https://sqlite.org/backup.html>
    public func backup(
        to destination: Database,
        schema: String = "main",
        destinationSchema: String = "main",
        pagesPerStep: Int = -1,
        progress: ((BackupProgress) throws -> BackupDecision)? = nil
    ) throws {
        let source = try connection()
        let target = try destination.connection()
        guard
            let backup = BackupHandle.start(
                destination: target, destinationSchema: destinationSchema, source: source, sourceSchema: schema)
        else {
            throw destination.error(target.errorCode(), sql: nil)
        }
        // SQLite forbids any use of the destination until the backup finishes; its close waits for the end.
        destination.isBackupDestination = true
        defer {
            destination.isBackupDestination = false
            if destination.closeRequestedDuringBackup {
                destination.closeRequestedDuringBackup = false
                destination.close()
            }
        }
        let pageCount = Int32(clamping: pagesPerStep <= 0 ? -1 : pagesPerStep)
        var retries = 0
        var failure: (any Error)?
        while true {
            let code = backup.step(pageCount: pageCount)
            if code == .busy || code == .locked {
                retries += 1
                guard retries <= Database.backupRetryLimit else {
                    failure = destination.error(code, sql: nil)
                    break
                }
                _ = SQLiteLibrary.sleep(milliseconds: Database.backupRetryMilliseconds)
                continue
            }
            guard code == .ok || code == .done else {
                // The step's error is also what finish returns; it is read there, from the destination.
                break
            }
            retries = 0
            if let progress {
                let state = BackupProgress(
                    remainingPageCount: Int(backup.remaining()), totalPageCount: Int(backup.pageCount()))
                do {
                    let decision = try progress(state)
                    // The closure may have closed either connection: the source's close waits for the backup
                    // (close_v2 makes it a zombie), the destination's is deferred until after finish.
                    guard isOpen, !destination.closeRequestedDuringBackup else {
                        failure = DatabaseError.misuse(
                            "a connection was closed during its backup", reason: .connectionClosed)
                        break
                    }
                    if decision == .cancel {
                        failure = DatabaseError(
                            extendedCode: .abort, message: "the backup was cancelled", reason: .backupCancelled)
                        break
                    }
                } catch {
                    failure = error
                    break
                }
            }
            if code == .done { break }
        }
        let finishCode = backup.finish()
        if let failure { throw failure }
        if finishCode != .ok { throw destination.error(finishCode, sql: nil) }
    }

    /// Copies the schema `schema` of this connection into the database file at `path` (created when missing,
    /// replaced otherwise), with the destination opened with `configuration` and closed afterwards.
    ///
    /// Related SQLite documentation: <https://sqlite.org/backup.html>
    public func backup(
        toPath path: String,
        schema: String = "main",
        configuration: Configuration = Configuration(),
        pagesPerStep: Int = -1,
        progress: ((BackupProgress) throws -> BackupDecision)? = nil
    ) throws {
        let destination = try Database(path: path, configuration: configuration)
        defer { destination.close() }
        try backup(to: destination, schema: schema, pagesPerStep: pagesPerStep, progress: progress)
    }

    /// How many times a busy or locked backup step is retried before the backup fails.
    static let backupRetryLimit = 500
    /// The sleep between retries of a busy or locked backup step.
    static let backupRetryMilliseconds: Int32 = 10
}
