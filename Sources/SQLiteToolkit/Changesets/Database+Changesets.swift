import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Database {
    /// Applies `changeset` (or a patchset) to the main schema, in a savepoint of its own: either every change is
    /// applied or handled, or the database is left unchanged.
    ///
    /// Each change whose row is not as the changeset expects goes to `onConflict`, which answers:
    /// - `.omit`: skip this change;
    /// - `.replace`: write the change over the row in the database (for `.data` and `.conflict` conflicts only;
    ///   SQLite refuses it for others, which fails the apply);
    /// - `.abort`: stop; everything is rolled back and the apply throws ``DatabaseError/Reason/changesetApplyAborted``.
    ///
    /// An error thrown by `onConflict` also rolls everything back, and the apply rethrows it unchanged.
    ///
    /// ```swift
    /// // Last writer wins for conflicting edits; remote deletes of rows edited here are ignored.
    /// let rebase = try db.apply(remote) { conflict in
    ///     switch conflict.type {
    ///     case .data: .replace
    ///     default: .omit
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - changeset: the changes to apply: another database's ``Session`` output, inverted or combined as needed.
    ///   - filter: called once per table with its name; `false` skips the table's changes. `nil` applies all.
    ///   - onConflict: called on the connection's thread, inside the apply; it must not apply another changeset.
    ///     Closing the connection from it takes effect once the apply returns.
    /// - Returns: the rebase data of the conflicts resolved, for `Changeset.rebased(over:)`.
    /// - Throws: ``DatabaseError`` (reason ``DatabaseError/Reason/changesetCorrupt`` for corrupt or truncated bytes,
    ///   ``DatabaseError/Reason/changesetApplyAborted`` for an abort), or the error `onConflict` threw.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_apply.html>
    @discardableResult
    public func apply(
        _ changeset: Changeset,
        filter: ((String) -> Bool)? = nil,
        onConflict: (Changeset.Conflict) throws -> ChangesetConflictAction
    ) throws -> Changeset.RebaseData {
        let connection = try connection()
        guard !isApplyingChangeset else {
            throw DatabaseError.misuse(
                "a changeset is being applied on this connection; apply another after it returns",
                reason: .changesetApplyReentered)
        }
        isApplyingChangeset = true
        var handlerError: (any Error)?
        var handlerAborted = false
        // The filter and the handler run in the connection's callback scope: a close() from one of them is deferred
        // until the apply returns, as from any callback.
        let scope = runningCallbacks
        let scopedFilter = filter.map { filter in { (table: String) in scope.run { filter(table) } } }
        let (code, rebase) = changeset.data.withUnsafeBytes { bytes in
            connection.applyChangeset(bytes, filter: scopedFilter) { type, iterator in
                do {
                    let action = try scope.run {
                        try onConflict(try Changeset.Conflict(type: type, iterator: iterator))
                    }
                    if action == .abort { handlerAborted = true }
                    return action
                } catch {
                    handlerError = error
                    return .abort
                }
            }
        }
        isApplyingChangeset = false
        finishDeferredClose()
        if let handlerError { throw handlerError }
        switch code {
        case .ok:
            return Changeset.RebaseData(data: Changeset.data(rebase))
        case .abort where handlerAborted:
            throw DatabaseError(
                extendedCode: .abort,
                message: "a conflict handler aborted the changeset; nothing was applied",
                reason: .changesetApplyAborted)
        default:
            if code.primary == .corrupt { throw Changeset.error(code, doing: "apply") }
            throw error(code, sql: nil)
        }
    }

    /// Records a new session, so closing the connection deletes it.
    func register(_ session: Session) {
        liveSessions[ObjectIdentifier(session)] = Unmanaged.passUnretained(session)
    }

    /// Called by a session when it is deleted.
    func forget(_ session: Session) {
        liveSessions.removeValue(forKey: ObjectIdentifier(session))
    }

    /// Deletes every session of the connection; SQLite requires it before the connection closes.
    func deleteSessions() {
        for session in liveSessions.values { session.takeUnretainedValue().invalidate() }
        liveSessions.removeAll()
    }
}

extension Changeset.Conflict {
    /// Reads the conflict SQLite reports through `iterator`, inside a conflict handler.
    init(type: ChangesetConflict, iterator: ChangesetIteratorHandle) throws {
        self.type = type
        self.foreignKeyConflicts = 0
        self.change = nil
        self.conflictingRow = nil
        if type == .foreignKey {
            let (code, count) = iterator.foreignKeyConflicts()
            guard code == .ok else { throw Changeset.error(code, doing: "apply") }
            foreignKeyConflicts = Int(count)
            return
        }
        let change = try ChangesetChange(iterator)
        self.change = change
        if type == .data || type == .conflict {
            conflictingRow = try (0..<Int32(change.primaryKeyColumns.count)).map {
                try ChangesetChange.value(iterator.conflictingValue($0)) ?? .null
            }
        }
    }
}
