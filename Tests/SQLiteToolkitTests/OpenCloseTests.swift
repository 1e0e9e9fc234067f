import Foundation
import SQLiteBindings
import SQLiteToolkit
import Testing

@Suite("Opening a database")
struct OpenTests {
    @Test("a file path creates the file, and a second connection sees the data")
    func filePathCreatesTheFile() throws {
        try TemporaryFile.withDatabasePath { path in
            #expect(!TemporaryFile.exists(path))
            let db = try Database(path: path)
            #expect(db.path == path)
            #expect(db.isOpen)
            try db.execute("CREATE TABLE t (x)")
            try db.execute("INSERT INTO t VALUES (?)", 1)
            #expect(TemporaryFile.exists(path))
            #expect(db.handle?.filename(schema: nil)?.hasSuffix("test.sqlite") == true)

            let other = try Database(path: path)
            #expect(try other.queryValue("SELECT x FROM t", as: Int.self) == 1)
            db.close()
            other.close()
        }
    }

    @Test("createsFile = false on a missing file fails with cantopen and creates nothing")
    func missingFileWithoutCreate() throws {
        try TemporaryFile.withDatabasePath { path in
            var configuration = Database.Configuration()
            configuration.createsFile = false
            let error = try #require(throws: DatabaseError.self) {
                try Database(path: path, configuration: configuration)
            }
            #expect(error.code == .cantopen)
            #expect(!TemporaryFile.exists(path))
        }
    }

    @Test("a failed open throws SQLite's code and message, names the path, and leaves no file behind")
    func failedOpenCarriesCodeMessageAndPath() throws {
        try TemporaryFile.withDatabasePath { path in
            let missing = path + "-missing-directory/test.sqlite"
            let error = try #require(throws: DatabaseError.self) { try Database(path: missing) }
            #expect(error.code == .cantopen)
            // The message is SQLite's own; the path is a field of its own, shown by the description.
            #expect(error.message == "unable to open database file")
            #expect(error.path == missing)
            #expect(error.description.contains(missing))
            #expect(!TemporaryFile.exists(missing))

            // Nothing stays open: the same path can be created and used once its directory exists.
            try FileManager.default.createDirectory(
                atPath: path + "-missing-directory", withIntermediateDirectories: false)
            let db = try Database(path: missing)
            try db.execute("CREATE TABLE t (x)")
            db.close()
        }
    }

    @Test("the empty path gives a private temporary database")
    func emptyPathIsTemporary() throws {
        let first = try Database(path: "")
        let second = try Database(path: "")
        #expect(first.path == "")
        // SQLite reports no file name for a temporary database: the file is its own and deleted on close.
        #expect(first.handle?.filename(schema: nil) == "")
        try first.execute("CREATE TABLE t (x)")
        try first.execute("INSERT INTO t VALUES (?)", 1)
        #expect(try first.queryValue("SELECT count(*) FROM t", as: Int.self) == 1)
        #expect(throws: DatabaseError.self) { try second.execute("SELECT * FROM t") }
        first.close()
        second.close()
    }

    @Test("the empty path gives a private temporary database, held in memory because SQLITE_TEMP_STORE=2")
    func emptyPathIsPrivateAndTemporary() throws {
        // SQLITE_TEMP_STORE=2 (sqltk_options.h) keeps every temporary database in memory, the empty path's
        // included, so no unencrypted temporary file is ever written; SQLite reports its journal as "memory".
        let first = try Database(path: "")
        let second = try Database(path: "")
        #expect(try first.queryValue("PRAGMA journal_mode", as: String.self) == "memory")
        try first.execute("CREATE TABLE t (x)")
        let error = try #require(throws: DatabaseError.self) { try second.execute("SELECT * FROM t") }
        #expect(error.message.contains("no such table"))
    }

    @Test("nil and \":memory:\" give private in-memory databases", arguments: [nil, ":memory:"] as [String?])
    func inMemoryDatabasesArePrivate(path: String?) throws {
        let first = try Database(path: path)
        let second = try Database(path: path)
        #expect(first.path == ":memory:")
        #expect(try first.queryValue("PRAGMA journal_mode", as: String.self) == "memory")
        try first.execute("CREATE TABLE t (x)")
        let error = try #require(throws: DatabaseError.self) { try second.execute("SELECT * FROM t") }
        #expect(error.message.contains("no such table"))
    }

    @Test("the URI file::memory: opens a private in-memory database")
    func memoryURI() throws {
        let first = try Database(path: "file::memory:")
        let second = try Database(path: "file::memory:")
        #expect(try first.queryValue("PRAGMA journal_mode", as: String.self) == "memory")
        try first.execute("CREATE TABLE t (x)")
        #expect(throws: DatabaseError.self) { try second.execute("SELECT * FROM t") }
    }

    @Test("a file: URI with mode=ro opens read-only: reads work, writes fail with readonly")
    func readOnlyURI() throws {
        try TemporaryFile.withDatabasePath { path in
            let writer = try Database(path: path)
            try writer.execute("CREATE TABLE t (x)")
            try writer.execute("INSERT INTO t VALUES (1)")
            writer.close()

            let uri = URL(fileURLWithPath: path).absoluteString + "?mode=ro"
            #expect(uri.hasPrefix("file:"))
            let reader = try Database(path: uri)
            #expect(try reader.queryValue("SELECT x FROM t", as: Int.self) == 1)
            let error = try #require(throws: DatabaseError.self) { try reader.execute("INSERT INTO t VALUES (2)") }
            #expect(error.code == .readonly)
            reader.close()
        }
    }

    @Test("isReadOnly opens an existing file read-only: writes fail with readonly")
    func readOnlyConfiguration() throws {
        try TemporaryFile.withDatabasePath { path in
            let writer = try Database(path: path)
            try writer.execute("CREATE TABLE t (x)")
            writer.close()

            var configuration = Database.Configuration()
            configuration.isReadOnly = true
            let reader = try Database(path: path, configuration: configuration)
            #expect(try reader.queryValue("SELECT count(*) FROM t", as: Int.self) == 0)
            let error = try #require(throws: DatabaseError.self) { try reader.execute("INSERT INTO t VALUES (1)") }
            #expect(error.code == .readonly)
            #expect(error.message.contains("readonly"))
            #expect(throws: DatabaseError.self) { try reader.execute("CREATE TABLE u (y)") }
            reader.close()
        }
    }

    @Test("isReadOnly on a missing file fails with cantopen and creates nothing")
    func readOnlyMissingFile() throws {
        try TemporaryFile.withDatabasePath { path in
            var configuration = Database.Configuration()
            configuration.isReadOnly = true
            let error = try #require(throws: DatabaseError.self) {
                try Database(path: path, configuration: configuration)
            }
            #expect(error.code == .cantopen)
            #expect(!TemporaryFile.exists(path))
        }
    }

    @Test("an unknown VFS name fails with SQLite's message")
    func unknownVFS() throws {
        var configuration = Database.Configuration()
        configuration.vfs = "no-such-vfs"
        let error = try #require(throws: DatabaseError.self) {
            try Database(path: ":memory:", configuration: configuration)
        }
        #expect(error.code == .error)
        #expect(error.message == "no such vfs: no-such-vfs")
        #expect(error.path == ":memory:")
    }

    @Test("a known VFS name opens")
    func knownVFS() throws {
        var configuration = Database.Configuration()
        configuration.vfs = "memdb"
        let db = try Database(path: "/private", configuration: configuration)
        try db.execute("CREATE TABLE t (x)")
        #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 0)
    }
}

