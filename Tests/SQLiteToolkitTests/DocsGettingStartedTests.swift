import Foundation
import SQLiteToolkit
import Testing

/// The samples of the Getting Started article (Sources/SQLiteToolkit/SQLiteToolkit.docc/GettingStarted.md), line
/// for line: `DocsSampleTests` checks that every line of the article's samples appears here.
@Suite("Docs: Getting started")
struct DocsGettingStartedTests {
    @Test("open a file, configure it, close it")
    func openAndClose() throws {
        try TemporaryFile.withDatabasePath { path in
            let db = try Database(path: path)  // creates the file when it is missing
            #expect(db.isOpen)
            db.close()  // also done when the last reference goes away

            var configuration = Database.Configuration()
            configuration.isReadOnly = true
            configuration.busyMode = .timeout(10)  // wait up to 10 s for another connection's lock
            let readOnly = try Database(path: path, configuration: configuration)
            #expect(throws: DatabaseError.self) { try readOnly.execute("CREATE TABLE t (x)") }
        }
    }

    @Test("execute with positional, named and interpolated arguments, and a script")
    func execute() throws {
        let db = try Database()
        try db.executeScript(
            """
            CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score INT);
            CREATE INDEX player_score ON player (score);
            """)
        try db.execute("INSERT INTO player (name, score) VALUES (?, ?)", "Arthur", 100)
        try db.execute(
            "INSERT INTO player (name, score) VALUES (:name, :score)", arguments: ["name": "Barbara", "score": 80])
        let name = "Craig"
        try db.execute(sql: "INSERT INTO player (name, score) VALUES (\(name), \(120))")
        let id = db.lastInsertRowID  // 3
        let changed = db.changes  // 1
        #expect(id == 3)
        #expect(changed == 1)

        let statement = try db.prepare("INSERT INTO player (name, score) VALUES (?, ?)")
        for (name, score) in [("Dan", 50), ("Eve", 70)] {
            try statement.execute(name, score)  // binds, runs, resets
        }
        #expect(try db.queryValue("SELECT count(*) FROM player", as: Int.self) == 5)
    }

    @Test("query rows, values and optional values")
    func query() throws {
        let db = try Database()
        try db.execute("CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score INT)")
        try db.execute("INSERT INTO player (name, score) VALUES ('Arthur', 100), ('Barbara', 80), ('Craig', NULL)")

        var lines: [String] = []
        let rows = try db.query("SELECT name, score FROM player WHERE name <> ? ORDER BY name", "Nobody")
        while let row = try rows.next() {
            let name: String = try row.value(named: "name")  // by name, case-insensitive
            let score: Int? = try row.value(at: 1)  // by index; NULL reads as nil
            lines.append("\(name): \(score.map(String.init) ?? "no score")")
        }
        #expect(lines == ["Arthur: 100", "Barbara: 80", "Craig: no score"])

        let names = try db.query("SELECT name FROM player ORDER BY score DESC").map { try $0.value(at: 0) as String }
        let best = try db.queryValue("SELECT max(score) FROM player", as: Int.self)  // nil when there is no row
        let total = try db.queryRequiredValue("SELECT sum(score) FROM player", as: Int.self)  // throws .noRow
        let row = try db.queryRow("SELECT * FROM player WHERE name = ?", "Barbara")
        #expect(names == ["Arthur", "Barbara", "Craig"])
        #expect(best == 100)
        #expect(total == 180)
        #expect(row?["score"] == .integer(80))  // the first row, by exact column name
    }

    @Test("transactions commit on return and roll back on throw; savepoints nest")
    func transactions() throws {
        let db = try Database()
        try db.execute("CREATE TABLE account (name TEXT PRIMARY KEY, balance INT NOT NULL CHECK (balance >= 0))")
        try db.execute("INSERT INTO account VALUES ('alice', 100), ('bob', 0)")

        struct InsufficientFunds: Error {}
        do {
            try db.transaction { db in
                try db.execute("UPDATE account SET balance = balance + 500 WHERE name = 'bob'")
                let balance = try db.queryRequiredValue(
                    "SELECT balance FROM account WHERE name = 'alice'", as: Int.self)
                if balance < 500 { throw InsufficientFunds() }  // rolls back bob's update
                try db.execute("UPDATE account SET balance = balance - 500 WHERE name = 'alice'")
            }
        } catch is InsufficientFunds {
            // nothing changed
        }
        #expect(try db.queryValue("SELECT balance FROM account WHERE name = 'bob'", as: Int.self) == 0)

        try db.transaction { db in
            try db.execute("UPDATE account SET balance = balance - 10 WHERE name = 'alice'")
            try? db.savepoint { db in  // a nested step that may fail alone
                try db.execute("UPDATE account SET balance = balance - 1000 WHERE name = 'alice'")  // CHECK fails
            }
            try db.execute("UPDATE account SET balance = balance + 10 WHERE name = 'bob'")
        }
        #expect(try db.queryValue("SELECT balance FROM account WHERE name = 'alice'", as: Int.self) == 90)
        #expect(try db.queryValue("SELECT balance FROM account WHERE name = 'bob'", as: Int.self) == 10)
    }

    @Test("errors: match by result code or by the toolkit's reason")
    func errors() throws {
        let db = try Database()
        try db.execute("CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score INT)")
        try db.execute("INSERT INTO player (name, score) VALUES (?, ?)", "Arthur", 100)

        var caught: [String] = []
        do {
            try db.execute("INSERT INTO player (name, score) VALUES (?, ?)", "Arthur", 1)
        } catch ResultCode.constraint {
            // any constraint violation: .constraintUnique, .constraintNotnull, ...
            caught.append("constraint")
        }
        do {
            try db.execute("INSERT INTO player (name, score) VALUES (?, ?)", "Arthur", 1)
        } catch let error as DatabaseError where error.extendedCode == .constraintUnique {
            print(error.message)  // UNIQUE constraint failed: player.name
            caught.append(error.message)
        }
        do {
            try db.execute("INSERT INTO player (name, score) VALUES (?, ?)", "Barbara")  // one argument short
        } catch let error as DatabaseError where error.reason == .argumentMismatch(expected: 2, given: 1) {
            // the toolkit checked the arguments before anything ran
            caught.append("mismatch")
        }
        #expect(caught == ["constraint", "UNIQUE constraint failed: player.name", "mismatch"])
        #expect(try db.queryValue("SELECT count(*) FROM player", as: Int.self) == 1)
    }
}
