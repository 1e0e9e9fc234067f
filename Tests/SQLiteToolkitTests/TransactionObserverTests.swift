import SQLiteBindings
import SQLiteToolkit
import Testing

@Suite("Transaction observers")
struct TransactionObserverTests {
    /// A connection with two tables and an observer that records each delivery.
    private final class Recorder {
        var deliveries: [DatabaseTransactionChanges] = []
    }

    private func makeDatabase() throws -> Database {
        let db = try Database()
        try db.execute("CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT UNIQUE)")
        try db.execute("CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT)")
        return db
    }

    private func observe(_ db: Database, tables: Set<String>? = nil, rows: Bool = true) throws -> Recorder {
        let recorder = Recorder()
        try db.addTransactionObserver(tables: tables, includingRowChanges: rows) { recorder.deliveries.append($0) }
        return recorder
    }

    @Test("a statement outside a transaction is delivered once, after its commit, with its table and rowid")
    func autocommitStatement() throws {
        let db = try makeDatabase()
        let recorder = try observe(db)
        try db.execute("INSERT INTO player (id, name) VALUES (7, 'Arthur')")
        #expect(recorder.deliveries.count == 1)
        #expect(recorder.deliveries.first?.tables == ["player"])
        #expect(
            recorder.deliveries.first?.rowChanges == [
                DatabaseRowChange(kind: .insert, schema: "main", table: "player", rowID: 7)
            ])
    }

    @Test("a transaction is delivered once, at its commit, with every row in order")
    func transactionDeliveredAtCommit() throws {
        let db = try makeDatabase()
        let recorder = try observe(db)
        try db.transaction { db in
            try db.execute("INSERT INTO player (id, name) VALUES (1, 'Arthur')")
            try db.execute("UPDATE player SET name = 'Ford' WHERE id = 1")
            try db.execute("INSERT INTO team (id, name) VALUES (2, 'Blue')")
            try db.execute("DELETE FROM player WHERE id = 1")
            #expect(recorder.deliveries.isEmpty)
        }
        #expect(recorder.deliveries.count == 1)
        #expect(recorder.deliveries.first?.tables == ["player", "team"])
        #expect(
            recorder.deliveries.first?.rowChanges.map { "\($0.kind) \($0.table) \($0.rowID)" } == [
                "insert player 1", "update player 1", "insert team 2", "delete player 1",
            ])
    }

    @Test("a rolled-back transaction, or one whose body threw, delivers nothing")
    func rollbackDeliversNothing() throws {
        let db = try makeDatabase()
        let recorder = try observe(db)
        try db.inTransaction { db in
            try db.execute("INSERT INTO player (name) VALUES ('Arthur')")
            return .rollback
        }
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try db.transaction { db in
                try db.execute("INSERT INTO player (name) VALUES ('Ford')")
                throw Failure()
            }
        }
        try db.execute("BEGIN")
        try db.execute("INSERT INTO team (name) VALUES ('Blue')")
        try db.execute("ROLLBACK")
        #expect(recorder.deliveries.isEmpty)
        try db.execute("INSERT INTO team (id, name) VALUES (5, 'Red')")
        #expect(recorder.deliveries.map(\.rowChanges.count) == [1])
    }

    @Test("a savepoint rolled back takes its rows and tables out of the transaction")
    func savepointRollback() throws {
        let db = try makeDatabase()
        let recorder = try observe(db)
        try db.transaction { db in
            try db.execute("INSERT INTO player (id, name) VALUES (1, 'Arthur')")
            try db.inSavepoint { db in
                try db.execute("INSERT INTO team (id, name) VALUES (2, 'Blue')")
                try db.execute("INSERT INTO player (id, name) VALUES (3, 'Ford')")
                return .rollback
            }
        }
        #expect(recorder.deliveries.count == 1)
        #expect(recorder.deliveries.first?.tables == ["player"])
        #expect(recorder.deliveries.first?.rowChanges.map(\.rowID) == [1])
    }

    @Test("SAVEPOINT, ROLLBACK TO and RELEASE written as SQL, names quoted and in any case, are followed")
    func savepointsInSQL() throws {
        let db = try makeDatabase()
        let recorder = try observe(db)
        try db.execute("SAVEPOINT outer_one")
        try db.execute("INSERT INTO player (id, name) VALUES (1, 'Arthur')")
        try db.execute("SAVEPOINT \"Inner One\"")
        try db.execute("INSERT INTO team (id, name) VALUES (2, 'Blue')")
        try db.execute("ROLLBACK TRANSACTION TO SAVEPOINT \"inner one\"")
        try db.execute("INSERT INTO player (id, name) VALUES (3, 'Ford')")
        try db.execute("/* a comment */ RELEASE \"Inner One\"")
        #expect(recorder.deliveries.isEmpty)
        try db.execute("release OUTER_ONE")
        #expect(recorder.deliveries.count == 1)
        #expect(recorder.deliveries.first?.tables == ["player"])
        #expect(recorder.deliveries.first?.rowChanges.map(\.rowID) == [1, 3])
    }

    @Test("a transaction whose only changes were rolled back to a savepoint delivers nothing")
    func everythingRolledBackToSavepoint() throws {
        let db = try makeDatabase()
        let recorder = try observe(db)
        try db.execute("BEGIN")
        try db.execute("SAVEPOINT a")
        try db.execute("INSERT INTO player (name) VALUES ('Arthur')")
        try db.execute("ROLLBACK TO a")
        try db.execute("COMMIT")
        #expect(recorder.deliveries.isEmpty)
    }

    @Test("a COMMIT that fails delivers nothing; the commit that later succeeds delivers the transaction once")
    func failedCommit() throws {
        let db = try Database()
        try db.execute("PRAGMA foreign_keys = ON")
        try db.execute("CREATE TABLE parent (id INTEGER PRIMARY KEY)")
        try db.execute(
            "CREATE TABLE child (id INTEGER PRIMARY KEY, parent REFERENCES parent DEFERRABLE INITIALLY DEFERRED)")
        let recorder = try observe(db)
        try db.execute("BEGIN")
        try db.execute("INSERT INTO child (id, parent) VALUES (1, 10)")
        #expect(throws: DatabaseError.self) { try db.execute("COMMIT") }
        #expect(db.isInTransaction)
        #expect(recorder.deliveries.isEmpty)
        try db.execute("INSERT INTO parent (id) VALUES (10)")
        try db.execute("COMMIT")
        #expect(recorder.deliveries.count == 1)
        #expect(recorder.deliveries.first?.tables == ["child", "parent"])

        // Through the toolkit's commit(), which rolls back after a failed commit.
        try db.beginTransaction()
        try db.execute("INSERT INTO child (id, parent) VALUES (2, 20)")
        #expect(throws: DatabaseError.self) { try db.commit() }
        #expect(!db.isInTransaction)
        #expect(recorder.deliveries.count == 1)
    }

    @Test("a statement that fails inside a transaction takes its undone rows out")
    func failedStatementInTransaction() throws {
        let db = try makeDatabase()
        let recorder = try observe(db)
        try db.transaction { db in
            try db.execute("INSERT INTO team (id, name) VALUES (1, 'Arthur')")
            try db.execute("INSERT INTO player (id, name) VALUES (1, 'Ford')")
            // Inserts row 2 ('Zaphod'), then fails on 'Ford': SQLite undoes row 2.
            #expect(throws: DatabaseError.self) {
                try db.execute(
                    "INSERT INTO player (id, name) SELECT id + 1, 'Zaphod' FROM team UNION ALL SELECT 9, 'Ford'")
            }
        }
        #expect(recorder.deliveries.count == 1)
        #expect(
            recorder.deliveries.first?.rowChanges.map { "\($0.table) \($0.rowID)" } == ["team 1", "player 1"])
    }

    @Test("an observer of some tables hears only of those, without regard to case, and nothing else")
    func tableFilter() throws {
        let db = try makeDatabase()
        let teams = try observe(db, tables: ["TEAM"])
        try db.execute("INSERT INTO player (name) VALUES ('Arthur')")
        #expect(teams.deliveries.isEmpty)
        try db.transaction { db in
            try db.execute("INSERT INTO player (name) VALUES ('Ford')")
            try db.execute("INSERT INTO team (id, name) VALUES (4, 'Blue')")
        }
        #expect(teams.deliveries.count == 1)
        #expect(teams.deliveries.first?.tables == ["team"])
        #expect(teams.deliveries.first?.rowChanges.map(\.table) == ["team"])
        #expect(teams.deliveries.first?.changed(table: "Team") == true)
    }

    @Test("a DELETE without WHERE reports every row, not SQLite's truncation, which reports none")
    func deleteWithoutWhere() throws {
        let db = try makeDatabase()
        try db.execute("INSERT INTO player (id, name) VALUES (1, 'a'), (2, 'b'), (3, 'c')")
        let recorder = try observe(db)
        try db.execute("DELETE FROM player")
        #expect(recorder.deliveries.first?.rowChanges.map(\.rowID) == [1, 2, 3])
        #expect(recorder.deliveries.first?.rowChanges.allSatisfy { $0.kind == .delete } == true)
    }

    @Test("WITHOUT ROWID and FTS5 tables, and triggers' tables, are reported in tables")
    func tablesWithoutRowids() throws {
        let db = try Database()
        try db.execute("CREATE TABLE tag (name TEXT PRIMARY KEY) WITHOUT ROWID")
        try db.execute("CREATE VIRTUAL TABLE note USING fts5(body)")
        try db.execute("CREATE TABLE log (x)")
        try db.execute("CREATE TRIGGER tag_log AFTER INSERT ON tag BEGIN INSERT INTO log VALUES (new.name); END")
        let recorder = try observe(db, rows: false)
        try db.execute("INSERT INTO tag (name) VALUES ('swift')")
        try db.execute("INSERT INTO note (body) VALUES ('hello')")
        try db.execute("UPDATE tag SET name = 'sql' WHERE name = 'nothing'")
        #expect(recorder.deliveries.count == 2)
        #expect(recorder.deliveries.first?.tables == ["tag", "log"])
        #expect(recorder.deliveries.last?.tables.contains("note") == true)
        #expect(recorder.deliveries.allSatisfy { $0.rowChanges.isEmpty })
    }

    @Test("statements prepared before the observer was added report their tables too")
    func statementsPreparedBefore() throws {
        let db = try makeDatabase()
        let insert = try db.prepare("INSERT INTO player (name) VALUES (?)")
        try insert.execute("Arthur")
        let recorder = try observe(db, rows: false)
        try insert.execute("Ford")
        #expect(recorder.deliveries.map(\.tables) == [["player"]])
    }

    @Test("an observer may read and write; its own commit is delivered after the one it is told of")
    func observerUsesTheConnection() throws {
        let db = try makeDatabase()
        // The observer captures the connection: closing it releases the observer, and so the cycle.
        defer { db.close() }
        var counts: [Int] = []
        var tables: [Set<String>] = []
        try db.addTransactionObserver { changes in
            tables.append(changes.tables)
            counts.append((try? db.queryValue("SELECT count(*) FROM player", as: Int.self)) ?? -1)
            if changes.tables.contains("player") {
                try? db.execute("INSERT INTO team (name) VALUES ('from observer')")
            }
        }
        try db.execute("INSERT INTO player (name) VALUES ('Arthur')")
        #expect(counts == [1, 1])
        #expect(tables == [["player"], ["team"]])
    }

    @Test("an observer that closes the connection: the statement returns, later uses throw connectionClosed")
    func observerCloses() throws {
        let db = try makeDatabase()
        try db.addTransactionObserver { _ in db.close() }
        try db.execute("INSERT INTO player (name) VALUES ('Arthur')")
        #expect(!db.isOpen)
        let error = #expect(throws: DatabaseError.self) { try db.execute("SELECT 1") }
        #expect(error?.reason == .connectionClosed)
    }

    @Test("removing an observer, or closing the connection, releases its closure and stops deliveries")
    func removalReleases() throws {
        final class Tracked {
            let deinitCount: Locked<Int>
            init(_ count: Locked<Int>) { deinitCount = count }
            deinit { deinitCount.withLock { $0 += 1 } }
        }
        let released = Locked(0)
        let db = try makeDatabase()
        var calls = 0
        let id: TransactionObserverID
        do {
            let tracked = Tracked(released)
            id = try db.addTransactionObserver { _ in
                _ = tracked
                calls += 1
            }
        }
        try db.execute("INSERT INTO player (name) VALUES ('Arthur')")
        db.removeTransactionObserver(id)
        #expect(released.withLock { $0 } == 1)
        try db.execute("INSERT INTO player (name) VALUES ('Ford')")
        #expect(calls == 1)
        db.removeTransactionObserver(id)  // twice: nothing

        do {
            let tracked = Tracked(released)
            try db.addTransactionObserver { _ in _ = tracked }
        }
        db.close()
        #expect(released.withLock { $0 } == 2)
        #expect(throws: DatabaseError.self) { try db.addTransactionObserver { _ in } }
    }

    @Test("without row changes, rowChanges stays empty and the tables still arrive")
    func withoutRowChanges() throws {
        let db = try makeDatabase()
        let recorder = try observe(db, rows: false)
        try db.execute("INSERT INTO player (name) VALUES ('Arthur')")
        #expect(recorder.deliveries.map(\.tables) == [["player"]])
        #expect(recorder.deliveries.first?.rowChanges == [])
    }

    @Test("a write with RETURNING whose first row is read, in autocommit, is delivered")
    func returningCommittedByReset() throws {
        let db = try makeDatabase()
        let recorder = try observe(db)
        let id = try db.queryValue("INSERT INTO player (name) VALUES ('Arthur') RETURNING id", as: Int.self)
        #expect(id == 1)
        #expect(recorder.deliveries.map(\.tables) == [["player"]])
    }

    @Test("SavepointCommand reads savepoint statements and nothing else")
    func savepointParsing() throws {
        // Observed through the public API: a name spelled like a keyword, quoted, is a name.
        let db = try makeDatabase()
        let recorder = try observe(db)
        try db.execute("BEGIN")
        try db.execute("SAVEPOINT [savepoint]")
        try db.execute("INSERT INTO player (name) VALUES ('x')")
        try db.execute("ROLLBACK TO SAVEPOINT `savepoint`")
        try db.execute("SELECT 'ROLLBACK TO savepoint'")
        try db.execute("COMMIT")
        #expect(recorder.deliveries.isEmpty)
    }
}
