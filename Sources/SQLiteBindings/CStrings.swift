import CSQLiteToolkit

/// Calls `body` with `string` as NUL-terminated UTF-8, or with `nil` when `string` is `nil`.
@inlinable
func withOptionalCString<Result>(
    _ string: String?,
    _ body: (UnsafePointer<CChar>?) throws -> Result
) rethrows -> Result {
    guard let string else { return try body(nil) }
    return try string.withCString(body)
}

/// A valid address for empty byte buffers: SQLite treats a NULL blob pointer as SQL NULL, so an empty
/// `UnsafeRawBufferPointer` (whose base address may be `nil`) is passed as this address with a length of 0.
/// It is never written or freed, so sharing it across threads is safe.
@usableFromInline
nonisolated(unsafe) let emptyBytes = UnsafeRawPointer(UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1))

/// Copies a message that SQLite allocated and handed over through a `char **` out-parameter (the `pzErrMsg` of
/// `sqlite3session_diff`, ...), then frees it with `sqlite3_free`; `nil` for a NULL pointer.
@usableFromInline
func takeSQLiteString(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
    guard let pointer else { return nil }
    defer { sqltk_sqlite3_free(pointer) }
    return String(cString: pointer)
}