@Suite("Closing a database")
struct CloseTests {
    @Test("close finalizes kept statements: using one afterwards throws misuse, never crashes")
    func closeFinalizesStatements() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        let insert = try db.prepare("INSERT INTO t VALUES (?)")
        try insert.execute(1)
        db.close()
        #expect(insert.isFinalized)
        let error = try #require(throws: DatabaseError.self) { try insert.execute(2) }
        #expect(error.code == .misuse)
        #expect(error.message.contains("closed"))
        #expect(throws: DatabaseError.self) { try insert.step() }
        #expect(throws: DatabaseError.self) { try insert.reset() }
        #expect(throws: DatabaseError.self) { try insert.clearBindings() }
        #expect(throws: DatabaseError.self) { try insert.query(3) }
    }

    @Test("close finalizes open cursors: next() then throws misuse every time, never crashes")
    func closeFinalizesCursors() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        try db.execute("INSERT INTO t VALUES (1), (2), (3)")
        let rows = try db.query("SELECT x FROM t ORDER BY x")
        #expect(try rows.next()?.value(at: 0, as: Int.self) == 1)
        let unstarted = try db.query("SELECT x FROM t")
        #expect(db.openCursors == 2)

        db.close()
        #expect(db.openCursors == 0)
        for _ in 0..<2 {
            let error = try #require(throws: DatabaseError.self) { try rows.next() }
            #expect(error.code == .misuse)
        }
        #expect(throws: DatabaseError.self) { try unstarted.next() }
        rows.close()
        unstarted.close()
        #expect(db.openCursors == 0)
    }

    @Test("a cursor and a statement that outlive their database throw misuse")
    func objectsOutlivingTheDatabase() throws {
        var db: Database? = try Database()
        try db?.execute("CREATE TABLE t (x)")
        try db?.execute("INSERT INTO t VALUES (1)")
        let rows = try #require(db).query("SELECT x FROM t")
        let statement = try #require(db).prepare("SELECT x FROM t")
        db = nil
        #expect(throws: DatabaseError.self) { try rows.next() }
        #expect(throws: DatabaseError.self) { try statement.step() }
    }

    @Test("close releases the file even while a statement prepared through the raw handle is unfinalized")
    func closeWithRawStatement() throws {
        try TemporaryFile.withDatabasePath { path in
            let db = try Database(path: path)
            try db.execute("CREATE TABLE t (x)")
            try db.beginTransaction(.immediate)
            try db.execute("INSERT INTO t VALUES (1)")
            let handle = try #require(db.handle)
            let raw = try #require(handle.prepare(sql: "SELECT x FROM t", flags: []).statement)
            db.close()
            #expect(!db.isOpen)
            // SQLite finishes closing when the last statement it still knows about is finalized.
            #expect(raw.finalize() == .ok)

            var configuration = Database.Configuration()
            configuration.busyMode = .immediateError
            let other = try Database(path: path, configuration: configuration)
            try other.beginTransaction(.immediate)  // the closed connection's write lock is gone
            #expect(try other.queryValue("SELECT count(*) FROM t", as: Int.self) == 0)  // and it was rolled back
            try other.rollback()
            other.close()
        }
    }

    @Test("closing twice is harmless")
    func closeTwice() throws {
        let db = try Database()
        db.close()
        db.close()
        #expect(!db.isOpen)
        #expect(db.handle == nil)
    }

    @Test("isOpen is true until close")
    func isOpen() throws {
        let db = try Database()
        #expect(db.isOpen)
        #expect(db.handle != nil)
        db.close()
        #expect(!db.isOpen)
    }

    @Test("every use after close throws a clear misuse error")
    func useAfterClose() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        db.close()

        let uses: [(String, () throws -> Void)] = [
            ("execute", { try db.execute("INSERT INTO t VALUES (1)") }),
            ("execute with arguments", { try db.execute("INSERT INTO t VALUES (?)", 1) }),
            ("executeScript", { try db.executeScript("SELECT 1; SELECT 2") }),
            ("query", { _ = try db.query("SELECT * FROM t") }),
            ("queryValue", { _ = try db.queryValue("SELECT 1", as: Int.self) }),
            ("prepare", { _ = try db.prepare("SELECT 1") }),
            ("beginTransaction", { try db.beginTransaction() }),
            ("commit", { try db.commit() }),
            ("transaction", { try db.transaction { _ in } }),
            ("savepoint", { try db.savepoint { _ in } }),
            ("setBusyMode", { try db.setBusyMode(.immediateError) }),
            ("trace", { try db.trace { _ in } }),
            ("setProgressHandler", { try db.setProgressHandler { false } }),
        ]
        for (name, use) in uses {
            do {
                try use()
                Issue.record("\(name) after close did not throw")
            } catch let error as DatabaseError {
                #expect(error.code == .misuse, "\(name)")
                #expect(error.message == "the database is closed", "\(name)")
            }
        }
        // Reads of state answer without throwing.
        #expect(!db.isInTransaction)
        #expect(db.lastInsertRowID == 0)
        #expect(db.changes == 0)
        #expect(db.totalChanges == 0)
        try db.rollback()  // nothing to roll back
    }

    @Test("openCursors counts the cursors that have not reached their end or been closed")
    func openCursorsCount() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        try db.execute("INSERT INTO t VALUES (1), (2)")
        #expect(db.openCursors == 0)
        let first = try db.query("SELECT x FROM t")
        let second = try db.query("SELECT x FROM t WHERE x > ?", 0)
        #expect(db.openCursors == 2)
        while try first.next() != nil {}
        #expect(db.openCursors == 1)
        #expect(!first.isOpen)
        second.close()
        #expect(db.openCursors == 0)
        do {
            let dropped = try db.query("SELECT x FROM t")
            _ = try dropped.next()
            #expect(db.openCursors == 1)
        }
        #expect(db.openCursors == 0)
    }
}

