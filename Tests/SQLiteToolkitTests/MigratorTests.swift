import SQLiteBindings
import SQLiteToolkit
import Testing

@Suite("Migrations")
struct MigratorTests {
    private struct MigrationError: Error {}

    /// Version 1 and 2 of an app's migrations; later versions register more.
    private func migrator(tracking: DatabaseMigrator.Tracking, versions: Int) -> DatabaseMigrator {
        var migrator = DatabaseMigrator(tracking: tracking)
        let all: [(String, String)] = [
            ("v1 player", "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL)"),
            ("v2 score", "ALTER TABLE player ADD COLUMN score INT NOT NULL DEFAULT 0"),
            (
                "v3 team",
                "CREATE TABLE team (id INTEGER PRIMARY KEY); ALTER TABLE player ADD COLUMN team REFERENCES team"
            ),
            ("v4 index", "CREATE INDEX player_score ON player (score)"),
        ]
        for (name, sql) in all.prefix(versions) { migrator.registerMigration(name, sql: sql) }
        return migrator
    }

    static let trackings: [DatabaseMigrator.Tracking] = [.table("sqltk_migrations"), .userVersion]

    @Test("an existing database goes from version N to N+2, applying only the new migrations", arguments: trackings)
    func migrateForward(tracking: DatabaseMigrator.Tracking) throws {
        try TemporaryFile.withDatabasePath { path in
            do {
                let db = try Database(path: path)
                try migrator(tracking: tracking, versions: 1).migrate(db)
                try db.execute("INSERT INTO player (name) VALUES ('Arthur')")
            }
            let db = try Database(path: path)
            let newer = migrator(tracking: tracking, versions: 3)
            #expect(try newer.appliedMigrations(db) == ["v1 player"])
            #expect(try !newer.hasCompletedMigrations(db))
            try newer.migrate(db)
            #expect(try newer.appliedMigrations(db) == ["v1 player", "v2 score", "v3 team"])
            #expect(try newer.hasCompletedMigrations(db))
            #expect(try db.columns(in: "player").map(\.name) == ["id", "name", "score", "team"])
            #expect(try db.queryValue("SELECT name FROM player WHERE score = 0", as: String.self) == "Arthur")
            // Running again changes nothing.
            try newer.migrate(db)
            #expect(try newer.appliedMigrations(db).count == 3)
        }
    }

    @Test("a failing second migration rolls back completely and leaves the first applied", arguments: trackings)
    func failingMigration(tracking: DatabaseMigrator.Tracking) throws {
        let db = try Database()
        var migrator = migrator(tracking: tracking, versions: 1)
        migrator.registerMigration("v2 broken") { db in
            try db.execute("CREATE TABLE audit (x)")
            try db.execute("INSERT INTO player (name) VALUES (NULL)")  // NOT NULL
        }
        migrator.registerMigration("v3 never") { db in try db.execute("CREATE TABLE never (x)") }
        let error = try #require(throws: DatabaseError.self) { try migrator.migrate(db) }
        #expect(error.reason == .migrationFailed(name: "v2 broken"))
        #expect(error.extendedCode == .constraintNotnull)
        #expect(error.message.contains("v2 broken"))
        #expect(try migrator.appliedMigrations(db) == ["v1 player"])
        #expect(try db.tableExists("player"))
        #expect(try !db.tableExists("audit"))
        #expect(try !db.tableExists("never"))
        #expect(!db.isInTransaction)
        if tracking == .userVersion { #expect(try db.userVersion() == 1) }
    }

    @Test("a Swift error thrown by a migration is reported with its name")
    func swiftErrorInMigration() throws {
        let db = try Database()
        var migrator = DatabaseMigrator()
        migrator.registerMigration("throws") { db in
            try db.execute("CREATE TABLE t (x)")
            throw MigrationError()
        }
        #expect {
            try migrator.migrate(db)
        } throws: { ($0 as? DatabaseError)?.reason == .migrationFailed(name: "throws") }
        #expect(try !db.tableExists("t"))
    }

