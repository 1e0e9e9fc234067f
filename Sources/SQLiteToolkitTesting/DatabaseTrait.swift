import SQLiteToolkit
import Testing

/// A Swift Testing trait that gives each test its own database, prepared by your set-up and removed when the test
/// ends.
///
/// On a test, it serves that test; on a suite, every test of the suite and of its nested suites, and every
/// argument of a parameterized test, gets a database of its own, so tests that run in parallel never share one.
/// Inside the test, ``TestDatabase/current`` is the database:
///
/// ```swift
/// @Suite(.database(migrator: AppDatabase.migrator))
/// struct PlayerTests {
///     @Test func insert() throws {
///         try TestDatabase.current.write { db in
///             try db.execute("INSERT INTO player (name) VALUES (?)", "Arthur")
///         }
///     }
/// }
/// ```
///
/// The database is opened and prepared before the test's body runs; a set-up that throws fails the test with its
/// error. When the test ends, whether it passed, failed an expectation or threw, the queue or pool is closed and
/// its temporary folder (the file with its `-wal`, `-shm` and `-journal`) is removed. A trait on a test inside a
/// suite that has one too wins: the test sees its own trait's database.
public struct DatabaseTrait: TestTrait, SuiteTrait, TestScoping {
    /// Where each test's database lives.
    public var storage: TestDatabase.Storage
    /// The options the database is opened with.
    public var configuration: Database.Configuration
    /// What prepares each test's database, in order.
    public var setUps: [DatabaseSetUp]

    /// A trait that opens a database in `storage` with `configuration` for each test and runs `setUps` on it.
    public init(
        storage: TestDatabase.Storage = .inMemory,
        configuration: Database.Configuration = Database.Configuration(),
        setUps: [DatabaseSetUp] = []
    ) {
        self.storage = storage
        self.configuration = configuration
        self.setUps = setUps
    }

    /// `true`: on a suite, the trait serves each of its tests, not the suite as a whole.
    public var isRecursive: Bool { true }

    /// Opens and prepares the test's database, runs the test with it as ``TestDatabase/current``, then closes it
    /// and removes its files, also when the test throws.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        let context = try TestDatabase.Context.make(storage, configuration: configuration, setUps: setUps)
        defer {
            for error in context.remove() {
                Issue.record(error, "the test database could not be closed or removed")
            }
        }
        try await TestDatabase.Context.$current.withValue(context) {
            try await function()
        }
    }
}

extension Trait where Self == DatabaseTrait {
    /// A database for each test, prepared by `setUps` in order, in `storage` (in memory by default).
    ///
    /// ```swift
    /// @Test(.database(.migrator(AppDatabase.migrator), .sql("INSERT INTO player (name) VALUES ('Arthur')")))
    /// @Test(.database(storage: .pool))  // an empty database file behind a DatabasePool
    /// ```
    public static func database(
        _ setUps: DatabaseSetUp...,
        storage: TestDatabase.Storage = .inMemory,
        configuration: Database.Configuration = Database.Configuration()
    ) -> Self {
        DatabaseTrait(storage: storage, configuration: configuration, setUps: setUps)
    }

    /// A database for each test with every migration of `migrator` applied, in `storage` (in memory by default).
    ///
    /// ```swift
    /// @Suite(.database(migrator: AppDatabase.migrator))
    /// ```
    public static func database(
        migrator: DatabaseMigrator,
        storage: TestDatabase.Storage = .inMemory,
        configuration: Database.Configuration = Database.Configuration()
    ) -> Self {
        DatabaseTrait(storage: storage, configuration: configuration, setUps: [.migrator(migrator)])
    }

    /// A database for each test, prepared by `prepare`, in `storage` (in memory by default).
    ///
    /// ```swift
    /// @Test(.database { db in try db.execute("CREATE TABLE player (name TEXT NOT NULL UNIQUE)") })
    /// ```
    public static func database(
        storage: TestDatabase.Storage = .inMemory,
        configuration: Database.Configuration = Database.Configuration(),
        prepare: @escaping @Sendable (Database) throws -> Void
    ) -> Self {
        DatabaseTrait(storage: storage, configuration: configuration, setUps: [DatabaseSetUp(prepare)])
    }
}
