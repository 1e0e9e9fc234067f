import Foundation
import SQLiteToolkit
import Testing

/// The samples of the Schema and migrations article (Sources/SQLiteToolkit/SQLiteToolkit.docc/
/// SchemaAndMigrations.md), line for line: `DocsSampleTests` checks that every line of its samples appears here.
@Suite("Docs: Schema and migrations")
struct DocsSchemaAndMigrationsTests {
    @Test("a migrator applies its migrations once, in order")
    func migrations() throws {
        let db = try Database()
        var migrator = DatabaseMigrator()  // records applied migrations in the table sqltk_migrations
        migrator.registerMigration(
            "create player", sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        migrator.registerMigration("add score") { db in
            try db.execute("ALTER TABLE player ADD COLUMN score INT NOT NULL DEFAULT 0")
        }
        try migrator.migrate(db)
        try migrator.migrate(db)  // nothing left to do
        #expect(try db.columns(in: "player").map(\.name) == ["id", "name", "score"])
        #expect(try db.tableExists("sqltk_migrations"))
    }

    @Test("one database per user: migrate, attach at sign-in, detach at sign-out")
    func databasePerUser() throws {
        try TemporaryFile.withDatabasePath { guestPath in
            try databasePerUser(guestPath: guestPath)
        }
    }

    func databasePerUser(guestPath: String) throws {
        let directory = URL(fileURLWithPath: guestPath).deletingLastPathComponent()  // removed with the guest file
        func userDatabasePath(for user: String) -> String {
            directory.appendingPathComponent("user-\(user).sqlite").path
        }

        // Every user database has the same schema, kept up to date by its own migrator.
        var userMigrator = DatabaseMigrator(tracking: .userVersion)
        userMigrator.registerMigration("note", sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")

        let db = try Database(path: guestPath)  // opened at launch, for as long as the app runs
        try db.execute("CREATE TABLE catalog (item TEXT)")
        try db.execute("INSERT INTO catalog VALUES ('tea'), ('maps')")

        func signIn(user: String) throws {
            let path = userDatabasePath(for: user)
            try userMigrator.migrate(Database(path: path))  // migrate on a connection of its own, closed at once
            try db.attach(path: path, as: "user")
        }

        func signOut() throws {
            try db.detach("user")  // fails while a statement still reads it: finish the cursors first
        }

        try signIn(user: "alice")
        try db.execute("INSERT INTO user.note (text) SELECT 'alice likes ' || item FROM catalog")
        try signOut()

        #expect(try !db.isAttached("user"))
        try signIn(user: "bob")
        #expect(try db.queryValue("SELECT count(*) FROM user.note", as: Int.self) == 0)
        try signOut()
        let alice = try Database(path: userDatabasePath(for: "alice"))
        #expect(
            try alice.query("SELECT text FROM note ORDER BY id").map { try $0.value(at: 0) as String } == [
                "alice likes tea", "alice likes maps",
            ])
    }

    @Test("incremental BLOB I/O: reserve, write, read back, move to another row")
    func blobs() throws {
        let db = try Database()
        try db.execute("CREATE TABLE file (id INTEGER PRIMARY KEY, content BLOB)")
        try db.execute("INSERT INTO file (content) VALUES (x'00')")
        let otherRowID = db.lastInsertRowID
        let byteCount = 8
        let chunk: [UInt8] = [1, 2, 3, 4]
        let offset = 2
        var buffer = [UInt8](repeating: 0, count: 4)

        try db.execute("INSERT INTO file (content) VALUES (zeroblob(?))", byteCount)  // reserve the space
        let blob = try db.openBlob(table: "file", column: "content", row: db.lastInsertRowID, writable: true)
        try blob.write(chunk, at: offset)
        try buffer.withUnsafeMutableBytes { try blob.read(into: $0, at: offset) }
        #expect(buffer == chunk)
        try blob.reopen(row: otherRowID)  // same column of another row
        #expect(try blob.read() == Data([0]))
        blob.close()
        #expect(try db.queryValue("SELECT hex(content) FROM file WHERE id = 2", as: String.self) == "0000010203040000")
    }
}