    @Test("a database from the future is detected and left untouched", arguments: trackings)
    func databaseFromTheFuture(tracking: DatabaseMigrator.Tracking) throws {
        let db = try Database()
        try migrator(tracking: tracking, versions: 4).migrate(db)
        let older = migrator(tracking: tracking, versions: 2)
        #expect(try older.hasUnknownMigrations(db))
        #expect {
            try older.migrate(db)
        } throws: { ($0 as? DatabaseError)?.reason == .databaseFromTheFuture }
        #expect(try migrator(tracking: tracking, versions: 4).hasUnknownMigrations(db) == false)
    }

    @Test("a renamed migration makes a table-tracked database look like one from the future")
    func unknownName() throws {
        let db = try Database()
        try migrator(tracking: .table("m"), versions: 1).migrate(db)
        var renamed = DatabaseMigrator(tracking: .table("m"))
        renamed.registerMigration("v1 player, renamed", sql: "SELECT 1")
        #expect(try renamed.hasUnknownMigrations(db))
    }

    @Test("migrate(upTo:) stops after the named migration")
    func migrateUpTo() throws {
        let db = try Database()
        let migrator = migrator(tracking: .table("sqltk_migrations"), versions: 4)
        try migrator.migrate(db, upTo: "v2 score")
        #expect(try migrator.appliedMigrations(db) == ["v1 player", "v2 score"])
        #expect {
            try migrator.migrate(db, upTo: "v9")
        } throws: { ($0 as? DatabaseError)?.isMisuse == true }
    }

    @Test("a name registered twice is refused before anything runs")
    func duplicateName() throws {
        let db = try Database()
        var migrator = DatabaseMigrator()
        migrator.registerMigration("same", sql: "CREATE TABLE a (x)")
        migrator.registerMigration("same", sql: "CREATE TABLE b (x)")
        #expect {
            try migrator.migrate(db)
        } throws: { ($0 as? DatabaseError)?.reason == .duplicateMigration(name: "same") }
        #expect(try !db.tableExists("a"))
    }

    @Test("migrating inside an open transaction is refused")
    func insideTransaction() throws {
        let db = try Database()
        try db.beginTransaction()
        #expect {
            try self.migrator(tracking: .userVersion, versions: 1).migrate(db)
        } throws: { ($0 as? DatabaseError)?.isMisuse == true }
        try db.rollback()
    }

    @Test("a table rebuild with foreign keys enforced: checks are deferred, then run before commit")
    func tableRebuild() throws {
        let db = try Database()
        #expect(try db.queryValue("PRAGMA foreign_keys", as: Bool.self) == true)
        var migrator = DatabaseMigrator()
        migrator.registerMigration(
            "schema",
            sql: """
                CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT);
                CREATE TABLE player (id INTEGER PRIMARY KEY, team INTEGER REFERENCES team ON DELETE CASCADE);
                INSERT INTO team VALUES (1, 'red');
                INSERT INTO player VALUES (1, 1);
                """)
        // SQLite's table-rebuild procedure: with enforcement on, DROP TABLE team would delete the players.
        migrator.registerMigration(
            "rebuild team",
            sql: """
                CREATE TABLE new_team (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
                INSERT INTO new_team SELECT id, name FROM team;
                DROP TABLE team;
                ALTER TABLE new_team RENAME TO team;
                """)
        try migrator.migrate(db)
        #expect(try db.queryValue("SELECT count(*) FROM player", as: Int.self) == 1)
        #expect(try db.queryValue("PRAGMA foreign_keys", as: Bool.self) == true)

        var breaking = migrator
        breaking.registerMigration("orphans", sql: "DELETE FROM team")
        let error = try #require(throws: DatabaseError.self) { try breaking.migrate(db) }
        #expect(error.reason == .migrationFailed(name: "orphans"))
        #expect(error.extendedCode == .constraintForeignkey)
        #expect(try db.queryValue("SELECT count(*) FROM team", as: Int.self) == 1)
        #expect(try db.queryValue("PRAGMA foreign_keys", as: Bool.self) == true)
    }

    @Test("the tracking table's name is quoted")
    func quotedTrackingTable() throws {
        let db = try Database()
        let migrator = migrator(tracking: .table("my \"migrations\"; DROP TABLE x"), versions: 2)
        try migrator.migrate(db)
        #expect(try db.tableExists("my \"migrations\"; DROP TABLE x"))
        #expect(try migrator.appliedMigrations(db).count == 2)
    }
}
