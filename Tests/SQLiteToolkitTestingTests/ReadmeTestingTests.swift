import SQLiteToolkit
import SQLiteToolkitTesting
import Testing

// The README's "Test your database code" suite, line for line: DocsSampleTests fails when the two differ, and
// scripts/check-dependent-package runs the README's copy in a new package.

@Suite(.database { db in try db.execute("CREATE TABLE player (name TEXT NOT NULL UNIQUE)") })
struct PlayerTests {
    @Test func namesAreUnique() throws {
        try TestDatabase.current.write { db in
            try db.execute("INSERT INTO player (name) VALUES (?)", "Arthur")
            expectDatabaseError(.constraint) {
                try db.execute("INSERT INTO player (name) VALUES (?)", "Arthur")
            }
        }
        try expectTable("player", in: TestDatabase.current, equal: [["Arthur"]])
    }
}
