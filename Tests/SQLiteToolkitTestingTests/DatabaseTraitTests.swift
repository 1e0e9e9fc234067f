import Foundation
import SQLiteToolkit
import SQLiteToolkitTesting
import Testing

/// The migrations of the suites below: `runs` gets one row each time the migrations are applied to a database.
let countingMigrator: DatabaseMigrator = {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1") { db in
        try db.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY)")
        try db.execute("INSERT INTO runs DEFAULT VALUES")
    }
    migrator.registerMigration("v2", sql: "CREATE TABLE player (name TEXT NOT NULL UNIQUE)")
    return migrator
}()

/// What a test saw of its database, sent out of scopes the tests start themselves.
actor Observations {
    private(set) var paths: [String] = []
    private(set) var bodyRuns = 0

    func record(path: String) { paths.append(path) }
    func recordBodyRun() { bodyRuns += 1 }
}

/// An error thrown on purpose by a test's body.
struct IntendedFailure: Error, Equatable {}

/// Runs `trait`'s scope around `body` as Swift Testing runs it around a test.
func runScope(of trait: DatabaseTrait, _ body: @escaping @Sendable () async throws -> Void) async throws {
    let test = try #require(Test.current)
    try await trait.provideScope(for: test, testCase: Test.Case.current, performing: body)
}

@Suite("Testing: a database per test, migrated once", .database(migrator: countingMigrator))
struct DatabaseTraitSuiteTests {
    @Test("each test gets the migrations applied once, and nothing else in its database")
    func migratedOnce() throws {
        let applied = try TestDatabase.current.read { db in try countingMigrator.appliedMigrations(db) }
        #expect(applied == ["v1", "v2"])
        try expectTable("runs", in: TestDatabase.current, equal: [[1]])
        try expectTable("player", in: TestDatabase.current, equal: [])
    }

    @Test("parallel test cases never share a database", arguments: 0..<16)
    func parallelCases(index: Int) async throws {
        try await TestDatabase.current.write { db in
            try db.execute("INSERT INTO player (name) VALUES (?)", "player \(index)")
        }
        // Another case's row would show here if two cases shared the database.
        await Task.yield()
        try expectTable("player", in: TestDatabase.current, equal: [[.text("player \(index)")]])
        try expectTable("runs", in: TestDatabase.current, equal: [[1]])
    }

    @Test("a test's own trait wins over its suite's", .database { db in try db.execute("CREATE TABLE own (x)") })
    func ownTraitWins() throws {
        let tables = try TestDatabase.current.read { db in (try db.tableExists("own"), try db.tableExists("player")) }
        #expect(tables == (true, false))
    }

    @Test("the database is reachable from child tasks of the test")
    func childTasks() async throws {
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try await TestDatabase.current.read { db in
                        try db.queryRequiredValue("SELECT count(*) FROM runs", as: Int.self)
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts == [1, 1, 1, 1])
    }
}

@Suite("Testing: storage, set-ups and clean-up", .capturingRecordedIssues)
struct DatabaseTraitTests {
    @Test("without a trait, TestDatabase throws an error that names the trait to add")
    func noTrait() {
        #expect(throws: TestDatabaseError.noDatabaseTrait) { try TestDatabase.current }
        #expect(TestDatabaseError.noDatabaseTrait.description.contains(".database(...)"))
    }

