import CSQLiteToolkit
import Testing

@Suite("Plain databases")
struct PlainDatabaseTests {
    @Test("the prefixed C API writes a standard SQLite 3 file without a key")
    func plainFileHasStandardFormat() throws {
        let path = temporaryDatabasePath()
        defer { removeDatabaseFiles(atPath: path) }
        let database = try TestDatabase(path: path)
        try database.execute("CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES ('plain text on disk')")
        try database.close()

        // Any SQLite reader, prefixed or not, recognises the file by its first
        // 16 bytes and finds the text stored as is.
        let bytes = try fileBytes(atPath: path)
        #expect(bytes.hasSQLiteHeader)
        #expect(bytes.contains("plain text on disk"))
        let reopened = try TestDatabase(path: path)
        #expect(try reopened.scalar("SELECT body FROM notes") == "plain text on disk")
    }
}
