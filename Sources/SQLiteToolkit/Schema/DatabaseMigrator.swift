import SQLiteBindings

/// Named schema migrations, applied in the order they were registered, each at most once per database.
///
/// ```swift
/// var migrator = DatabaseMigrator()
/// migrator.registerMigration("create player", sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT)")
/// migrator.registerMigration("add score") { db in
///     try db.execute("ALTER TABLE player ADD COLUMN score INT NOT NULL DEFAULT 0")
/// }
/// try migrator.migrate(db)  // applies only the migrations this database has not seen
/// ```
///
/// Each migration runs in its own `IMMEDIATE` transaction and is recorded in the same transaction, so a failing
/// migration rolls back completely (the ones before it stay applied) and the error names it
/// (``DatabaseError/Reason/migrationFailed(name:)``).
///
/// Foreign keys are not enforced while a migration runs, so a table can be rebuilt as SQLite's documentation
/// recommends (create the new table, copy, drop the old one, rename); before the migration commits,
/// `PRAGMA foreign_key_check` must find no violation, or the migration fails and rolls back.
///
/// A database migrated by a newer version of the app holds migrations this migrator does not know:
/// ``hasUnknownMigrations(_:)`` says so, and ``migrate(_:)`` refuses to touch it
/// (``DatabaseError/Reason/databaseFromTheFuture``).
///
/// Related SQLite documentation: <https://sqlite.org/lang_altertable.html#otheralter>
public struct DatabaseMigrator: Sendable {
    /// Where the migrator records the migrations applied to a database.
    public enum Tracking: Sendable, Hashable {
        /// A table of the applied migrations' names (created on first use), so migrations can be named freely
        /// and a database from the future is recognised by a name this migrator does not know.
        case table(String)
        /// `PRAGMA user_version`: the number of migrations applied. Migrations must then never be removed or
        /// reordered, since only their count is recorded.
        case userVersion
    }

    /// A registered migration.
    struct Migration: Sendable {
        var name: String
        var body: @Sendable (Database) throws -> Void
    }

    /// How applied migrations are recorded.
    public let tracking: Tracking
    private var migrations: [Migration] = []

    /// A migrator with no migrations yet.
    ///
    /// - Parameter tracking: `.table("sqltk_migrations")` by default.
    public init(tracking: Tracking = .table("sqltk_migrations")) {
        self.tracking = tracking
    }

    /// The names of the registered migrations, in order.
    public var migrationNames: [String] { migrations.map(\.name) }

    /// Registers a migration run by a closure; it runs after every migration registered before it.
    ///
    /// A name registered twice is a programming error: the migrator keeps the first and ``migrate(_:)``
    /// throws ``DatabaseError/Reason/duplicateMigration(name:)``.
    public mutating func registerMigration(_ name: String, _ body: @escaping @Sendable (Database) throws -> Void) {
        migrations.append(Migration(name: name, body: body))
    }

    /// Registers a migration written as a script of SQL statements.
    public mutating func registerMigration(_ name: String, sql: String) {
        registerMigration(name) { db in try db.executeScript(sql) }
    }

    /// The names of the migrations applied to `db`, in the order they were applied. With `.userVersion`
    /// tracking, the names of the first `user_version` registered migrations (and no more than are registered).
    public func appliedMigrations(_ db: Database) throws -> [String] {
        switch tracking {
        case .table(let table):
            guard try db.tableExists(table) else { return [] }
            return try db.query("SELECT identifier FROM \(try Database.quoteIdentifier(table)) ORDER BY rowid")
                .map { try $0.value(at: 0, as: String.self) }
        case .userVersion:
            let count = Int(try db.userVersion())
            return Array(migrationNames.prefix(max(0, count)))
        }
    }

    /// Whether `db` records migrations this migrator does not know: a newer version of the app migrated it.
    public func hasUnknownMigrations(_ db: Database) throws -> Bool {
        switch tracking {
        case .table:
            let known = Set(migrationNames)
            return try appliedMigrations(db).contains { !known.contains($0) }
        case .userVersion:
            return Int(try db.userVersion()) > migrations.count
        }
    }

