import CSQLiteToolkit

/// Bytes that SQLite allocated and handed over: a changeset, a patchset, or rebase data.
///
/// The buffer owns the memory and frees it with `sqlite3_free` when the last reference goes away. It is the one
/// place where the bindings free memory that a session, changeset, changegroup or rebaser function returned, so
/// none of it can leak or be freed twice.
///
/// ```swift
/// let (code, changeset) = session.changeset()
/// if code == .ok, let changeset {
///     send(Array(changeset.bytes))
/// }
/// ```
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/free.html>
public final class SQLiteBuffer {
    /// The bytes, valid as long as the buffer is alive.
    public let bytes: UnsafeRawBufferPointer

    /// Takes ownership of `count` bytes at `pointer`, which SQLite allocated; returns `nil` for a NULL pointer
    /// (an empty changeset). A negative count is read as 0.
    @inlinable
    public init?(taking pointer: UnsafeMutableRawPointer?, count: Int32) {
        guard let pointer else { return nil }
        self.bytes = UnsafeRawBufferPointer(start: pointer, count: Int(max(count, 0)))
    }

    deinit {
        sqltk_sqlite3_free(UnsafeMutableRawPointer(mutating: bytes.baseAddress))
    }

    /// The number of bytes.
    @inlinable
    public var count: Int { bytes.count }
}

@available(*, unavailable, message: "the buffer frees its memory when released; copy the bytes to share them")
extension SQLiteBuffer: Sendable {}
