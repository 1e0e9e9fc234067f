import CSQLiteToolkit

// The closure form of sqlite3changeset_apply_v2. SQLite calls the filter and the conflict handler synchronously,
// inside the apply call, on the calling thread; they never outlive it. So the closures are not boxed or retained:
// they stay non-escaping, and SQLite's context pointer addresses a struct on the caller's stack for the duration of
// the call.

/// The closures of one apply, addressed by the context pointer.
private struct ApplyCallbacks {
    let filter: ((String) -> Bool)?
    let conflictHandler: (ChangesetConflict, ChangesetIteratorHandle) -> ChangesetConflictAction
}

/// The C trampoline of the table filter: a zero result skips the table's changes.
private func applyFilterTrampoline(_ context: UnsafeMutableRawPointer?, _ table: UnsafePointer<CChar>?) -> Int32 {
    guard let context, let table else { return 1 }
    let callbacks = context.assumingMemoryBound(to: ApplyCallbacks.self)
    guard let filter = callbacks.pointee.filter else { return 1 }
    return filter(String(cString: table)) ? 1 : 0
}

/// The C trampoline of the conflict handler. Without an iterator (which SQLite always passes) it aborts, the one
/// answer that can never apply a change the handler did not see.
private func applyConflictTrampoline(
    _ context: UnsafeMutableRawPointer?,
    _ conflict: Int32,
    _ iterator: OpaquePointer?
) -> Int32 {
    guard let context, let iterator else { return ChangesetConflictAction.abort.rawValue }
    let callbacks = context.assumingMemoryBound(to: ApplyCallbacks.self)
    return callbacks.pointee.conflictHandler(
        ChangesetConflict(rawValue: conflict),
        ChangesetIteratorHandle(rawValue: iterator)
    ).rawValue
}

extension ConnectionHandle {
    /// Applies `changeset` to the main schema with Swift closures for the table filter and the conflict handler,
    /// and returns the rebase data of the apply (`nil` when no conflict left any).
    ///
    /// - `filter` is called once per table with its name; `false` skips the table's changes. `nil` applies every
    ///   table.
    /// - `conflictHandler` is called for each change that cannot be applied as recorded, with the conflict type and
    ///   an iterator on the change (`operation()`, `oldValue`, `newValue`, `primaryKey`, and `conflictingValue` for
    ///   `.data` and `.conflict`). It answers `.omit`, `.replace` (only for `.data` and `.conflict`) or `.abort`.
    ///   The iterator is valid only during the call; never finalize it.
    ///
    /// Unless `flags` contains `.nosavepoint`, SQLite runs the apply in a savepoint of its own and rolls it back
    /// entirely when a handler answers `.abort` (the result is then `.abort`) or an error occurs.
    ///
    /// ```swift
    /// let (code, rebase) = connection.applyChangeset(bytes, filter: nil) { conflict, iterator in
    ///     conflict == .data ? .replace : .omit
    /// }
    /// ```
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_apply.html>
    public func applyChangeset(
        _ changeset: UnsafeRawBufferPointer,
        flags: ChangesetApplyFlags = [],
        filter: ((String) -> Bool)?,
        conflictHandler: (ChangesetConflict, ChangesetIteratorHandle) -> ChangesetConflictAction
    ) -> (code: ResultCode, rebase: SQLiteBuffer?) {
        withoutActuallyEscaping(conflictHandler) { conflictHandler in
            let apply = { (filter: ((String) -> Bool)?) -> (code: ResultCode, rebase: SQLiteBuffer?) in
                var callbacks = ApplyCallbacks(filter: filter, conflictHandler: conflictHandler)
                return withUnsafeMutablePointer(to: &callbacks) { pointer in
                    applyChangesetV2(
                        changeset,
                        filter: filter == nil ? nil : applyFilterTrampoline,
                        conflictHandler: applyConflictTrampoline,
                        context: UnsafeMutableRawPointer(pointer),
                        flags: flags
                    )
                }
            }
            guard let filter else { return apply(nil) }
            return withoutActuallyEscaping(filter) { apply($0) }
        }
    }
}
