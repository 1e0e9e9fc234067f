extension Database {
    /// The first 16 bytes of every SQLite database file: "SQLite format 3" and a NUL.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fileformat.html#magic_header_string>
    static let headerMagic: [UInt8] = Array("SQLite format 3\u{0}".utf8)

    /// Throws ``DatabaseError/Reason/notADatabase`` when this connection, just opened on `path` (and set up),
    /// finds that the file is not a database: SQLite reads its header at the first statement, and otherwise only
    /// the first query would fail, with `SQLITE_NOTADB` and neither the path nor the cause. Nothing is checked for
    /// an in-memory or temporary database, a URI, a custom VFS, or an open with a key (the key's own check reads
    /// the file right after open); a new or empty file is a new database; any other error is left to the first
    /// query.
    ///
    /// Read through SQLite, never with a descriptor of our own: closing any descriptor of a file releases every
    /// POSIX lock the process holds on it, those of the other connections included, and another process that then
    /// finds no lock takes itself for the last connection of a WAL database and deletes its `-wal` and `-shm`
    /// under them.
    ///
    /// Related SQLite documentation: <https://sqlite.org/howtocorrupt.html#_posix_advisory_locks_canceled_by_a_separate_thread_doing_close_>
    func checkHeaderAfterOpen(configuration: Configuration) throws {
        guard configuration.checksHeaderAtOpen, configuration.key == nil, configuration.vfs == nil,
            !configuration.openFlags.contains(.memory), !path.isEmpty, path != ":memory:", !path.hasPrefix("file:")
        else { return }
        do {
            // Not cached: the connection's statement cache stays as its user left it.
            let statement = try prepare("PRAGMA schema_version")
            _ = try statement.step()
            // Its read transaction ends here; the statement itself goes with its last reference.
            try statement.reset()
        } catch let error as DatabaseError where error.code == .notadb {
            var error = DatabaseError(
                extendedCode: .notadb,
                message: "file is not a database: its first bytes are not SQLite's header "
                    + "(an encrypted database needs its key in Configuration.key)",
                reason: .notADatabase)
            error.path = path
            throw error
        } catch {
            return
        }
    }
}
