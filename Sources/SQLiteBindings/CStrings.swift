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
