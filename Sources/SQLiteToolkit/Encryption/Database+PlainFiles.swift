extension Database {
    // MARK: - Plain files

    /// Whether the file at `path` is a plain (unencrypted) SQLite database, read without a key: it starts with
    /// SQLite's header and its first page is a table page. An empty file counts as plain (SQLite opens it as an
    /// empty database). An encrypted file, including one whose header is left in plain text
    /// (`plaintextHeaderSize`), is not.
    ///
    /// - Throws: ``DatabaseError`` with `SQLITE_CANTOPEN` when the file cannot be opened, `SQLITE_IOERR` when it
    ///   cannot be read.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fileformat2.html#the_database_header>
    public static func isPlainDatabase(atPath path: String) throws -> Bool {
        let header = try header(atPath: path)
        return header.isEmpty || isPlainHeader(header)
    }

    /// The first 101 bytes of the file at `path` (fewer when it is shorter), read through a read-only SQLite
    /// connection of its own: closing a descriptor of ours would release every POSIX lock the process holds on the
    /// file, those of its open connections included, where SQLite keeps its descriptor open while another of the
    /// process's connections holds a lock on the file.
    static func header(atPath path: String) throws -> [UInt8] {
        // A relative name that starts with "file:" is a name, not a URI.
        let name = path.hasPrefix("file:") ? "./" + path : path
        let (code, connection) = ConnectionHandle.open(path: name, flags: [.readonly], vfs: nil)
        defer { _ = connection?.closeV2() }
        guard code == .ok, let connection else {
            throw DatabaseError(extendedCode: .cantopen, message: "cannot open \(path)")
        }
        guard let bytes = connection.filePrefix(schema: "main", count: 101) else {
            throw DatabaseError(extendedCode: .ioerr, message: "cannot read \(path)")
        }
        return bytes
    }

    /// Whether `bytes`, the start of a file, are those of a plain database.
    static func isPlainHeader(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == 101, bytes.starts(with: Array("SQLite format 3\u{0}".utf8)) else { return false }
        // Bytes 21...23 are fixed by the format (payload fractions 64, 32, 32); bytes 72...91 are reserved and
        // zero; byte 100 starts page 1's b-tree header, which is a table b-tree page (leaf 13 or interior 5) in every
        // plain database. A file that keeps only its first 32 bytes plain (SQLCipher's plaintext header) passes the
        // first checks; its bytes 72...91 are encrypted, so all twenty are zero once in 2^160 files, where byte 100
        // alone was 13 or 5 in 2 files of 256.
        guard bytes[21] == 64, bytes[22] == 32, bytes[23] == 32 else { return false }
        guard bytes[72..<92].allSatisfy({ $0 == 0 }) else { return false }
        return bytes[100] == 13 || bytes[100] == 5
    }
}
