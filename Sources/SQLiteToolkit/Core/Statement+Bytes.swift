import SQLiteBindings

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(ucrt)
    import ucrt
#endif

extension Statement {
    /// Binds `bytes` as TEXT to the parameter at `index` (1-based), as they are: SQLite stores the bytes it is
    /// given, so text that is not UTF-8 (a Latin-1 value from a dump) keeps them, where a `String` holds U+FFFD in
    /// place of each such byte. SQLite copies the bytes.
    ///
    /// - Throws: ``DatabaseError`` for a finalized statement, an index out of range, or a failed bind.
    public func bindText(bytes: [UInt8], at index: Int) throws {
        try checkUsable()
        guard let position = Int32(exactly: index) else {
            throw DatabaseError(
                extendedCode: .range, message: "parameter index \(index) is out of range", sql: sql)
        }
        // A copy SQLite frees with `free` when it no longer needs it (also when the bind fails); never empty, so
        // that empty text binds as empty text, not NULL.
        guard let copy = malloc(max(1, bytes.count)) else {
            throw DatabaseError(extendedCode: .nomem, message: "out of memory binding text", sql: sql)
        }
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress { copy.copyMemory(from: base, byteCount: bytes.count) }
        }
        let code = handle.bindText(
            position, copy.assumingMemoryBound(to: CChar.self), byteCount: UInt64(bytes.count), destructor: free)
        try check(bind: code, at: position, of: handle)
    }

    /// The bytes of the name of result column `index` (0-based) as SQLite holds them, for names that are not UTF-8;
    /// `nil` for an index out of range.
    public func columnNameBytes(at index: Int) -> [UInt8]? {
        guard !isFinalized, let position = Int32(exactly: index), position >= 0, position < columnCount else {
            return nil
        }
        return handle.columnNameBytes(position)
    }
}

extension Database {
    /// The bytes of SQLite's message for the connection's latest error, for messages that name something that is
    /// not UTF-8 (``DatabaseError/message`` holds U+FFFD for each such byte); `nil` on a closed connection.
    public var lastErrorMessageBytes: [UInt8]? {
        handle?.errorMessageBytes()
    }
}
