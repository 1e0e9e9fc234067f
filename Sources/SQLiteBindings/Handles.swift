import CSQLiteToolkit

// The receivers of the generated wrappers: one small struct per C object, holding its raw pointer.
// None is Sendable: a SQLite object belongs to the connection that made it, and the layer above decides
// which thread may use that connection.

/// A database connection: SQLite's `sqlite3*`.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/sqlite3.html>
public struct ConnectionHandle: RawRepresentable, Hashable {
    /// The `sqlite3*` pointer, for calling the C API directly.
    public var rawValue: OpaquePointer

    /// Wraps a `sqlite3*` pointer.
    @inlinable
    public init(rawValue: OpaquePointer) {
        self.rawValue = rawValue
    }
}

/// A prepared statement: SQLite's `sqlite3_stmt*`.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/stmt.html>
public struct StatementHandle: RawRepresentable, Hashable {
    /// The `sqlite3_stmt*` pointer, for calling the C API directly.
    public var rawValue: OpaquePointer

    /// Wraps a `sqlite3_stmt*` pointer.
    @inlinable
    public init(rawValue: OpaquePointer) {
        self.rawValue = rawValue
    }
}

/// A dynamically typed value: SQLite's `sqlite3_value*`, as custom functions receive their arguments.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/value.html>
public struct ValueHandle: RawRepresentable, Hashable {
    /// The `sqlite3_value*` pointer, for calling the C API directly.
    public var rawValue: OpaquePointer

    /// Wraps a `sqlite3_value*` pointer.
    @inlinable
    public init(rawValue: OpaquePointer) {
        self.rawValue = rawValue
    }
}

/// The context of one call of a custom SQL function: SQLite's `sqlite3_context*`, through which the function
/// sets its result.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/context.html>
public struct FunctionContext: RawRepresentable, Hashable {
    /// The `sqlite3_context*` pointer, for calling the C API directly.
    public var rawValue: OpaquePointer

    /// Wraps a `sqlite3_context*` pointer.
    @inlinable
    public init(rawValue: OpaquePointer) {
        self.rawValue = rawValue
    }
}

/// An online backup in progress: SQLite's `sqlite3_backup*`.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/backup.html>
public struct BackupHandle: RawRepresentable, Hashable {
    /// The `sqlite3_backup*` pointer, for calling the C API directly.
    public var rawValue: OpaquePointer

    /// Wraps a `sqlite3_backup*` pointer.
    @inlinable
    public init(rawValue: OpaquePointer) {
        self.rawValue = rawValue
    }
}

/// An open BLOB for incremental I/O: SQLite's `sqlite3_blob*`.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/blob.html>
public struct BlobHandle: RawRepresentable, Hashable {
    /// The `sqlite3_blob*` pointer, for calling the C API directly.
    public var rawValue: OpaquePointer

    /// Wraps a `sqlite3_blob*` pointer.
    @inlinable
    public init(rawValue: OpaquePointer) {
        self.rawValue = rawValue
    }
}

/// A recorded state of a WAL database that later read transactions can open: SQLite's `sqlite3_snapshot*`.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/snapshot.html>
public struct SnapshotHandle: RawRepresentable, Hashable {
    /// The `sqlite3_snapshot*` pointer, for calling the C API directly.
    public var rawValue: UnsafeMutablePointer<sqltk_sqlite3_snapshot>

    /// Wraps a `sqlite3_snapshot*` pointer.
    @inlinable
    public init(rawValue: UnsafeMutablePointer<sqltk_sqlite3_snapshot>) {
        self.rawValue = rawValue
    }
}

/// The library as a whole: version, compile options, memory, and global configuration. Its members are static.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/libversion.html>
public enum SQLiteLibrary {}
