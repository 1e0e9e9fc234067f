import Foundation
import SQLiteBindings
import SQLiteToolkit
import Testing

@Suite("Attached databases")
struct AttachTests {
    @Test("attach, query across databases, list, detach")
    func attachAndDetach() throws {
        try TemporaryFile.withDatabasePath { path in
            let other = try Database(path: path)
            try other.execute("CREATE TABLE note (text TEXT)")
            try other.execute("INSERT INTO note VALUES ('from the other file')")
            other.close()

            let db = try Database()
            try db.execute("CREATE TABLE draft (text TEXT)")
            try db.execute("INSERT INTO draft VALUES ('from main')")
            try db.attach(path: path, as: "other")
            #expect(try db.isAttached("OTHER"))
            let databases = try db.attachedDatabases()
            #expect(databases.map(\.name) == ["main", "other"])
            #expect(databases.last?.path.hasSuffix("test.sqlite") == true)
            #expect(try db.tableExists("note", in: "other"))
            #expect(try !db.tableExists("note"))
            try db.execute("INSERT INTO other.note SELECT text FROM main.draft")
            let texts = try db.query("SELECT text FROM other.note ORDER BY rowid").map {
                try $0.value(at: 0, as: String.self)
            }
            #expect(texts == ["from the other file", "from main"])
            try db.detach("other")
            #expect(try !db.isAttached("other"))
            #expect(throws: DatabaseError.self) { try db.execute("SELECT * FROM other.note") }
        }
    }

    @Test(
        "the schema name is bound, so a hostile name is only a name",
        arguments: ["x'; DROP TABLE t; --", "a\"b", "234 fds"])
    func hostileSchemaName(name: String) throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        try db.attach(path: ":memory:", as: name)
        #expect(try db.isAttached(name))
        #expect(try db.tableExists("t"))
        try db.detach(name)
        #expect(try !db.isAttached(name))
    }

    @Test("attaching a name in use, detaching main or an unknown name, and detaching in use throw")
    func attachErrors() throws {
        let db = try Database()
        try db.attach(path: ":memory:", as: "aux")
        #expect(throws: DatabaseError.self) { try db.attach(path: ":memory:", as: "aux") }
        #expect(throws: DatabaseError.self) { try db.detach("main") }
        #expect(throws: DatabaseError.self) { try db.detach("nothing") }
        // A database the open transaction has used stays attached until the transaction ends.
        try db.beginTransaction()
        _ = try db.tableExists("t", in: "aux")
        #expect(throws: DatabaseError.self) { try db.detach("aux") }
        try db.rollback()
        try db.detach("aux")
    }

    /// The pattern of the SchemaAndMigrations article, "One database per user": the app opens a guest database at
    /// launch; a user's own database is attached at sign-in as `user` and detached at sign-out. Statements name the
    /// schema (`user.note`), so the code never confuses two users' data.
    @Test("one database per user: attach at sign-in, detach at sign-out")
    func databasePerUser() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("SQLiteToolkitTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        // Every user database has the same schema, kept up to date by one migrator.
        var userMigrator = DatabaseMigrator(tracking: .userVersion)
        userMigrator.registerMigration("note", sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")

        func signIn(_ db: Database, user: String) throws {
            let path = directory.appendingPathComponent("user-\(user).sqlite").path
            // Migrate the user's file on a connection of its own, then attach it.
            try userMigrator.migrate(Database(path: path))
            try db.attach(path: path, as: "user")
        }
        func signOut(_ db: Database) throws {
            try db.detach("user")
        }

        let db = try Database(path: directory.appendingPathComponent("guest.sqlite").path)
        try db.execute("CREATE TABLE catalog (item TEXT)")
        try db.execute("INSERT INTO catalog VALUES ('shared item')")

        try signIn(db, user: "alice")
        try db.execute("INSERT INTO user.note (text) SELECT 'alice likes ' || item FROM catalog")
        try signOut(db)

        try signIn(db, user: "bob")
        #expect(try db.queryValue("SELECT count(*) FROM user.note", as: Int.self) == 0)
        try db.execute("INSERT INTO user.note (text) VALUES ('bob was here')")
        try signOut(db)

        try signIn(db, user: "alice")
        #expect(try db.queryValue("SELECT text FROM user.note", as: String.self) == "alice likes shared item")
        try signOut(db)
        #expect(try db.attachedDatabases().map(\.name) == ["main"])
    }
}
