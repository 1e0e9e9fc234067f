import SQLiteBindings
import SQLiteToolkit
import Testing

@Suite("Online backup")
struct BackupTests {
    /// A database with `rows` rows of about 200 bytes, so it spans many pages.
    private func makeSource(_ path: String? = nil, rows: Int = 2000) throws -> Database {
        let db = try Database(path: path)
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, payload TEXT)")
        try db.transaction { db in
            for row in 0..<rows { try db.execute("INSERT INTO t (payload) VALUES (printf('%0200d', ?))", row) }
        }
        return db
    }

    private func count(_ db: Database) throws -> Int? {
        try db.queryValue("SELECT count(*) FROM t", as: Int.self)
    }

    @Test("a backup to another connection copies everything, reporting progress step by step")
    func backupWithProgress() throws {
        let source = try makeSource()
        let destination = try Database()
        var reports: [Database.BackupProgress] = []
        try source.backup(to: destination, pagesPerStep: 5) { progress in
            reports.append(progress)
            return .proceed
        }
        #expect(try count(destination) == 2000)
        #expect(reports.count > 2)
        #expect(reports.last?.isComplete == true)
        let total = try #require(reports.first?.totalPageCount)
        #expect(reports.allSatisfy { $0.totalPageCount == total })
        #expect(reports.first?.copiedPageCount == 5)
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.remainingPageCount > $1.remainingPageCount })
        #expect(try destination.integrityCheck().isOK)
    }

    @Test("cancelling from the progress closure throws backupCancelled and leaves the destination as it was")
    func cancel() throws {
        let source = try makeSource()
        try TemporaryFile.withDatabasePath { path in
            let destination = try Database(path: path)
            try destination.execute("CREATE TABLE kept (x)")
            var steps = 0
            #expect {
                try source.backup(to: destination, pagesPerStep: 2) { _ in
                    steps += 1
                    return steps == 3 ? .cancel : .proceed
                }
            } throws: { ($0 as? DatabaseError)?.reason == .backupCancelled }
            #expect(steps == 3)
            #expect(try destination.tableExists("kept"))
            #expect(try !destination.tableExists("t"))
            #expect(try count(source) == 2000)
        }
    }

    @Test("an error thrown by the progress closure stops the backup and is rethrown")
    func throwingProgress() throws {
        struct Stop: Error {}
        let source = try makeSource()
        let destination = try Database()
        #expect(throws: Stop.self) {
            try source.backup(to: destination, pagesPerStep: 1) { _ in throw Stop() }
        }
        #expect(try !destination.tableExists("t"))
    }

    @Test("a progress closure that closes the destination stops the backup with connectionClosed")
    func closeDuringBackup() throws {
        let source = try makeSource()
        let destination = try Database()
        #expect {
            try source.backup(to: destination, pagesPerStep: 1) { _ in
                destination.close()
                return .proceed
            }
        } throws: { ($0 as? DatabaseError)?.reason == .connectionClosed }
        // SQLite forbids closing the destination during the backup: the close happened after it.
        #expect(!destination.isOpen)
        #expect(try count(source) == 2000)
    }

    @Test("the destination cannot be used during the backup; the source can")
    func useDuringBackup() throws {
        let source = try makeSource()
        let destination = try Database()
        var steps = 0
        try source.backup(to: destination, pagesPerStep: 10) { _ throws -> Database.BackupDecision in
            steps += 1
            #expect {
                _ = try destination.queryValue("SELECT 1", as: Int.self)
            } throws: { ($0 as? DatabaseError)?.reason == .backupInProgress }
            #expect(try self.count(source) == 2000)
            return .proceed
        }
        #expect(steps > 1)
        #expect(try count(destination) == 2000)
    }

    @Test("closing the source during the backup stops it; the source's handle stays valid until the end")
    func closeSourceDuringBackup() throws {
        let source = try makeSource()
        let destination = try Database()
        try destination.execute("CREATE TABLE kept (x)")
        #expect {
            try source.backup(to: destination, pagesPerStep: 1) { _ in
                source.close()
                return .proceed
            }
        } throws: { ($0 as? DatabaseError)?.reason == .connectionClosed }
        #expect(try destination.tableExists("kept"))
    }

    @Test("a backup while another connection writes the source ends with a consistent copy")
    func backupWhileAnotherConnectionWrites() throws {
        try TemporaryFile.withDatabasePath { path in
            let source = try makeSource(path)
            try source.setJournalMode(.wal)
            let writer = try Database(path: path)
            let destination = try Database()
            var writes = 0
            try source.backup(to: destination, pagesPerStep: 10) { _ in
                // SQLite restarts the copy after a write through another connection: stop writing after a few.
                if writes < 3 {
                    try writer.execute("INSERT INTO t (payload) VALUES ('written during the backup')")
                    writes += 1
                }
                return .proceed
            }
            #expect(writes == 3)
            #expect(try count(destination) == 2003)
            #expect(try destination.integrityCheck().isOK)
        }
    }

    @Test("a backup to a file path, then read back")
    func backupToPath() throws {
        let source = try makeSource(rows: 10)
        try TemporaryFile.withDatabasePath { path in
            try source.backup(toPath: path)
            let copy = try Database(path: path)
            #expect(try count(copy) == 10)
        }
    }

    @Test("a backup onto a destination inside a transaction fails with SQLite's error")
    func destinationBusy() throws {
        let source = try makeSource(rows: 10)
        let destination = try Database()
        try destination.execute("CREATE TABLE x (y)")
        try destination.beginTransaction()
        try destination.execute("INSERT INTO x VALUES (1)")
        #expect(throws: DatabaseError.self) { try source.backup(to: destination) }
        try destination.rollback()
    }

    @Test("a backup from a closed connection throws connectionClosed")
    func closedSource() throws {
        let source = try makeSource(rows: 1)
        source.close()
        #expect {
            try source.backup(to: try Database())
        } throws: { ($0 as? DatabaseError)?.reason == .connectionClosed }
    }
}
