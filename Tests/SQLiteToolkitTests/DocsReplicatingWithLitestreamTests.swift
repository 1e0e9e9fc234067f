import Foundation
import SQLiteToolkit
import Testing

/// The samples of the Replicating with Litestream article (Sources/SQLiteToolkit/SQLiteToolkit.docc/
/// ReplicatingWithLitestream.md), line for line: `DocsSampleTests` checks that every line of its samples appears here.
/// The replication itself, with the real `litestream` binary, is `scripts/litestream-check`; these tests cover what
/// the toolkit does beside it without the binary.
@Suite("Docs: Replicating with Litestream")
struct DocsReplicatingWithLitestreamTests {
    /// The two tables Litestream 0.5.17 creates in a database it replicates, as `sqlite_schema` shows them after a
    /// run of `litestream replicate` (observed with the real binary; see the article).
    static let litestreamTables = """
        CREATE TABLE _litestream_seq (id INTEGER PRIMARY KEY, seq INTEGER);
        CREATE TABLE _litestream_lock (id INTEGER);
        """

    @Test("a pool is in WAL mode on every connection and its writer waits out another process's brief write lock")
    func poolMeetsLitestreamsNeeds() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path)  // WAL on every connection, and a 5-second busy timeout
            defer { pool.close() }
            try pool.write { db in try db.execute("CREATE TABLE note (body TEXT)") }
            #expect(try pool.write { db in try db.queryValue("PRAGMA journal_mode", as: String.self) } == "wal")
            #expect(try pool.read { db in try db.queryValue("PRAGMA journal_mode", as: String.self) } == "wal")

            // Litestream takes the write lock for a moment at a time; another connection stands in for it here.
            let other = try Database(path: path)
            defer { other.close() }
            try other.execute("BEGIN IMMEDIATE")
            let outcome = Locked<Result<Void, any Error>?>(nil)
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                let result = Result { try pool.write { db in try db.execute("INSERT INTO note VALUES ('waited')") } }
                outcome.withLock { $0 = result }
                done.signal()
            }
            #expect(done.wait(timeout: .now() + 0.3) == .timedOut, "the write waits while the lock is held")
            try other.execute("COMMIT")
            #expect(wait(done))
            #expect(throws: Never.self) { try outcome.current?.get() }
            #expect(try pool.read { db in try db.queryValue("SELECT body FROM note", as: String.self) } == "waited")
        }
    }

    @Test("encrypt(with:) refuses a replicated database and leaves it plain; an encrypted export works")
    func encryptingReplicatedDatabase() throws {
        try TemporaryFile.withDatabasePath { path in
            let encryptedCopyPath = path + ".encrypted"
            let key = TestKeys.raw
            do {
                let db = try Database(path: path)
                try db.execute("CREATE TABLE note (body TEXT)")
                try db.execute("INSERT INTO note (body) VALUES ('kept')")
                try db.executeScript(Self.litestreamTables)

                do {
                    try db.encrypt(with: key)
                } catch let error as DatabaseError where error.reason == .encryptingReplicatedDatabase {
                    try db.export(to: encryptedCopyPath, key: key)  // an encrypted copy, outside replication
                }
                #expect(try db.queryValue("SELECT body FROM note", as: String.self) == "kept")
            }
            #expect(try Database.isPlainDatabase(atPath: path))
            let copy = try openEncrypted(encryptedCopyPath, key: key, cipher: .default)
            #expect(try copy.queryValue("SELECT body FROM note", as: String.self) == "kept")
        }
    }

    @Test("encrypt(with:) still encrypts a database Litestream never opened")
    func encryptingPlainDatabase() throws {
        try TemporaryFile.withDatabasePath { path in
            let db = try Database(path: path)
            try db.execute("CREATE TABLE note (body TEXT)")
            try db.encrypt(with: TestKeys.raw)
            db.close()
            #expect(try !Database.isPlainDatabase(atPath: path))
        }
    }

    @Test("schemaObjects() lists Litestream's tables: they are ordinary tables, and a dump or a schema check sees them")
    func schemaObjectsListLitestreamTables() throws {
        let db = try Database()
        try db.execute("CREATE TABLE note (body TEXT)")
        try db.executeScript(Self.litestreamTables)
        #expect(try db.schemaObjects().map(\.name) == ["note", "_litestream_seq", "_litestream_lock"])
    }
}
