import Foundation
import SQLiteToolkit

/// What prepares a test's database before the test runs: migrations, a SQL script or file, or a closure.
///
/// ```swift
/// @Test(.database(.migrator(AppDatabase.migrator), .sql("INSERT INTO player (name) VALUES ('Arthur')")))
/// ```
///
/// Set-ups run in the order given, once per test, on the writer connection, outside any transaction (a
/// migrator opens its own); the first one that throws fails the test with its error, before the test's body runs.
public struct DatabaseSetUp: Sendable {
    let body: @Sendable (Database) throws -> Void

    /// A set-up that runs `body` with the connection.
    public init(_ body: @escaping @Sendable (Database) throws -> Void) {
        self.body = body
    }

    /// Applies every migration of `migrator` (`DatabaseMigrator.migrate(_:)`), each in its transaction.
    public static func migrator(_ migrator: DatabaseMigrator) -> DatabaseSetUp {
        DatabaseSetUp { db in try migrator.migrate(db) }
    }

    /// Runs a SQL script (`Database.executeScript(_:rowHandler:)`): several statements separated by `;`.
    public static func sql(_ script: String) -> DatabaseSetUp {
        DatabaseSetUp { db in try db.executeScript(script) }
    }

    /// Reads a file of SQL statements, UTF-8 text, when the test starts, and runs it as ``sql(_:)`` does: a
    /// schema dump or fixtures, for example a resource of the test target (`Bundle.module.url(forResource:
    /// "fixtures", withExtension: "sql")`).
    ///
    /// A file that cannot be read throws ``TestDatabaseError/unreadableSQLFile(path:)``.
    public static func sqlFile(_ url: URL) -> DatabaseSetUp {
        DatabaseSetUp { db in
            guard let data = try? Data(contentsOf: url), let script = String(data: data, encoding: .utf8) else {
                throw TestDatabaseError.unreadableSQLFile(path: url.path)
            }
            try db.executeScript(script)
        }
    }
}
