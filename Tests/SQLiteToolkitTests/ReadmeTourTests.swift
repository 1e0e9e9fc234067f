import Foundation
import SQLiteToolkit
import Testing

/// The README's tour, step by step, so its snippets stay true. Keep the two in step.
@Suite("README tour")
struct ReadmeTourTests {
    @Test("open, execute with arguments, query with typed reads, a transaction, error handling")
    func tour() throws {
        // Open
        let db = try Database()  // in memory; Database(path: "app.sqlite") for a file

        // Execute with arguments
        try db.execute("CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score INT)")
        try db.execute("INSERT INTO player (name, score) VALUES (?, ?)", "Arthur", 100)
        try db.execute(
            "INSERT INTO player (name, score) VALUES (:name, :score)", arguments: ["name": "Barbara", "score": 80])
        let name = "Craig"
        try db.execute(sql: "INSERT INTO player (name, score) VALUES (\(name), \(120))")

        // Query with typed reads
        var names: [String] = []
        let rows = try db.query("SELECT name, score FROM player WHERE score >= ? ORDER BY score DESC", 90)
        while let row = try rows.next() {
            let name: String = try row.value(named: "name")
            let score: Int = try row.value(at: 1)
            names.append("\(name) \(score)")
        }
        #expect(names == ["Craig 120", "Arthur 100"])
        let count = try db.queryValue("SELECT COUNT(*) FROM player", as: Int.self)
        #expect(count == 3)

        // A transaction: commits when the closure returns, rolls back when it throws
        try db.transaction { db in
            try db.execute("UPDATE player SET score = score + 10 WHERE name = ?", "Arthur")
            try db.execute("UPDATE player SET score = score - 10 WHERE name = ?", "Craig")
        }
        #expect(try db.queryValue("SELECT score FROM player WHERE name = 'Arthur'", as: Int.self) == 110)

        // Error handling: match by code, read SQLite's message and the SQL
        do {
            try db.execute("INSERT INTO player (name, score) VALUES (?, ?)", "Arthur", 1)
            Issue.record("a duplicate name must fail")
        } catch ResultCode.constraint {
            // any constraint violation lands here
        }
        do {
            try db.execute("INSERT INTO player (name) VALUES (?)", "Arthur")
            Issue.record("a duplicate name must fail")
        } catch let error as DatabaseError {
            #expect(error.extendedCode == .constraintUnique)
            #expect(error.message.contains("UNIQUE constraint failed: player.name"))
            #expect(error.sql == "INSERT INTO player (name) VALUES (?)")
        }
    }
}
