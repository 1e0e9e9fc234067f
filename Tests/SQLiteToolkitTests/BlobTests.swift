import Foundation
import SQLiteBindings
import SQLiteToolkit
import Testing

@Suite("Incremental BLOB I/O")
struct BlobTests {
    /// A table `file (id, content)` with row 1 holding the bytes 0...99 and row 2 holding 10 bytes of 0xFF.
    private func makeDatabase() throws -> Database {
        let db = try Database()
        try db.execute("CREATE TABLE file (id INTEGER PRIMARY KEY, content BLOB, note TEXT)")
        try db.execute("INSERT INTO file (id, content, note) VALUES (1, ?, 'hello')", Data((0..<100).map { UInt8($0) }))
        try db.execute("INSERT INTO file (id, content) VALUES (2, ?)", Data(repeating: 0xFF, count: 10))
        return db
    }

    private func isOutOfBounds(_ error: any Error) -> Bool {
        guard case .blobOutOfBounds = (error as? DatabaseError)?.reason else { return false }
        return true
    }

    @Test("read at offsets, into a buffer and as Data")
    func read() throws {
        let db = try makeDatabase()
        let blob = try db.openBlob(table: "file", column: "content", row: 1)
        #expect(blob.count == 100)
        #expect(try blob.read(at: 10, count: 3) == Data([10, 11, 12]))
        #expect(try blob.read(at: 98) == Data([98, 99]))
        #expect(try blob.read(at: 100) == Data())
        var buffer = [UInt8](repeating: 0, count: 4)
        try buffer.withUnsafeMutableBytes { try blob.read(into: $0, at: 96) }
        #expect(buffer == [96, 97, 98, 99])
    }

    @Test(
        "reads and writes past the end or at negative offsets throw blobOutOfBounds",
        arguments: [(99, 2), (100, 1), (-1, 1), (0, 101), (Int.max, 1), (1, Int.max)])
    func outOfBounds(offset: Int, count: Int) throws {
        let db = try makeDatabase()
        let blob = try db.openBlob(table: "file", column: "content", row: 1, writable: true)
        #expect { _ = try blob.read(at: offset, count: count) } throws: { isOutOfBounds($0) }
        if count < 1000 {
            let bytes = [UInt8](repeating: 7, count: count)
            #expect { try blob.write(bytes, at: offset) } throws: { isOutOfBounds($0) }
        }
        // Nothing changed, and the blob stays usable.
        #expect(try blob.read(at: 0, count: 2) == Data([0, 1]))
    }

    @Test("writes change bytes in place; the size stays the same")
    func write() throws {
        let db = try makeDatabase()
        let blob = try db.openBlob(table: "file", column: "content", row: 1, writable: true)
        try blob.write([0xAA, 0xBB], at: 50)
        try blob.write(Data([0xCC]), at: 99)
        blob.close()
        let stored = try #require(try db.queryValue("SELECT content FROM file WHERE id = 1", as: Data.self))
        #expect(stored.count == 100)
        #expect(stored[50] == 0xAA && stored[51] == 0xBB && stored[99] == 0xCC && stored[49] == 49)
    }

    @Test("a zeroblob reserves space that is then filled chunk by chunk")
    func zeroblobThenChunks() throws {
        let db = try makeDatabase()
        try db.execute("INSERT INTO file (id, content) VALUES (3, zeroblob(?))", 1000)
        let blob = try db.openBlob(table: "file", column: "content", row: 3, writable: true)
        for chunk in 0..<10 { try blob.write([UInt8](repeating: UInt8(chunk), count: 100), at: chunk * 100) }
        #expect(try blob.read(at: 450, count: 1) == Data([4]))
        #expect(try blob.read().count == 1000)
    }

    @Test("writing a read-only blob fails with SQLITE_READONLY")
    func readOnlyBlob() throws {
        let db = try makeDatabase()
        let blob = try db.openBlob(table: "file", column: "content", row: 1)
        #expect { try blob.write([1], at: 0) } throws: { ResultCode.readonly ~= $0 }
    }

    @Test("reopen moves to another row, and a missing row closes the blob")
    func reopen() throws {
        let db = try makeDatabase()
        let blob = try db.openBlob(table: "file", column: "content", row: 1)
        try blob.reopen(row: 2)
        #expect(blob.row == 2)
        #expect(blob.count == 10)
        #expect(try blob.read(at: 9, count: 1) == Data([0xFF]))
        #expect(throws: DatabaseError.self) { try blob.reopen(row: 42) }
        #expect(blob.handle == nil)
        #expect { _ = try blob.read(at: 0, count: 1) } throws: { ($0 as? DatabaseError)?.reason == .blobClosed }
    }

    @Test("opening a missing row, column or table, or a NULL value, throws")
    func openErrors() throws {
        let db = try makeDatabase()
        #expect(throws: DatabaseError.self) { try db.openBlob(table: "file", column: "content", row: 42) }
        #expect(throws: DatabaseError.self) { try db.openBlob(table: "file", column: "nothing", row: 1) }
        #expect(throws: DatabaseError.self) { try db.openBlob(table: "nothing", column: "content", row: 1) }
        #expect(throws: DatabaseError.self) { try db.openBlob(table: "file", column: "note", row: 2) }  // NULL
        #expect(try db.openBlob(table: "file", column: "note", row: 1).read() == Data("hello".utf8))
    }

    @Test("a row changed behind the blob makes reads fail with SQLITE_ABORT")
    func changedRow() throws {
        let db = try makeDatabase()
        let blob = try db.openBlob(table: "file", column: "content", row: 1)
        try db.execute("UPDATE file SET content = x'00' WHERE id = 1")
        #expect { _ = try blob.read(at: 0, count: 1) } throws: { ResultCode.abort ~= $0 }
    }

    @Test("after the connection closes, the blob throws connectionClosed and releases cleanly")
    func closedConnection() throws {
        let db = try makeDatabase()
        let blob = try db.openBlob(table: "file", column: "content", row: 1)
        db.close()
        #expect { _ = try blob.read(at: 0, count: 1) } throws: { ($0 as? DatabaseError)?.reason == .connectionClosed }
        blob.close()
        blob.close()
        #expect { try db.openBlob(table: "file", column: "content", row: 1) } throws: {
            ($0 as? DatabaseError)?.reason == .connectionClosed
        }
    }
}
