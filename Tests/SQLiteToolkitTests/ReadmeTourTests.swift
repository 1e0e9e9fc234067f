import Foundation
import SQLiteToolkit
import Testing

/// The README's tour, line for line: `DocsSampleTests` checks that every line of it appears here.
@Suite("README tour")
struct ReadmeTourTests {
    @Test("open, execute with arguments, query with typed reads, a transaction, error handling")
    func tour() throws {
        let db = try Database()  // in memory; Database(path: "app.sqlite") for a file
        try db.execute("CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score INT)")

        // Arguments are bound, never pasted into the SQL: positional, named, or interpolated
        try db.execute("INSERT INTO player (name, score) VALUES (?, ?)", "Arthur", 100)
        try db.execute(
            "INSERT INTO player (name, score) VALUES (:name, :score)", arguments: ["name": "Barbara", "score": 80])
        let name = "Craig"
        try db.execute(sql: "INSERT INTO player (name, score) VALUES (\(name), \(120))")

        // Typed reads, by column name or index; single values
        var scores: [String: Int] = [:]
        let rows = try db.query("SELECT name, score FROM player WHERE score >= ?", 90)
        while let row = try rows.next() {
            scores[try row.value(named: "name")] = try row.value(at: 1)
        }
        let count = try db.queryValue("SELECT count(*) FROM player", as: Int.self)  // nil when there is no row
        #expect(scores == ["Arthur": 100, "Craig": 120])
        #expect(count == 3)

        // A transaction commits when its closure returns, and rolls back and rethrows when it throws
        try db.transaction { db in
            try db.execute("UPDATE player SET score = score + 10 WHERE name = ?", "Arthur")
            try db.execute("UPDATE player SET score = score - 10 WHERE name = ?", "Craig")
        }
        #expect(try db.queryValue("SELECT score FROM player WHERE name = 'Arthur'", as: Int.self) == 110)

        // Errors carry SQLite's extended code, its message and the SQL: match them by code
        var caught = false
        do {
            try db.execute("INSERT INTO player (name, score) VALUES (?, ?)", "Arthur", 1)
        } catch ResultCode.constraint {
            // any constraint violation: .constraintUnique, .constraintNotnull, ...
            caught = true
        }
        #expect(caught)
        let error = try #require(throws: DatabaseError.self) {
            try db.execute("INSERT INTO player (name) VALUES (?)", "Arthur")
        }
        #expect(error.extendedCode == .constraintUnique)
        #expect(error.message.contains("UNIQUE constraint failed: player.name"))
        #expect(error.sql == "INSERT INTO player (name) VALUES (?)")
    }
}
