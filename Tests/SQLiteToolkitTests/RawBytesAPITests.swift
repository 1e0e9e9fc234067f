import SQLiteToolkit
import Testing

/// Text that is not UTF-8, bound and read as SQLite holds it: the bytes of a value, a column's name and an error
/// message, which a `String` holds with U+FFFD in place of each such byte.
@Suite("Text bytes that are not UTF-8")
struct RawBytesAPITests {
    @Test("bindText(bytes:at:) stores the bytes as TEXT; empty bytes are empty text, not NULL; a bad index throws")
    func bindTextBytes() throws {
        let db = try Database()
        let statement = try db.prepare("SELECT typeof(?1), hex(?1), length(CAST(?1 AS BLOB))")
        try statement.bindText(bytes: [0x63, 0x61, 0x66, 0xE9], at: 1)
        #expect(try statement.step())
        #expect(try statement.currentRow.value(at: 0, as: String.self) == "text")
        #expect(try statement.currentRow.value(at: 1, as: String.self) == "636166E9")
        try statement.reset()
        try statement.bindText(bytes: [], at: 1)
        #expect(try statement.step())
        #expect(try statement.currentRow.value(at: 0, as: String.self) == "text")
        #expect(try statement.currentRow.value(at: 2, as: Int.self) == 0)
        try statement.reset()
        #expect(throws: DatabaseError.self) { try statement.bindText(bytes: [0x61], at: 2) }
        #expect(throws: DatabaseError.self) { try statement.bindText(bytes: [0x61], at: Int(Int32.max) + 1) }
    }

    @Test("columnNameBytes(at:) and lastErrorMessageBytes keep a name's bytes that are not UTF-8")
    func nameAndMessageBytes() throws {
        let db = try Database()
        try db.executeScript(bytes: Array("CREATE TABLE \"caf".utf8) + [0xE9] + Array("\" (x);".utf8))
        let statement = try db.prepare(bytes: Array("SELECT 1 AS \"h".utf8) + [0xE9] + Array("\"".utf8))
        #expect(statement.columnNameBytes(at: 0) == [0x68, 0xE9])
        #expect(statement.columnNameBytes(at: 1) == nil)
        #expect(throws: DatabaseError.self) {
            try db.executeScript(bytes: Array("INSERT INTO \"caf".utf8) + [0xE9] + Array("\" VALUES (1, 2)".utf8))
        }
        let message = try #require(db.lastErrorMessageBytes)
        #expect(message.contains(0xE9))
        db.close()
        #expect(db.lastErrorMessageBytes == nil)
    }
}
