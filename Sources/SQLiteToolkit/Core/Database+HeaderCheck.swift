#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension Database {
    /// The first 16 bytes of every SQLite database file: "SQLite format 3" and a NUL.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fileformat.html#magic_header_string>
    static let headerMagic: [UInt8] = Array("SQLite format 3\u{0}".utf8)

    /// Throws ``DatabaseError/Reason/notADatabase`` when `path` names an existing, non-empty file whose first bytes
    /// are not SQLite's header. Without it, SQLite opens such a file and only the first query fails, with
    /// `SQLITE_NOTADB` and neither the path nor the cause. One `read` of 16 bytes; nothing is checked for a new or
    /// empty file, an in-memory or temporary database, a URI, a custom VFS, or an open with a key (the key's own
    /// check reads the file right after open).
    static func checkHeader(path: String, configuration: Configuration) throws {
        guard configuration.checksHeaderAtOpen, configuration.key == nil, configuration.vfs == nil,
            !configuration.openFlags.contains(.memory), !path.isEmpty, path != ":memory:", !path.hasPrefix("file:")
        else { return }
        // A file that does not exist (or cannot be read) is left to SQLite, which creates it or names the error.
        guard let header = firstBytes(of: path, count: headerMagic.count) else { return }
        // An empty file is a new database.
        guard !header.isEmpty, header != headerMagic else { return }
        var error = DatabaseError(
            extendedCode: .notadb,
            message: "file is not a database: its first bytes are not SQLite's header "
                + "(an encrypted database needs its key in Configuration.key)",
            reason: .notADatabase)
        error.path = path
        throw error
    }
}

/// Up to `count` bytes from the start of the file at `path`, in one `read`; `nil` when it cannot be opened or read.
private func firstBytes(of path: String, count: Int) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { return nil }
    defer { _ = close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: count)
    let byteCount = bytes.withUnsafeMutableBytes { buffer in read(descriptor, buffer.baseAddress, buffer.count) }
    guard byteCount >= 0 else { return nil }
    return Array(bytes.prefix(byteCount))
}
