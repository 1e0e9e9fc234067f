import Dispatch
import Foundation
import SQLiteToolkit
import Testing

/// A pool's automatic checkpoints, observed from outside as SQLite's files show them. Before a checkpoint the
/// database file keeps its size, since every new page is in the WAL; a passive checkpoint copies pages into it, up to
/// the oldest snapshot a read still uses. The WAL file grows by one frame a page until the WAL restarts from its
/// beginning, which these tests never let happen while they count.
@Suite("Automatic WAL checkpoints of a pool")
struct WALCheckpointPolicyTests {
    /// The WAL size, in pages, at which the pool's writer checkpoints after a commit.
    static let threshold = 1000

    @Test("a commit that leaves the WAL at 1000 pages or more checkpoints it; smaller ones do not")
    func checkpointAtThreshold() throws {
        try withPoolFiles { pool, files in
            let before = files.databaseBytes
            // Stops at the first checkpoint, which a complete one follows with a restart of the WAL.
            try files.writePages(to: pool) { files.walFrames >= Self.threshold || files.databaseBytes != before }
            #expect(files.walFrames >= Self.threshold, "a checkpoint ran at \(files.walFrames) pages")
            // No read holds an older snapshot: the checkpoint copies every page, and the file is complete.
            let pageCount = try pool.read { db in try db.queryRequiredValue("PRAGMA page_count", as: Int.self) }
            #expect(files.databaseBytes == pageCount * files.pageSize)
            #expect(files.databaseBytes > before)
        }
    }

    @Test("while reads keep the WAL from restarting, the next checkpoint waits until 1000 more pages were written")
    func backOffWhileReadsPreventRestart() throws {
        try withPoolFiles { pool, files in
            try files.writePages(to: pool) { true }
            let before = files.databaseBytes
            // A read that holds a snapshot of the WAL: no checkpoint may copy pages written after it, so the WAL
            // cannot restart.
            let firstRead = try HeldRead(of: pool)
            try files.writePages(to: pool) { files.walFrames >= Self.threshold }
            // The commit that reached the threshold checkpointed, as far as the read allowed.
            let attempt = files.walFrames
            #expect(files.databaseBytes == firstRead.pageCount * files.pageSize)
            #expect(files.databaseBytes > before)
            try firstRead.end()

            // A newer read now keeps the WAL from restarting. A checkpoint could copy up to its snapshot, but the
            // next one waits until the WAL has grown by the threshold since the last attempt.
            let secondRead = try HeldRead(of: pool)
            let copied = files.databaseBytes
            try files.writePages(to: pool) {
                files.walFrames >= attempt + Self.threshold || files.databaseBytes != copied
            }
            #expect(
                files.walFrames >= attempt + Self.threshold,
                "a checkpoint ran at \(files.walFrames) pages, \(attempt) at the last")
            #expect(files.databaseBytes == secondRead.pageCount * files.pageSize)
            #expect(files.databaseBytes > copied)
            try secondRead.end()
        }
    }

    /// Runs `body` with a new pool on a temporary file, whose table `t` holds blobs.
    private func withPoolFiles(_ body: (DatabasePool, PoolFiles) throws -> Void) throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path)
            defer { pool.close() }
            try pool.write { db in try db.execute("CREATE TABLE t (x BLOB)") }
            let pageSize = try pool.read { db in try db.queryRequiredValue("PRAGMA page_size", as: Int.self) }
            try body(pool, PoolFiles(path: path, pageSize: pageSize))
        }
    }
}

/// The files of a pool's database, and a write that adds pages to it.
private struct PoolFiles {
    let path: String
    let pageSize: Int

    /// The size of the database file in bytes.
    var databaseBytes: Int { Self.size(path) }

    /// The number of frames (pages) in the WAL file: a 32-byte header, then frames of a 24-byte header and a page.
    var walFrames: Int { max(0, Self.size(path + "-wal") - 32) / (24 + pageSize) }

    /// Commits rows of 32 pages of new data (a few dozen pages in the WAL, each beyond the end of the database file),
    /// one a commit, until `done` holds after a commit; gives up after 200 commits, which is twice what the tests need.
    func writePages(to pool: DatabasePool, until done: () -> Bool) throws {
        for _ in 0..<200 {
            try pool.write { db in try db.execute("INSERT INTO t VALUES (randomblob(?))", 32 * pageSize) }
            if done() { return }
        }
        Issue.record("200 commits did not get the files where the test needed them")
    }

    private static func size(_ path: String) -> Int {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        return attributes?[.size] as? Int ?? 0
    }
}

/// A read on a thread of its own that holds its snapshot until ``end()``.
private final class HeldRead: Sendable {
    /// The size of the database, in pages, in the read's snapshot.
    let pageCount: Int
    private let release = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)

    /// Returns once the read has read, so it holds its snapshot.
    init(of pool: DatabasePool) throws {
        let started = DispatchSemaphore(value: 0)
        let pageCount = Locked<Result<Int, any Error>?>(nil)
        Thread { [release, ended] in
            do {
                try pool.read { db in
                    let count = Result { try db.queryRequiredValue("PRAGMA page_count", as: Int.self) }
                    pageCount.withLock { $0 = count }
                    started.signal()
                    _ = release.wait(timeout: .now() + 60)
                }
            } catch {
                pageCount.withLock { $0 = $0 ?? .failure(error) }
                started.signal()
            }
            ended.signal()
        }.start()
        try #require(wait(started))
        self.pageCount = try #require(pageCount.current).get()
    }

    /// Ends the read and waits until it has given its reader back.
    func end() throws {
        release.signal()
        try #require(wait(ended))
    }
}
