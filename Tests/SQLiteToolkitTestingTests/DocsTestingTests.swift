import Foundation
import SQLiteToolkit
import SQLiteToolkitTesting
import Testing

// The samples of the article "Testing your database code" (SQLiteToolkitTesting.docc/TestingYourDatabaseCode.md),
// line for line: DocsSampleTests fails when the two differ.

enum AppDatabase {
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration(
            "create player", sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score INT)")
        return migrator
    }()
}

@Suite(.database(migrator: AppDatabase.migrator))
struct PlayerStoreTests {
    @Test func newPlayersStartAtZero() throws {
        try TestDatabase.current.write { db in
            try db.execute("INSERT INTO player (name, score) VALUES (?, 0)", "Arthur")
        }
        try expectRows("SELECT name, score FROM player", in: TestDatabase.current, equal: [["Arthur", 0]])
    }

    @Test(
        .database(
            .migrator(AppDatabase.migrator), .sql("INSERT INTO player (name, score) VALUES ('Arthur', 100)"),
            storage: .pool))
    func readsSeeCommittedWrites() async throws {
        let pool = try TestDatabase.pool
        try await pool.write { db in try db.execute("UPDATE player SET score = 120") }
        let score = try await pool.read { db in try db.queryRequiredValue("SELECT score FROM player", as: Int.self) }
        #expect(score == 120)
    }

    @Test func namesAreUnique() throws {
        try TestDatabase.current.write { db in
            try db.execute("INSERT INTO player (name) VALUES (?)", "Arthur")
            expectDatabaseError(.constraint) {
                try db.execute("INSERT INTO player (name) VALUES (?)", "Arthur")
            }
            let error = expectDatabaseError(.constraintUnique) {
                try db.execute("INSERT INTO player (name) VALUES (?)", "Arthur")
            }
            #expect(error?.message == "UNIQUE constraint failed: player.name")
            expectDatabaseError(.misuse, reason: .nestedTransaction) {
                try db.transaction { _ in }
            }
        }
    }

    @Test func swiftTestingAlone() throws {
        try TestDatabase.current.write { db in
            try db.execute("INSERT INTO player (name) VALUES (?)", "Arthur")
            let error = #expect(throws: DatabaseError.self) {
                try db.execute("INSERT INTO player (name) VALUES (?)", "Arthur")
            }
            #expect(error?.code == .constraint)
        }
    }

    @Test func awaitedCode() async throws {
        try await TestDatabase.current.write { db in try db.execute("INSERT INTO player (name) VALUES ('Arthur')") }
        await expectDatabaseError(.constraint) {
            try await TestDatabase.current.write { db in try db.execute("INSERT INTO player (name) VALUES ('Arthur')") }
        }
    }

    @Test func scoresAfterAGame() throws {
        try TestDatabase.current.write { db in
            try db.execute("INSERT INTO player (name, score) VALUES ('Arthur', 100), ('Barbara', NULL)")
            try db.execute("UPDATE player SET score = score + 10")
        }
        try expectTable(
            "player", in: TestDatabase.current,
            equal: [
                [1, "Arthur", 110],
                [2, "Barbara", nil],
            ])
    }

    @Test func dumpForTheLog() throws {
        let count = try TestDatabase.current.read { db in
            try db.queryRequiredValue("SELECT count(*) FROM player", as: Int.self)
        }
        let dump = try TestDatabase.dump(TestDatabase.current)
        #expect(count == 0, "\(dump)")
    }
}

@Suite("Docs: the rows expectation's diff, as the article shows it", .capturingRecordedIssues)
struct DocsDiffTests {
    @Test("the article's diff is the one a failing expectation records")
    func articleDiff() throws {
        let db = try Database()
        try db.execute("CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score INT)")
        try db.execute("INSERT INTO player (name, score) VALUES ('Arthur', 110), ('Barbara', NULL)")
        let article = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../Sources/SQLiteToolkitTesting/SQLiteToolkitTesting.docc")
                .appendingPathComponent("TestingYourDatabaseCode.md"),
            encoding: .utf8)
        let issues = try recordedIssues {
            try expectTable("player", in: db, equal: [[1, "Arthur", 100], [2, "Barbara", nil]])
        }
        #expect(issues.count == 1)
        for issue in issues {
            #expect(article.contains("```text\n\(issue.message)\n```"), "\(issue.message)")
        }
    }
}