    @Test("in memory: a queue with no path", .database())
    func inMemory() throws {
        #expect(try TestDatabase.storage == .inMemory)
        #expect(try TestDatabase.path == nil)
        _ = try TestDatabase.queue
        #expect(throws: TestDatabaseError.storageMismatch(expected: "a DatabasePool", actual: .inMemory)) {
            try TestDatabase.pool
        }
    }

    @Test("a file: a queue on a file that exists during the test", .database(storage: .file))
    func file() throws {
        let path = try #require(try TestDatabase.path)
        #expect(FileManager.default.fileExists(atPath: path))
        try TestDatabase.queue.write { db in try db.execute("CREATE TABLE t (x)") }
    }

    @Test("a pool: WAL mode, readers beside the writer", .database(storage: .pool))
    func pool() throws {
        let pool = try TestDatabase.pool
        let mode = try pool.read { db in try db.queryValue("PRAGMA journal_mode", as: String.self) }
        #expect(mode == "wal")
        #expect(throws: TestDatabaseError.storageMismatch(expected: "a DatabaseQueue", actual: .pool)) {
            try TestDatabase.queue
        }
    }

    @Test(
        "set-ups run in the order given: SQL, a closure, a migrator",
        .database(
            .sql("CREATE TABLE log (step TEXT); INSERT INTO log VALUES ('sql')"),
            DatabaseSetUp { db in try db.execute("INSERT INTO log VALUES ('closure')") },
            .migrator(countingMigrator), storage: .file)
    )
    func setUpOrder() throws {
        try expectRows("SELECT step FROM log ORDER BY rowid", in: TestDatabase.current, equal: [["sql"], ["closure"]])
        try expectTable("runs", in: TestDatabase.current, equal: [[1]])
    }

    @Test("a SQL file prepares the database; an unreadable one throws an error naming it")
    func sqlFile() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fixtures-\(UUID().uuidString).sql")
        try Data("CREATE TABLE player (name TEXT); INSERT INTO player VALUES ('Arthur');".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        try await runScope(of: .database(.sqlFile(url))) {
            try expectTable("player", in: TestDatabase.current, equal: [["Arthur"]])
        }
        let missing = url.appendingPathExtension("missing")
        let observations = Observations()
        await #expect(throws: TestDatabaseError.unreadableSQLFile(path: missing.path)) {
            try await runScope(of: .database(.sqlFile(missing), storage: .file)) { await observations.recordBodyRun() }
        }
        #expect(await observations.bodyRuns == 0)
    }

    @Test(
        "a set-up that throws fails the test with its error before the body runs", arguments: TestDatabase.Storage.all)
    func failingSetUp(storage: TestDatabase.Storage) async throws {
        let observations = Observations()
        await #expect(throws: IntendedFailure()) {
            try await runScope(of: .database(storage: storage) { _ in throw IntendedFailure() }) {
                await observations.recordBodyRun()
            }
        }
        #expect(await observations.bodyRuns == 0)
    }

    @Test(
        "the files are removed when the test passes, throws or fails an expectation",
        arguments: [
            TestDatabase.Storage.file, .pool,
        ])
    func removal(storage: TestDatabase.Storage) async throws {
        let observations = Observations()
        let trait = DatabaseTrait.database(migrator: countingMigrator, storage: storage)
        try await runScope(of: trait) {
            try await observations.record(path: #require(TestDatabase.path))
        }
        await #expect(throws: IntendedFailure()) {
            try await runScope(of: trait) {
                try await observations.record(path: #require(TestDatabase.path))
                throw IntendedFailure()
            }
        }
        // The test fails an expectation on purpose: the issue is captured, and checked below.
        let issues = try await recordedIssues {
            try await runScope(of: trait) {
                // Writes, so a pool leaves its -wal and -shm beside the file.
                try await TestDatabase.current.write { db in try db.execute("INSERT INTO player VALUES ('x')") }
                try await observations.record(path: #require(TestDatabase.path))
                Issue.record("failing on purpose")
            }
        }
        #expect(issues.map(\.message) == ["failing on purpose"])
        let paths = await observations.paths
        #expect(paths.count == 3)
        for path in paths {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            #expect(!FileManager.default.fileExists(atPath: folder), "left behind: \(folder)")
        }
    }

    @Test("tests that run at the same time get different databases", arguments: TestDatabase.Storage.all)
    func concurrentScopes(storage: TestDatabase.Storage) async throws {
        let trait = DatabaseTrait.database(migrator: countingMigrator, storage: storage)
        let observations = Observations()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    try await runScope(of: trait) {
                        try await TestDatabase.current.write { db in
                            try db.execute("INSERT INTO player (name) VALUES (?)", "player \(index)")
                        }
                        let path = try TestDatabase.current.path
                        await observations.record(path: path)
                        await Task.yield()
                        try expectTable("player", in: TestDatabase.current, equal: [[.text("player \(index)")]])
                    }
                }
            }
            try await group.waitForAll()
        }
        let paths = await observations.paths
        #expect(paths.count == 8)
        if storage != .inMemory {
            #expect(Set(paths).count == 8)
            #expect(paths.allSatisfy { !FileManager.default.fileExists(atPath: $0) })
        }
    }
}

extension TestDatabase.Storage {
    static let all: [TestDatabase.Storage] = [.inMemory, .file, .pool]
}
