import Foundation

/// Temporary database files for tests that need a real file: two connections on one database, read-only opens,
/// URI filenames, locks.
enum TemporaryFile {
    /// Calls `body` with the path of a database file that does not exist yet, in a new directory of its own, and
    /// removes the directory afterwards with everything SQLite left beside the file (`-wal`, `-shm`, `-journal`).
    ///
    /// Close the connections `body` opens before it returns (or let them go out of scope inside it).
    static func withDatabasePath<T>(_ body: (String) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("SQLiteToolkitTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory.appendingPathComponent("test.sqlite").path)
    }

    /// Whether a file exists at `path`.
    static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
    }
}
