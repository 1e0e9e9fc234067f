import Foundation

/// Temporary database files for tests that need a real file: two connections on one database, read-only opens,
/// URI filenames, locks.
enum TemporaryFile {
    /// Calls `body` with the path of a database file that does not exist yet, in a new directory of its own, and
    /// removes the directory afterwards with everything SQLite left beside the file (`-wal`, `-shm`, `-journal`).
    ///
    /// Close the connections `body` opens before it returns (or let them go out of scope inside it).
    static func withDatabasePath<T>(_ body: (String) throws -> T) throws -> T {
        let directory = try newDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory.appendingPathComponent("test.sqlite").path)
    }

    /// ``withDatabasePath(_:)`` for async tests.
    static func withDatabasePathAsync<T>(_ body: (String) async throws -> T) async throws -> T {
        let directory = try newDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory.appendingPathComponent("test.sqlite").path)
    }

    private static func newDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("SQLiteToolkitTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Whether a file exists at `path`.
    static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
    }
}
