import Foundation
import SQLiteBindings
import Testing

@Suite("Connections: open, errors, state, configuration, files")
struct ConnectionTests {
    @Test("an in-memory database opens and closes")
    func openAndClose() throws {
        let (code, connection) = ConnectionHandle.open(path: ":memory:", flags: [.readwrite, .create], vfs: nil)
        #expect(code == .ok)
        let handle = try #require(connection)
        #expect(handle.close() == .ok)
    }

    @Test("a path in a missing directory fails with .cantopen, and the connection still reports why")
    func openBadPath() throws {
        let (code, connection) = ConnectionHandle.open(
            path: "/nonexistent-\(UUID().uuidString)/db.sqlite", flags: [.readwrite, .create], vfs: nil)
        #expect(code == .cantopen)
        let handle = try #require(connection)
        #expect(handle.errorCode() == .cantopen)
        #expect(handle.errorMessage() == "unable to open database file")
        #expect(handle.systemErrorNumber() != 0)
        #expect(handle.close() == .ok)
    }

    @Test("an unknown VFS fails the open with .error")
    func openUnknownVFS() throws {
        let (code, connection) = ConnectionHandle.open(
            path: ":memory:", flags: [.readwrite, .create], vfs: "no-such-vfs")
        #expect(code == .error)
        _ = connection?.close()
    }

    @Test("close reports .busy while a statement is unfinalized; closeV2 defers the close instead")
    func closeWithOpenStatement() throws {
        let (_, connection) = ConnectionHandle.open(path: ":memory:", flags: [.readwrite, .create], vfs: nil)
        let handle = try #require(connection)
        let (code, statement) = handle.prepare(sql: "SELECT 1", flags: [])
        #expect(code == .ok)
        let open = try #require(statement)
        #expect(handle.close() == .busy)
        #expect(handle.closeV2() == .ok)
        // The connection is a zombie now: finalizing its last statement closes it.
        #expect(open.finalize() == .ok)
    }

