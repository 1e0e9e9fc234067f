import Foundation
import Testing

@testable import SQLiteToolkit

@Suite("WAL hygiene of a pool", .serialized, .timeLimit(.minutes(2)))
struct WALHygieneTests {
    /// About 3,000 pages of 4 KiB through 100 commits: three times the 1,000 pages at which the pool checkpoints.
    func writeTwelveMegabytes(_ pool: DatabasePool) throws {
        for _ in 0..<100 {
            try pool.write { db in
                for _ in 0..<30 { try db.execute("INSERT INTO t VALUES (randomblob(4000))") }
            }
        }
    }

    func hygiene(reports: Locked<[WALReport]>) -> WALHygiene {
        var hygiene = WALHygiene()
        hygiene.watermark = 8 << 20
        hygiene.idleTruncationDelay = nil
        hygiene.report = { report in reports.withLock { $0.append(report) } }
        return hygiene
    }

    @Test("a forgotten snapshot pins the WAL past the watermark, and the report names it with its age")
    func reportNamesSnapshot() throws {
        try TemporaryFile.withDatabasePath { path in
            let reports = Locked<[WALReport]>([])
            let pool = try DatabasePool(path: path, walHygiene: hygiene(reports: reports))
            defer { pool.close() }
            try pool.write { db in try db.execute("CREATE TABLE t (x BLOB)") }
            let snapshot = try pool.makeSnapshot(label: "forgotten snapshot")
            try writeTwelveMegabytes(pool)
            #expect(spinUntil { !reports.current.isEmpty })
            let report = try #require(reports.current.first)
            #expect(report.walBytes >= 8 << 20)
            #expect(report.watermark == 8 << 20)
            let holder = report.holders.first { $0.kind == .snapshot }
            #expect(holder?.label == "forgotten snapshot")
            #expect((holder?.age ?? 0) > 0)
            #expect(pool.walFileSize >= 8 << 20)
            snapshot.close()
        }
    }

    @Test("the same writes without a snapshot keep the WAL below the watermark: no report")
    func noReportWithoutPin() throws {
        try TemporaryFile.withDatabasePath { path in
            let reports = Locked<[WALReport]>([])
            let pool = try DatabasePool(path: path, walHygiene: hygiene(reports: reports))
            defer { pool.close() }
            try pool.write { db in try db.execute("CREATE TABLE t (x BLOB)") }
            try writeTwelveMegabytes(pool)
            // Reports are delivered on the pool's WAL queue: wait for any the writes sent.
            pool.walMonitor.waitForReports()
            #expect(reports.current.isEmpty)
            #expect(pool.walFileSize < 8 << 20)
        }
    }

    @Test("a snapshot made without a label is named by the file and line that made it; a read in progress is listed")
    func holders() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path)
            defer { pool.close() }
            try pool.write { db in try db.execute("CREATE TABLE t (x)") }
            let snapshot = try pool.makeSnapshot()
            defer { snapshot.close() }
            #expect(snapshot.label.hasPrefix("snapshot made at SQLiteToolkitTests/WALHygieneTests.swift:"))
            let during = try pool.read { _ in runOnThread(timeout: 20) { pool.walReadHolders() } }
            let listed = try #require(try during?.get())
            #expect(listed.contains { $0.kind == .read && $0.label == "read access" })
            #expect(listed.contains { $0.kind == .snapshot && $0.label == snapshot.label })
            #expect(!pool.walReadHolders().contains { $0.kind == .read })
        }
    }

    @Test("an idle pool truncates its WAL file to 0 bytes")
    func idleTruncation() throws {
        try TemporaryFile.withDatabasePath { path in
            var hygiene = WALHygiene()
            hygiene.idleTruncationDelay = 0.05
            let pool = try DatabasePool(path: path, walHygiene: hygiene)
            defer { pool.close() }
            try pool.write { db in try db.execute("CREATE TABLE t (x)") }
            for value in 0..<20 { try pool.write { db in try db.execute("INSERT INTO t VALUES (?)", value) } }
            #expect(FileManager.default.fileExists(atPath: path + "-wal"))
            #expect(spinUntil { pool.walFileSize == 0 })
            #expect(FileManager.default.fileExists(atPath: path + "-wal"))
            #expect(try pool.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 20)
        }
    }

    @Test("the writer's journal_size_limit defaults to 64 MiB, and a setting the pool cannot honour is refused")
    func settings() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path)
            defer { pool.close() }
            let limit = try pool.writeWithoutTransaction { db in
                try db.queryValue("PRAGMA journal_size_limit", as: Int.self)
            }
            #expect(limit == 64 << 20)
            var hygiene = WALHygiene()
            hygiene.watermark = 0
            let error = #expect(throws: DatabaseError.self) { try DatabasePool(path: path, walHygiene: hygiene) }
            #expect(error?.reason == .invalidPoolSetting("walHygiene.watermark"))
        }
    }
}
