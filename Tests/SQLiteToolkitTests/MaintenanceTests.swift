import Foundation
import SQLiteBindings
import SQLiteToolkit
import Testing

@Suite("Maintenance")
struct MaintenanceTests {
    private func fill(_ db: Database, rows: Int = 500) throws {
        try db.execute("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, payload TEXT)")
        try db.transaction { db in
            for row in 0..<rows { try db.execute("INSERT INTO t (payload) VALUES (printf('%0500d', ?))", row) }
        }
    }

    private func fileSize(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    @Test("VACUUM shrinks a file after deletes")
    func vacuum() throws {
        try TemporaryFile.withDatabasePath { path in
            let db = try Database(path: path)
            try fill(db)
            try db.execute("DELETE FROM t")
            let before = try fileSize(path)
            try db.vacuum()
            #expect(try fileSize(path) < before)
        }
    }

    @Test("VACUUM INTO writes a compact copy and leaves the database unchanged")
    func vacuumInto() throws {
        try TemporaryFile.withDatabasePath { path in
            let db = try Database()
            try fill(db, rows: 10)
            try db.vacuum(into: path)
            let copy = try Database(path: path)
            #expect(try copy.queryValue("SELECT count(*) FROM t", as: Int.self) == 10)
            #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 10)
            // The file now exists and is not empty: VACUUM INTO refuses it.
            #expect(throws: DatabaseError.self) { try db.vacuum(into: path) }
        }
    }

    @Test("incremental vacuum frees pages only in auto_vacuum = INCREMENTAL databases")
    func incrementalVacuum() throws {
        try TemporaryFile.withDatabasePath { path in
            let db = try Database(path: path)
            try db.execute("PRAGMA auto_vacuum = INCREMENTAL")
            try fill(db)
            try db.execute("DELETE FROM t")
            let free = try #require(try db.queryValue("PRAGMA freelist_count", as: Int.self))
            #expect(free > 10)
            try db.incrementalVacuum(pageCount: 5)
            #expect(try db.queryValue("PRAGMA freelist_count", as: Int.self) == free - 5)
            try db.incrementalVacuum()
            #expect(try db.queryValue("PRAGMA freelist_count", as: Int.self) == 0)
        }
    }

    @Test("checkpoints in every mode report WAL and checkpointed frame counts")
    func checkpointModes() throws {
        try TemporaryFile.withDatabasePath { path in
            let db = try Database(path: path)
            try db.setJournalMode(.wal)
            try db.execute("PRAGMA wal_autocheckpoint = 0")
            for mode in [CheckpointMode.passive, .full, .restart, .truncate] {
                try fill(db, rows: 20)
                let result = try db.checkpoint(mode)
                if mode == .truncate {
                    // The WAL file is emptied: it holds no frame any more.
                    #expect(result.walFrameCount == 0)
                } else {
                    #expect(result.walFrameCount > 0)
                    #expect(result.checkpointedFrameCount == result.walFrameCount)
                }
            }
            // After TRUNCATE the WAL file is empty.
            #expect(try fileSize(path + "-wal") == 0)
            #expect(
                try db.checkpoint(.passive, schema: "main")
                    == Database.CheckpointResult(walFrameCount: 0, checkpointedFrameCount: 0))
        }
    }

    @Test("a passive checkpoint cannot copy frames a reader still needs; a truncating one gives up busy")
    func checkpointWithReader() throws {
        try TemporaryFile.withDatabasePath { path in
            var configuration = Database.Configuration()
            configuration.busyMode = .immediateError
            let db = try Database(path: path, configuration: configuration)
            try db.setJournalMode(.wal)
            try db.execute("PRAGMA wal_autocheckpoint = 0")
            try fill(db, rows: 5)
            try db.checkpoint(.truncate)
            let reader = try Database(path: path)
            try reader.beginTransaction(.deferred)
            _ = try reader.queryValue("SELECT count(*) FROM t", as: Int.self)
            try fill(db, rows: 5)
            let passive = try db.checkpoint(.passive)
            #expect(passive.checkpointedFrameCount < passive.walFrameCount)
            #expect { try db.checkpoint(.truncate) } throws: { ResultCode.busy ~= $0 }
            try reader.rollback()
        }
    }

    @Test("a checkpoint of a database not in WAL mode reports -1 frames")
    func checkpointWithoutWAL() throws {
        let db = try Database()
        #expect(try db.checkpoint() == Database.CheckpointResult(walFrameCount: -1, checkpointedFrameCount: -1))
        #expect { try db.checkpoint(schema: "nowhere") } throws: {
            ($0 as? DatabaseError)?.reason == .noSuchSchema("nowhere")
        }
    }

    @Test("journal modes are set and read back; WAL on a memory database is refused")
    func journalModes() throws {
        try TemporaryFile.withDatabasePath { path in
            let db = try Database(path: path)
            #expect(try db.journalMode() == .delete)
            for mode in [Database.JournalMode.truncate, .persist, .memory, .delete, .wal, .delete] {
                try db.setJournalMode(mode)
                #expect(try db.journalMode() == mode)
            }
        }
        // A defensive connection (the default) refuses to turn the journal off.
        #expect { try Database().setJournalMode(.off) } throws: {
            ($0 as? DatabaseError)?.reason == .journalModeNotApplied(requested: "off", actual: "memory")
        }
        let memory = try Database()
        #expect(try memory.journalMode() == .memory)
        #expect { try memory.setJournalMode(.wal) } throws: {
            ($0 as? DatabaseError)?.reason == .journalModeNotApplied(requested: "wal", actual: "memory")
        }
    }

    @Test("synchronous levels round-trip", arguments: Database.SynchronousLevel.allCases)
    func synchronous(level: Database.SynchronousLevel) throws {
        let db = try Database()
        try db.setSynchronousLevel(level)
        #expect(try db.synchronousLevel() == level)
    }

    @Test("cache size in pages or KiB round-trips, and memory can be released")
    func cacheSize() throws {
        let db = try Database()
        #expect(try db.cacheSize() == .kibibytes(2000))
        try db.setCacheSize(.pages(500))
        #expect(try db.cacheSize() == .pages(500))
        try db.setCacheSize(.kibibytes(8192))
        #expect(try db.cacheSize() == .kibibytes(8192))
        try fill(db, rows: 200)
        try db.releaseMemory()
        #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 200)
    }

    @Test("maintenance calls on a closed connection throw connectionClosed")
    func closed() throws {
        let db = try Database()
        db.close()
        func isClosed(_ error: any Error) -> Bool { (error as? DatabaseError)?.reason == .connectionClosed }
        #expect { try db.releaseMemory() } throws: { isClosed($0) }
        #expect { try db.checkpoint() } throws: { isClosed($0) }
        #expect { try db.vacuum() } throws: { isClosed($0) }
        #expect { _ = try db.serialize() } throws: { isClosed($0) }
    }
}