    @Test("changes, total changes and the last insert rowid follow the statements")
    func changesAndRowIDs() throws {
        let connection = try TestConnection()
        let handle = connection.handle
        try connection.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, x)")
        #expect(handle.lastInsertRowID() == 0)
        try connection.execute("INSERT INTO t(x) VALUES (1), (2), (3)")
        #expect(handle.changes() == 3)
        #expect(handle.lastInsertRowID() == 3)
        try connection.execute("UPDATE t SET x = 0 WHERE id > 1")
        #expect(handle.changes() == 2)
        #expect(handle.totalChanges() == 5)
        handle.setLastInsertRowID(42)
        #expect(handle.lastInsertRowID() == 42)
    }

    @Test("transaction state and autocommit follow BEGIN, reads, writes and COMMIT")
    func transactionState() throws {
        let connection = try TestConnection()
        let handle = connection.handle
        try connection.execute("CREATE TABLE t(x)")
        #expect(handle.isAutocommit())
        #expect(handle.transactionState(schema: nil) == TransactionState.none)
        try connection.execute("BEGIN")
        #expect(!handle.isAutocommit())
        #expect(handle.transactionState(schema: "main") == TransactionState.none)
        _ = try connection.int64("SELECT count(*) FROM t")
        #expect(handle.transactionState(schema: "main") == .read)
        try connection.execute("INSERT INTO t VALUES (1)")
        #expect(handle.transactionState(schema: "main") == .write)
        #expect(handle.transactionState(schema: nil) == .write)
        #expect(handle.transactionState(schema: "nope").rawValue == -1)
        try connection.execute("COMMIT")
        #expect(handle.isAutocommit())
    }

    @Test("setError sets the code and message the connection reports")
    func setError() throws {
        let connection = try TestConnection()
        #expect(connection.handle.setError(.constraint, message: "custom failure") == .ok)
        #expect(connection.handle.errorCode() == .constraint)
        #expect(connection.handle.errorMessage() == "custom failure")
        #expect(connection.handle.setError(.busy, message: nil) == .ok)
        #expect(connection.handle.errorMessage() == "database is locked")
    }

    @Test("an interrupt stops the running statement with .interrupt")
    func interrupt() throws {
        let connection = try TestConnection()
        let statement = try connection.prepare(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n")
        defer { _ = statement.finalize() }
        #expect(statement.step() == .row)
        #expect(!connection.handle.isInterrupted())
        connection.handle.interrupt()
        #expect(connection.handle.isInterrupted())
        var code = statement.step()
        while code == .row { code = statement.step() }
        #expect(code == .interrupt)
    }

    @Test("a limit reports its previous value, and a value over it fails with .toobig")
    func limits() throws {
        let connection = try TestConnection()
        let handle = connection.handle
        #expect(handle.limit(.length, -1) == 1_000_000_000)
        #expect(handle.limit(.length, 100) == 1_000_000_000)
        #expect(handle.limit(.length, -1) == 100)
        let statement = try connection.prepare("SELECT ?")
        defer { _ = statement.finalize() }
        #expect(statement.bindText(1, String(repeating: "x", count: 101)) == .toobig)
        #expect(statement.bindText(1, String(repeating: "x", count: 100)) == .ok)
    }

    @Test("db_config through the shim sets and reads foreign keys and defensive mode")
    func databaseConfiguration() throws {
        let connection = try TestConnection()
        let handle = connection.handle
        #expect(handle.configure(.enableFkey, -1) == (code: .ok, value: 0))
        #expect(handle.configure(.enableFkey, 1) == (code: .ok, value: 1))
        try connection.execute("CREATE TABLE parent(id INTEGER PRIMARY KEY); CREATE TABLE child(p REFERENCES parent)")
        #expect(throws: TestFailure.self) { try connection.execute("INSERT INTO child VALUES (7)") }
        #expect(handle.extendedErrorCode() == .constraintForeignkey)

        #expect(handle.configure(.defensive, 1) == (code: .ok, value: 1))
        #expect(handle.configure(.defensive, -1) == (code: .ok, value: 1))
        #expect(throws: TestFailure.self) {
            try connection.execute("PRAGMA writable_schema = ON; DELETE FROM sqlite_schema")
        }
    }

    @Test("the main schema can be renamed with a name the caller keeps alive")
    func mainDatabaseName() throws {
        let name = try #require(strdup("data"))
        defer { free(name) }
        do {
            let connection = try TestConnection()
            #expect(connection.handle.setMainDatabaseName(name) == .ok)
            #expect(connection.handle.databaseName(0) == "data")
            #expect(try connection.int64("SELECT count(*) FROM data.sqlite_schema") == 0)
        }
    }

    @Test("table column metadata describes a column, and reports .error for a missing one")
    func tableColumnMetadata() throws {
        let connection = try TestConnection()
        try connection.execute(
            "CREATE TABLE person(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL COLLATE NOCASE)")
        let id = connection.handle.tableColumnMetadata(schema: nil, table: "person", column: "id")
        #expect(id.code == .ok)
        #expect(id.declaredType == "INTEGER")
        #expect(id.collation == "BINARY")
        #expect(id.notNull == 0)
        #expect(id.primaryKey == 1)
        #expect(id.autoincrement == 1)
        let name = connection.handle.tableColumnMetadata(schema: "main", table: "person", column: "name")
        #expect(name.declaredType == "TEXT")
        #expect(name.collation == "NOCASE")
        #expect(name.notNull == 1)
        #expect(name.primaryKey == 0)
        #expect(connection.handle.tableColumnMetadata(schema: nil, table: "person", column: nil).code == .ok)
        #expect(connection.handle.tableColumnMetadata(schema: nil, table: "person", column: "age").code == .error)
        #expect(connection.handle.tableColumnMetadata(schema: nil, table: "nobody", column: nil).code == .error)
    }

    @Test("schemas report their names, read-only state and file names")
    func schemas() throws {
        let path = TemporaryDatabasePath()
        defer { path.remove() }
        let connection = try TestConnection(path: path.path)
        let handle = connection.handle
        #expect(handle.databaseName(0) == "main")
        #expect(handle.databaseName(1) == "temp")
        #expect(handle.databaseName(2) == nil)
        #expect(handle.readOnlyState("main") == 0)
        #expect(handle.readOnlyState("nope") == -1)
        #expect(handle.filename(schema: "main") == path.path)
        #expect(handle.filename(schema: nil) == path.path)
        #expect(handle.filename(schema: "nope") == nil)
        try connection.execute("ATTACH ':memory:' AS scratch")
        #expect(handle.filename(schema: "scratch") == "")

        let reader = try TestConnection(path: path.path, flags: [.readonly])
        #expect(reader.handle.readOnlyState("main") == 1)
    }

    @Test("status, cache flush and memory release answer on an open connection")
    func statusAndMemory() throws {
        let connection = try TestConnection()
        try connection.execute("CREATE TABLE t(x); INSERT INTO t VALUES (randomblob(5000))")
        let status = connection.handle.status(.cacheUsed, reset: false)
        #expect(status.code == .ok)
        #expect(status.current > 0)
        #expect(connection.handle.status(DatabaseStatusCounter(rawValue: 1000), reset: false).code == .error)
        #expect(connection.handle.flushCache() == .ok)
        #expect(connection.handle.releaseMemory() == .ok)
        #expect(connection.handle.setLockTimeout(milliseconds: 10, flags: 0) == .ok)
    }

    @Test("serialize and deserialize copy a database through memory")
    func serializeRoundTrip() throws {
        let source = try TestConnection()
        try source.execute("CREATE TABLE t(x); INSERT INTO t VALUES ('serialized')")
        let (bytes, size) = source.handle.serialize("main", flags: [])
        let image = try #require(bytes)
        defer { SQLiteLibrary.free(image) }
        #expect(size >= 512)
        #expect(source.handle.serialize("main", flags: .nocopy).value == nil)  // not held contiguously

        // The buffer passes to SQLite (freeonclose), so it must come from SQLite's allocator.
        let buffer = try #require(SQLiteLibrary.allocate(byteCount: UInt64(size)))
        buffer.copyMemory(from: image, byteCount: Int(size))
        let target = try TestConnection()
        let code = target.handle.deserialize(
            "main", data: buffer.assumingMemoryBound(to: UInt8.self), size: size, bufferSize: size,
            flags: [.freeonclose, .resizeable])
        #expect(code == .ok)
        #expect(try target.text("SELECT x FROM t") == "serialized")
        try target.execute("INSERT INTO t VALUES ('grown')")
        #expect(try target.int64("SELECT count(*) FROM t") == 2)
    }

    @Test("a WAL checkpoint reports the frames it copied")
    func walCheckpoint() throws {
        let path = TemporaryDatabasePath()
        defer { path.remove() }
        let connection = try TestConnection(path: path.path)
        #expect(try connection.text("PRAGMA journal_mode = WAL") == "wal")
        #expect(connection.handle.setAutocheckpoint(pageCount: 0) == .ok)
        try connection.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        let passive = connection.handle.checkpoint(schema: nil, mode: .passive)
        #expect(passive.code == .ok)
        #expect(passive.logFrameCount > 0)
        #expect(passive.checkpointedFrameCount == passive.logFrameCount)
        let truncate = connection.handle.checkpoint(schema: "main", mode: .truncate)
        #expect(truncate.code == .ok)
        #expect(truncate.logFrameCount == 0)
        #expect(connection.handle.checkpoint(schema: "nope", mode: .passive).code == .error)
    }

    @Test("an online backup copies one in-memory database into another")
    func backup() throws {
        let source = try TestConnection()
        try source.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)")
        let destination = try TestConnection()
        let backup = try #require(
            BackupHandle.start(
                destination: destination.handle, destinationSchema: "main", source: source.handle,
                sourceSchema: "main"))
        #expect(backup.step(pageCount: 1) == .ok)
        #expect(backup.pageCount() >= 2)
        #expect(backup.remaining() == backup.pageCount() - 1)
        #expect(backup.step(pageCount: -1) == .done)
        #expect(backup.remaining() == 0)
        #expect(backup.finish() == .ok)
        #expect(try destination.int64("SELECT sum(x) FROM t") == 6)

        let invalid = BackupHandle.start(
            destination: destination.handle, destinationSchema: "nope", source: source.handle, sourceSchema: "main")
        #expect(invalid == nil)
        #expect(destination.handle.errorMessage() == "unknown database nope")
    }

    @Test("a BLOB reads and writes incrementally, within its fixed size")
    func blobIO() throws {
        let connection = try TestConnection()
        try connection.execute("CREATE TABLE files(id INTEGER PRIMARY KEY, data BLOB)")
        try connection.execute("INSERT INTO files VALUES (1, zeroblob(8)), (2, x'0102030405')")
        let (code, opened) = BlobHandle.open(
            connection.handle, schema: "main", table: "files", column: "data", row: 1, writable: true)
        #expect(code == .ok)
        let blob = try #require(opened)
        #expect(blob.byteCount() == 8)
        let written: [UInt8] = [0xAA, 0xBB, 0xCC]
        #expect(blob.write(written, count: 3, offset: 2) == .ok)
        #expect(blob.write(written, count: 3, offset: 6) == .error)
        var read = [UInt8](repeating: 0xFF, count: 8)
        #expect(blob.read(into: &read, count: 8, offset: 0) == .ok)
        #expect(read == [0, 0, 0xAA, 0xBB, 0xCC, 0, 0, 0])
        #expect(blob.read(into: &read, count: 4, offset: 6) == .error)

        #expect(blob.reopen(row: 2) == .ok)
        #expect(blob.byteCount() == 5)
        var second = [UInt8](repeating: 0, count: 2)
        #expect(blob.read(into: &second, count: 2, offset: 3) == .ok)
        #expect(second == [4, 5])
        #expect(blob.close() == .ok)
        #expect(try connection.int64("SELECT hex(data) = '0000AABBCC000000' FROM files WHERE id = 1") == 1)

        let missing = BlobHandle.open(
            connection.handle, schema: "main", table: "files", column: "data", row: 99, writable: false)
        #expect(missing.code == .error)
        #expect(missing.blob == nil)
    }

    @Test("a snapshot lets a later read transaction see an older state of a WAL database")
    func snapshot() throws {
        let path = TemporaryDatabasePath()
        defer { path.remove() }
        let writer = try TestConnection(path: path.path)
        #expect(try writer.text("PRAGMA journal_mode = WAL") == "wal")
        try writer.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        let reader = try TestConnection(path: path.path)

        try reader.execute("BEGIN")
        #expect(try reader.int64("SELECT count(*) FROM t") == 1)
        let (code, taken) = SnapshotHandle.get(reader.handle, schema: "main")
        #expect(code == .ok)
        let old = try #require(taken)
        defer { old.free() }
        try reader.execute("COMMIT")

        try writer.execute("INSERT INTO t VALUES (2)")
        #expect(try reader.int64("SELECT count(*) FROM t") == 2)

        try reader.execute("BEGIN")
        #expect(old.open(reader.handle, schema: "main") == .ok)
        #expect(try reader.int64("SELECT count(*) FROM t") == 1)
        try reader.execute("COMMIT")

        try reader.execute("BEGIN")
        _ = try reader.int64("SELECT count(*) FROM t")
        let new = try #require(SnapshotHandle.get(reader.handle, schema: "main").snapshot)
        defer { new.free() }
        try reader.execute("COMMIT")
        #expect(old.compare(new) < 0)
        #expect(new.compare(old) > 0)
        #expect(old.compare(old) == 0)
        #expect(SnapshotHandle.recover(reader.handle, schema: "main") == .ok)
    }
}