    /// Whether every registered migration has been applied to `db`.
    public func hasCompletedMigrations(_ db: Database) throws -> Bool {
        let applied = Set(try appliedMigrations(db))
        return migrations.allSatisfy { applied.contains($0.name) }
    }

    /// Applies the registered migrations that `db` has not seen yet, in order, each in its own transaction.
    ///
    /// - Throws: ``DatabaseError/Reason/databaseFromTheFuture`` (before changing anything) when the database
    ///   records migrations this migrator does not know; ``DatabaseError/Reason/migrationFailed(name:)`` with
    ///   the failing migration's error code and message when one fails (it is rolled back, the ones before it
    ///   stay applied); `SQLITE_MISUSE` when a transaction is open.
    public func migrate(_ db: Database) throws {
        try migrate(db, upTo: nil)
    }

    /// Applies the registered migrations that `db` has not seen yet, up to and including the one named `name`.
    public func migrate(_ db: Database, upTo name: String) throws {
        guard migrations.contains(where: { $0.name == name }) else {
            throw DatabaseError.misuse("no migration is registered as '\(name)'")
        }
        try migrate(db, upTo: Optional(name))
    }

    private func migrate(_ db: Database, upTo last: String?) throws {
        var seen = Set<String>()
        for migration in migrations where !seen.insert(migration.name).inserted {
            throw DatabaseError.misuse(
                "the migration '\(migration.name)' is registered twice",
                reason: .duplicateMigration(name: migration.name))
        }
        guard !db.isInTransaction else {
            throw DatabaseError.misuse("migrations run in transactions of their own: commit the open one first")
        }
        if case .table(let table) = tracking {
            try db.execute(
                "CREATE TABLE IF NOT EXISTS \(try Database.quoteIdentifier(table)) (identifier TEXT NOT NULL PRIMARY KEY)"
            )
        }
        if try hasUnknownMigrations(db) {
            throw DatabaseError(
                extendedCode: .error,
                message: "the database holds migrations this version does not know: it was written by a newer version",
                reason: .databaseFromTheFuture)
        }
        let applied = Set(try appliedMigrations(db))
        for (index, migration) in migrations.enumerated() {
            if !applied.contains(migration.name) {
                try apply(migration, number: index + 1, to: db)
            }
            if migration.name == last { break }
        }
    }

    private func apply(_ migration: Migration, number: Int, to db: Database) throws {
        // `PRAGMA foreign_keys` is a no-op inside a transaction: it is turned off before BEGIN and back on after
        // COMMIT or ROLLBACK, as SQLite's table-rebuild procedure says.
        let enforcesForeignKeys = try db.queryValue("PRAGMA foreign_keys", as: Bool.self) ?? false
        if enforcesForeignKeys { try db.execute("PRAGMA foreign_keys = OFF") }
        defer {
            if enforcesForeignKeys { try? db.execute("PRAGMA foreign_keys = ON") }
        }
        do {
            try db.transaction(.immediate) { db in
                try migration.body(db)
                if enforcesForeignKeys, let violation = try db.foreignKeyViolations().first {
                    throw DatabaseError(
                        extendedCode: .constraintForeignkey,
                        message: "FOREIGN KEY constraint failed in table \(violation.table)")
                }
                switch tracking {
                case .table(let table):
                    try db.execute(
                        "INSERT INTO \(try Database.quoteIdentifier(table)) (identifier) VALUES (?)", migration.name)
                case .userVersion:
                    try db.setUserVersion(Int32(clamping: number))
                }
            }
        } catch {
            let underlying = error as? DatabaseError
            throw DatabaseError(
                extendedCode: underlying?.extendedCode ?? .error,
                message: "migration '\(migration.name)' failed: \(underlying?.message ?? String(describing: error))",
                sql: underlying?.sql,
                errorOffset: underlying?.errorOffset,
                arguments: underlying?.arguments,
                reason: .migrationFailed(name: migration.name))
        }
    }
}
