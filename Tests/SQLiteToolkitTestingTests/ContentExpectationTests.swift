import Foundation
import SQLiteToolkit
import SQLiteToolkitTesting
import Testing

/// A database with a player table of three rows.
private func players() throws -> Database {
    let db = try Database()
    try db.execute("CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INT)")
    try db.execute("INSERT INTO player (name, score) VALUES ('Arthur', 100), ('Barbara', 80), ('Craig', NULL)")
    return db
}

/// The one comment of `issue`, when it was reported from this file.
private func message(_ issue: Issue) -> String? {
    guard issue.sourceLocation?.fileName == "ContentExpectationTests.swift" else { return nil }
    return issue.comments.map(\.rawValue).joined(separator: "\n")
}

/// Captures the warnings a test records, and lets every other issue through.
final class Warnings: @unchecked Sendable {
    // @unchecked Sendable: `messages` is read and written only while holding `lock`.
    private let lock = NSLock()
    private var messages: [String] = []

    func append(_ message: String) { lock.withLock { messages.append(message) } }
    var all: [String] { lock.withLock { messages } }

    static let logDump = Warnings()
}

@Suite("Testing: rows and tables compared with expected values, with diffs", .capturingRecordedIssues)
struct ContentExpectationTests {
    @Test("equal rows pass, in the query's order")
    func rowsPass() throws {
        let db = try players()
        let equal = try expectRows(
            "SELECT name, score FROM player WHERE score >= ? ORDER BY score", arguments: [80], in: db,
            equal: [["Barbara", 80], ["Arthur", 100]])
        #expect(equal)
    }

    @Test("a table's content passes whatever the order of the expected rows")
    func tablePass() throws {
        let db = try players()
        #expect(
            try expectTable("player", in: db, equal: [[3, "Craig", nil], [1, "Arthur", 100], [2, "Barbara", 80]]))
    }

    @Test("different rows fail with the SQL, the column names and a row-by-row diff")
    func rowsDiff() throws {
        let db = try players()
        var equal = true
        let issues = try recordedIssues {
            equal = try expectRows(
                "SELECT name, score FROM player ORDER BY id", in: db,
                equal: [["Arthur", 100], ["Barbara", 85], ["Craig", nil], ["Dora", 70]])
        }
        #expect(!equal)
        #expect(
            issues.map(message) == [
                """
                Rows of SELECT name, score FROM player ORDER BY id
                (- expected, + actual)
                  name      | score
                  'Arthur'  | 100
                - 'Barbara' | 85
                + 'Barbara' | 80
                  'Craig'   | NULL
                - 'Dora'    | 70
                2 expected row(s) missing, 1 unexpected row(s)
                """
            ])
    }

    @Test("a table's diff shows both sides sorted, and the comment")
    func tableDiff() throws {
        let db = try players()
        var equal = true
        let issues = try recordedIssues {
            equal = try expectTable(
                "player", in: db, equal: [[2, "Barbara", 80], [1, "Arthur", 100.0]], "after the import")
        }
        #expect(!equal)
        #expect(
            issues.map(message) == [
                """
                Content of table player
                (- expected, + actual)
                  id | name      | score
                - 1  | 'Arthur'  | 100.0
                + 1  | 'Arthur'  | 100
                  2  | 'Barbara' | 80
                + 3  | 'Craig'   | NULL
                1 expected row(s) missing, 2 unexpected row(s)
                after the import
                """
            ])
    }

    @Test("a missing table throws SQLite's error instead of failing an expectation")
    func missingTable() throws {
        let db = try players()
        expectDatabaseError(.error) { try expectTable("team", in: db, equal: []) }
    }

    @Test(
        "a queue or pool is read in a read access",
        .database(storage: .pool) { db in
            try db.executeScript("CREATE TABLE t (x); INSERT INTO t VALUES (1), (X'00FF')")
        })
    func reader() throws {
        try expectRows("SELECT x FROM t ORDER BY x", in: TestDatabase.current, equal: [[1], [.blob(Data([0, 255]))]])
        try expectTable("t", in: TestDatabase.current, equal: [[.blob(Data([0, 255]))], [1]])
    }

    @Test("the dump lists every table with its columns and rows")
    func dump() throws {
        let db = try players()
        try db.execute("CREATE TABLE empty (a, b)")
        #expect(
            try TestDatabase.dump(db) == """
                table empty: 0 row(s)
                  a | b
                table player: 3 row(s)
                  id | name      | score
                  1  | 'Arthur'  | 100
                  2  | 'Barbara' | 80
                  3  | 'Craig'   | NULL
                """)
        #expect(try TestDatabase.dump(Database()) == "(no tables)")
    }

    @Test(
        "logDump writes the test database's dump to the log as a warning, which does not fail the test",
        .database { db in try db.executeScript("CREATE TABLE t (x); INSERT INTO t VALUES ('a')") },
        .compactMapIssues { issue in
            guard issue.severity == .warning else { return issue }
            Warnings.logDump.append(issue.comments.map(\.rawValue).joined(separator: "\n"))
            return nil
        })
    func logDump() throws {
        try TestDatabase.logDump()
        #expect(Warnings.logDump.all == ["Content of the test database:\ntable t: 1 row(s)\n  x\n  'a'"])
    }
}
