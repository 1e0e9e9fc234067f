import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The changes a ``Session`` recorded, as SQLite's compact binary changeset: a value to store, send to another
/// device, and apply there with ``Database/apply(_:filter:onConflict:)``.
///
/// ```swift
/// let session = try Session(database: phone)
/// try session.attachAll()
/// try phone.execute("UPDATE note SET body = ? WHERE id = ?", "Milk, eggs", 1)
/// let changeset = try session.changeset()
/// send(changeset.data)
///
/// // On the laptop:
/// try laptop.apply(Changeset(data: received)) { conflict in .replace }
/// ```
///
/// A changeset holds every change with its old values, so it can be ``inverted()`` (to undo it), combined with
/// others (``concatenated(with:)``, ``combined(_:)``), and read change by change (``changes()``). A patchset
/// (``Session/patchset()``) is smaller but cannot be inverted. The bytes hold the table names and values in plain
/// text, even when the database is encrypted: encrypt them yourself before they leave the device.
///
/// Related SQLite documentation: <https://sqlite.org/sessionintro.html>
public struct Changeset: Sendable, Hashable {
    /// The changeset's bytes, in SQLite's format.
    public var data: Data

    /// A changeset made of bytes in SQLite's format, received or stored earlier. They are checked when used: a
    /// corrupt or truncated changeset throws then.
    public init(data: Data) {
        self.data = data
    }

    /// Whether the changeset holds no change at all.
    public var isEmpty: Bool { data.isEmpty }

    /// What a conflict handler of ``Database/apply(_:filter:onConflict:)`` is told about one change that cannot
    /// be applied as recorded.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_apply.html>
    public struct Conflict: Sendable, Hashable {
        /// Why the change is in conflict: `.data` (the row's current values differ from the change's old values),
        /// `.notfound` (the row to update or delete is missing), `.conflict` (an insert meets an existing primary
        /// key), `.constraint` (a constraint fails), or `.foreignKey` (foreign keys are left violated).
        public var type: ChangesetConflict
        /// The incoming change; `nil` for `.foreignKey`, which concerns the changeset as a whole.
        public var change: ChangesetChange?
        /// The row already in the database, column by column, for `.data` and `.conflict`; `nil` otherwise.
        public var conflictingRow: [DatabaseValue]?
        /// For `.foreignKey`: the number of foreign key constraints left violated.
        public var foreignKeyConflicts: Int
    }

    /// The data SQLite returns from an apply to rebase local changes over the changes just applied: keep it, and
    /// pass it to `Changeset.rebased(over:)` for the local changeset before sending it.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/rebaser.html>
    public struct RebaseData: Sendable, Hashable {
        /// The bytes, in SQLite's format; empty when the apply resolved no conflict.
        public var data: Data

        /// Rebase data from bytes SQLite produced earlier.
        public init(data: Data) {
            self.data = data
        }
    }
}

/// One change of a changeset: an insert, update or delete of one row, with its values.
///
/// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_op.html>
public struct ChangesetChange: Sendable, Hashable {
    /// The table's name.
    public var table: String
    /// Insert, update or delete.
    public var operation: ChangesetOperation
    /// Whether the change was made indirectly (by a trigger, a foreign key action, or a session in indirect mode).
    public var isIndirect: Bool
    /// For each column of the table, whether it is part of the primary key.
    public var primaryKeyColumns: [Bool]
    /// The values before the change, one per column, for updates and deletes (empty for inserts). In an update,
    /// `nil` marks a column the update left unchanged (primary key columns are always present).
    public var oldValues: [DatabaseValue?]
    /// The values after the change, one per column, for inserts and updates (empty for deletes). In an update,
    /// `nil` marks a column the update left unchanged.
    public var newValues: [DatabaseValue?]
}

// MARK: - Reading

extension Changeset {
    /// Calls `body` with each change, in the changeset's order, without collecting them.
    ///
    /// - Throws: ``DatabaseError`` with reason ``DatabaseError/Reason/changesetCorrupt`` for malformed or truncated
    ///   bytes (the changes before the damage have been passed to `body`), or what `body` throws.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/changeset_iter.html>
    public func forEachChange(_ body: (ChangesetChange) throws -> Void) throws {
        try data.withUnsafeBytes { bytes in
            let (code, started) = ChangesetIteratorHandle.start(bytes)
            guard code == .ok, let iterator = started else { throw Changeset.error(code, doing: "read") }
            var failure = ResultCode.ok
            do {
                while true {
                    let step = iterator.next()
                    if step == .done { break }
                    guard step == .row else {
                        failure = step
                        break
                    }
                    try body(try ChangesetChange(iterator))
                }
            } catch {
                _ = iterator.finalize()
                throw error
            }
            let finalized = iterator.finalize()
            if failure != .ok { throw Changeset.error(failure, doing: "read") }
            if finalized != .ok { throw Changeset.error(finalized, doing: "read") }
        }
    }

    /// Every change, in the changeset's order.
    ///
    /// - Throws: ``DatabaseError`` with reason ``DatabaseError/Reason/changesetCorrupt`` for malformed or truncated
    ///   bytes.
    public func changes() throws -> [ChangesetChange] {
        var changes: [ChangesetChange] = []
        try forEachChange { changes.append($0) }
        return changes
    }

    /// The error of a failed call on changeset bytes: a typed reason for corrupt bytes, SQLite's code otherwise.
    static func error(_ code: ResultCode, doing action: String) -> DatabaseError {
        if code.primary == .corrupt {
            return DatabaseError(
                extendedCode: code, message: "cannot \(action) the changeset: its bytes are corrupt or truncated",
                reason: .changesetCorrupt)
        }
        return DatabaseError(extendedCode: code, message: "cannot \(action) the changeset: \(code.name ?? "\(code)")")
    }