@Suite("Connection state")
struct ConnectionStateTests {
    @Test("lastInsertRowID, changes and totalChanges follow SQLite")
    func rowIDAndChanges() throws {
        let db = try Database()
        #expect(db.lastInsertRowID == 0)
        #expect(db.totalChanges == 0)
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, x)")
        try db.execute("INSERT INTO t (x) VALUES (?)", "a")
        #expect(db.lastInsertRowID == 1)
        #expect(db.changes == 1)
        try db.execute("INSERT INTO t (id, x) VALUES (41, 'b'), (42, 'c')")
        #expect(db.lastInsertRowID == 42)
        #expect(db.changes == 2)
        try db.execute("UPDATE t SET x = 'z' WHERE id > ?", 1)
        #expect(db.changes == 2)
        try db.execute("DELETE FROM t")
        #expect(db.changes == 3)
        #expect(db.totalChanges == 8)
        #expect(db.lastInsertRowID == 42)  // unchanged by UPDATE and DELETE
    }

    @Test("a failed insert leaves lastInsertRowID as it was")
    func failedInsertKeepsRowID() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, x NOT NULL)")
        try db.execute("INSERT INTO t (x) VALUES (1)")
        #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t (x) VALUES (NULL)") }
        #expect(db.lastInsertRowID == 1)
    }

    @Test("isInTransaction is read from SQLite: a raw BEGIN opens one and COMMIT ends it")
    func isInTransactionFollowsRawSQL() throws {
        let db = try Database()
        #expect(!db.isInTransaction)
        try db.execute("BEGIN")
        #expect(db.isInTransaction)
        try db.execute("COMMIT")
        #expect(!db.isInTransaction)
        try db.executeScript("BEGIN; CREATE TABLE t (x);")
        #expect(db.isInTransaction)
        try db.execute("ROLLBACK")
        #expect(!db.isInTransaction)
    }

    @Test("isInTransaction turns false when SQLite rolls back on its own (ON CONFLICT ROLLBACK)")
    func isInTransactionAfterAutomaticRollback() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x UNIQUE)")
        try db.execute("INSERT INTO t VALUES (1)")
        try db.execute("BEGIN")
        try db.execute("INSERT INTO t VALUES (2)")
        #expect(db.isInTransaction)
        let error = try #require(throws: DatabaseError.self) { try db.execute("INSERT OR ROLLBACK INTO t VALUES (1)") }
        #expect(error.extendedCode == .constraintUnique)
        #expect(!db.isInTransaction)
        #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 1)
        try db.rollback()  // nothing left to roll back: no error
    }
}
