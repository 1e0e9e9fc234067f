import CSQLiteToolkit

// The receivers of the session extension's generated wrappers. Like the other handles, none is Sendable: a session
// belongs to its connection, and the iterators, changegroups and rebasers are used where they were made.

/// A session that records the changes made to tables of one schema of a connection: SQLite's `sqlite3_session*`.
///
/// Related SQLite documentation: <https://sqlite.org/session/session.html>
public struct SessionHandle: RawRepresentable, Hashable {
    /// The `sqlite3_session*` pointer, for calling the C API directly.
    public var rawValue: OpaquePointer

    /// Wraps a `sqlite3_session*` pointer.
    @inlinable
    public init(rawValue: OpaquePointer) {
        self.rawValue = rawValue
    }
}

/// A cursor over the changes of a changeset, or the change in conflict inside a conflict handler:
/// SQLite's `sqlite3_changeset_iter*`.
///
/// Related SQLite documentation: <https://sqlite.org/session/changeset_iter.html>
public struct ChangesetIteratorHandle: RawRepresentable, Hashable {
    /// The `sqlite3_changeset_iter*` pointer, for calling the C API directly.
    public var rawValue: OpaquePointer

    /// Wraps a `sqlite3_changeset_iter*` pointer.
    @inlinable
    public init(rawValue: OpaquePointer) {
        self.rawValue = rawValue
    }
}

/// A set of changes being combined from several changesets into one: SQLite's `sqlite3_changegroup*`.
///
/// Related SQLite documentation: <https://sqlite.org/session/changegroup.html>
public struct ChangegroupHandle: RawRepresentable, Hashable {
    /// The `sqlite3_changegroup*` pointer, for calling the C API directly.
    public var rawValue: OpaquePointer

    /// Wraps a `sqlite3_changegroup*` pointer.
    @inlinable
    public init(rawValue: OpaquePointer) {
        self.rawValue = rawValue
    }
}

/// Rewrites local changesets so they apply on top of remote changes already applied: SQLite's
/// `sqlite3_rebaser*`.
///
/// Related SQLite documentation: <https://sqlite.org/session/rebaser.html>
public struct RebaserHandle: RawRepresentable, Hashable {
    /// The `sqlite3_rebaser*` pointer, for calling the C API directly.
    public var rawValue: OpaquePointer

    /// Wraps a `sqlite3_rebaser*` pointer.
    @inlinable
    public init(rawValue: OpaquePointer) {
        self.rawValue = rawValue
    }
}

/// The session extension's functions that act on changeset bytes alone (invert, concatenate) or on the extension
/// as a whole (configuration). Its members are static.
///
/// Related SQLite documentation: <https://sqlite.org/sessionintro.html>
public enum SessionExtension {}