    /// Bytes SQLite handed over, copied into `Data` (the buffer frees its memory when released).
    static func data(_ buffer: SQLiteBuffer?) -> Data {
        guard let buffer else { return Data() }
        return Data(buffer.bytes)
    }
}

extension ChangesetChange {
    /// Reads the change `iterator` is on.
    init(_ iterator: ChangesetIteratorHandle) throws {
        let (code, table, columnCount, operation, isIndirect) = iterator.operation()
        guard code == .ok, let table else { throw Changeset.error(code == .ok ? .corrupt : code, doing: "read") }
        let count = Int(max(columnCount, 0))
        let (keyCode, flags, keyCount) = iterator.primaryKey()
        guard keyCode == .ok else { throw Changeset.error(keyCode, doing: "read") }
        var primaryKeyColumns: [Bool] = []
        if let flags {
            primaryKeyColumns = (0..<Int(max(keyCount, 0))).map { flags[$0] != 0 }
        }
        self.table = table
        self.operation = operation
        self.isIndirect = isIndirect
        self.primaryKeyColumns = primaryKeyColumns
        self.oldValues = []
        self.newValues = []
        if operation != .insert {
            oldValues = try (0..<Int32(count)).map { try Self.value(iterator.oldValue($0)) }
        }
        if operation != .delete {
            newValues = try (0..<Int32(count)).map { try Self.value(iterator.newValue($0)) }
        }
    }

    /// A value out of an iterator accessor, `nil` for a column the change does not carry.
    static func value(_ result: (code: ResultCode, value: ValueHandle?)) throws -> DatabaseValue? {
        guard result.code == .ok else { throw Changeset.error(result.code, doing: "read") }
        return result.value.map(changesetValue)
    }
}

/// A SQLite value copied into a ``DatabaseValue``.
func changesetValue(_ value: ValueHandle) -> DatabaseValue {
    switch value.valueType() {
    case .integer: return .integer(value.valueInt64())
    case .float: return .real(value.valueDouble())
    case .text: return .text(value.valueString() ?? "")
    case .blob: return .blob(Data(value.valueData() ?? []))
    default: return .null
    }
}

// MARK: - Transforming

extension Changeset {
    /// The changeset that undoes this one: inserts become deletes, deletes become inserts, and updates swap their
    /// old and new values. Applying a changeset and then its inverse leaves the database as it was.
    ///
    /// - Throws: ``DatabaseError`` with reason ``DatabaseError/Reason/changesetCorrupt`` for malformed bytes or a
    ///   patchset, which lacks the old values an inverse needs.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_invert.html>
    public func inverted() throws -> Changeset {
        let (code, inverted) = data.withUnsafeBytes { SessionExtension.invert($0) }
        guard code == .ok else { throw Self.error(code, doing: "invert") }
        return Changeset(data: Self.data(inverted))
    }

    /// One changeset with the effect of applying this one and then `other`: changes to the same row are merged
    /// (an insert then an update becomes one insert; an insert then a delete, nothing).
    ///
    /// - Throws: ``DatabaseError`` for corrupt bytes, or when the two describe one table with different columns.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/changegroup.html>
    public func concatenated(with other: Changeset) throws -> Changeset {
        try Self.combined([self, other])
    }

    /// One changeset with the effect of applying `changesets` in order, combined through a changegroup.
    ///
    /// - Throws: ``DatabaseError`` for corrupt bytes, or when two describe one table with different columns.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/changegroup.html>
    public static func combined(_ changesets: [Changeset]) throws -> Changeset {
        let (code, created) = ChangegroupHandle.create()
        guard code == .ok, let group = created else { throw error(code, doing: "combine") }
        defer { group.delete() }
        for changeset in changesets {
            let added = changeset.data.withUnsafeBytes { group.add($0) }
            guard added == .ok else { throw error(added, doing: "combine") }
        }
        let (outputCode, output) = group.output()
        guard outputCode == .ok else { throw error(outputCode, doing: "combine") }
        return Changeset(data: data(output))
    }

    /// This local changeset rewritten to apply on top of remote changes that were applied here, so that the
    /// conflicts resolved then are resolved the same way wherever it goes next.
    ///
    /// The usual exchange: apply the remote changeset here, keeping its ``RebaseData``; rebase the changes made
    /// here since the last exchange over it; send the rebased changeset.
    ///
    /// - Throws: ``DatabaseError`` for corrupt bytes.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/rebaser.html>
    public func rebased(over rebaseData: RebaseData...) throws -> Changeset {
        try rebased(over: rebaseData)
    }

    /// This local changeset rewritten to apply on top of every remote changeset whose ``RebaseData`` is given.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/rebaser.html>
    public func rebased(over rebaseData: [RebaseData]) throws -> Changeset {
        let (code, created) = RebaserHandle.create()
        guard code == .ok, let rebaser = created else { throw Self.error(code, doing: "rebase") }
        defer { rebaser.delete() }
        for rebase in rebaseData {
            let configured = rebase.data.withUnsafeBytes { rebaser.configure($0) }
            guard configured == .ok else { throw Self.error(configured, doing: "rebase") }
        }
        let (rebaseCode, rebased) = data.withUnsafeBytes { rebaser.rebase($0) }
        guard rebaseCode == .ok else { throw Self.error(rebaseCode, doing: "rebase") }
        return Changeset(data: Self.data(rebased))
    }
}
