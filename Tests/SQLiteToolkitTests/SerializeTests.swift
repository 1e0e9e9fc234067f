import Foundation
import SQLiteBindings
import SQLiteToolkit
import Testing

@Suite("Serialize and deserialize")
struct SerializeTests {
    private func makeDatabase() throws -> Database {
        let db = try Database()
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
        try db.execute("INSERT INTO t (name) VALUES ('a'), ('b'), ('c')")
        return db
    }

    private func names(_ db: Database, schema: String = "main") throws -> [String] {
        try db.query("SELECT name FROM \(schema).t ORDER BY id").map { try $0.value(at: 0, as: String.self) }
    }

    @Test("a serialized database deserializes into another connection, writable and growing")
    func roundTrip() throws {
        let bytes = try makeDatabase().serialize()
        // A database file starts with its 16-byte header string; the test knows it independently of SQLite.
        #expect(bytes.prefix(16) == Data("SQLite format 3\0".utf8))
        let copy = try Database()
        try copy.deserialize(bytes)
        #expect(try names(copy) == ["a", "b", "c"])
        try copy.transaction { db in
            for index in 0..<1000 { try db.execute("INSERT INTO t (name) VALUES (?)", "row \(index)") }
        }
        #expect(try copy.queryValue("SELECT count(*) FROM t", as: Int.self) == 1003)
        #expect(try copy.serialize().count > bytes.count)
    }

    @Test("a read-only image can be read, not written")
    func readOnly() throws {
        let bytes = try makeDatabase().serialize()
        let copy = try Database()
        try copy.deserialize(Array(bytes), readOnly: true)
        #expect(try names(copy) == ["a", "b", "c"])
        #expect { try copy.execute("DELETE FROM t") } throws: { ResultCode.readonly ~= $0 }
    }

    @Test("an image deserialized into an attached schema sits beside main")
    func attachedSchema() throws {
        let bytes = try makeDatabase().serialize()
        let db = try Database()
        try db.attach(path: ":memory:", as: "snapshot")
        try db.deserialize(bytes, schema: "snapshot")
        #expect(try names(db, schema: "snapshot") == ["a", "b", "c"])
        #expect(try !db.tableExists("t"))
        #expect { try db.deserialize(bytes, schema: "nowhere") } throws: {
            ($0 as? DatabaseError)?.reason == .noSuchSchema("nowhere")
        }
    }

    @Test("no bytes deserialize to an empty database; a new database round-trips", arguments: [true, false])
    func empty(fromNewDatabase: Bool) throws {
        let bytes = fromNewDatabase ? try Database().serialize() : Data()
        let other = try makeDatabase()
        try other.deserialize(bytes)
        #expect(try other.schemaObjects().isEmpty)
        try other.execute("CREATE TABLE again (x)")
        #expect(try other.tableExists("again"))
    }

    @Test("a WAL database's image opens in memory")
    func walImage() throws {
        try TemporaryFile.withDatabasePath { path in
            let db = try Database(path: path)
            try db.setJournalMode(.wal)
            try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
            try db.execute("INSERT INTO t (name) VALUES ('wal')")
            let bytes = try db.serialize()
            let copy = try Database()
            try copy.deserialize(bytes)
            #expect(try names(copy) == ["wal"])
            try copy.execute("INSERT INTO t (name) VALUES ('more')")
            #expect(try copy.journalMode() == .memory)
        }
    }

    @Test("bytes that are not a database throw SQLITE_NOTADB and the connection keeps its data")
    func notADatabase() throws {
        let db = try makeDatabase()
        let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        #expect { try db.deserialize(garbage) } throws: { ($0 as? DatabaseError)?.code == .notadb }
        #expect(try names(db) == ["a", "b", "c"])
        try db.execute("INSERT INTO t (name) VALUES ('d')")
    }

    @Test("a damaged schema page throws SQLITE_CORRUPT and the connection keeps its data")
    func corrupt() throws {
        var bytes = try makeDatabase().serialize()
        // Keep the 100-byte file header, scramble the rest of page 1 (the b-tree page of sqlite_schema).
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        for index in 100..<min(pageSize, bytes.count) { bytes[index] = UInt8(truncatingIfNeeded: index &* 13) }
        let db = try makeDatabase()
        try db.execute("INSERT INTO t (name) VALUES ('mine')")
        #expect { try db.deserialize(bytes) } throws: { ($0 as? DatabaseError)?.code == .corrupt }
        #expect(try names(db) == ["a", "b", "c", "mine"])
    }

    @Test("deserializing inside a transaction fails and leaves the transaction usable")
    func insideTransaction() throws {
        let bytes = try makeDatabase().serialize()
        let db = try makeDatabase()
        try db.beginTransaction()
        try db.execute("INSERT INTO t (name) VALUES ('pending')")
        #expect(throws: DatabaseError.self) { try db.deserialize(bytes) }
        try db.commit()
        #expect(try names(db) == ["a", "b", "c", "pending"])
    }
}
