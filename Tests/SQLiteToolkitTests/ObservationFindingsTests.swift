import SQLiteToolkit
import Testing

/// The ways observers missed or repeated a commit, each found by trying it (see the observation issue's findings):
/// every test here failed before its fix.
@Suite("Transaction observers: views, triggers, statement reuse and savepoints")
struct ObservationFindingsTests {
    private final class Recorder {
        var deliveries: [Set<String>] = []
    }

    private func makeDatabase() throws -> Database {
        let db = try Database()
        try db.executeScript(
            """
            CREATE TABLE a (x);
            CREATE TABLE b (x);
            CREATE TABLE log (x);
            CREATE VIEW v AS SELECT x FROM a;
            CREATE TRIGGER v_insert INSTEAD OF INSERT ON v BEGIN INSERT INTO a VALUES (new.x); END;
            CREATE TRIGGER v_delete INSTEAD OF DELETE ON v BEGIN DELETE FROM a WHERE x = old.x; END;
            CREATE TABLE skipped (x);
            CREATE TRIGGER skip BEFORE INSERT ON skipped BEGIN INSERT INTO log VALUES (new.x); SELECT RAISE(IGNORE); END;
            """)
        return db
    }

    /// Registers the observer the way observed queries do: no row changes.
    private func observe(_ db: Database, tables: Set<String>? = nil) throws -> Recorder {
        let recorder = Recorder()
        try db.addTransactionObserver(tables: tables, includingRowChanges: false) {
            recorder.deliveries.append(Set($0.tables.map { $0.lowercased() }))
        }
        return recorder
    }

    @Test(
        "a write through a view whose INSTEAD OF trigger writes a watched table is delivered", arguments: [nil, ["a"]])
    func writeThroughView(tables: Set<String>?) throws {
        let db = try makeDatabase()
        let recorder = try observe(db, tables: tables)
        try db.execute("INSERT INTO v VALUES (1)")
        #expect(recorder.deliveries.map { $0.contains("a") } == [true])
        try db.execute("DELETE FROM v WHERE x = 1")
        #expect(recorder.deliveries.map { $0.contains("a") } == [true, true])
    }

    @Test("a row a BEFORE trigger skips with RAISE(IGNORE), after writing another table, delivers that table")
    func raiseIgnoreAfterWriting() throws {
        let db = try makeDatabase()
        let recorder = try observe(db, tables: ["log"])
        try db.execute("INSERT INTO skipped VALUES (1)")
        #expect(recorder.deliveries == [["log"]])
        #expect(try db.queryValue("SELECT count(*) FROM skipped", as: Int.self) == 0)
    }

    @Test("a statement stepped to its end, then reset, is delivered once, and the next commit names only its table")
    func stepThenReset() throws {
        let db = try makeDatabase()
        let recorder = try observe(db)
        let insertA = try db.prepare("INSERT INTO a VALUES (1)")
        #expect(try insertA.step() == false)
        try insertA.reset()
        try insertA.reset()
        #expect(recorder.deliveries == [["a"]])
        let insertB = try db.prepare("INSERT INTO b VALUES (1)")
        #expect(try insertB.step() == false)
        try insertB.reset()
        #expect(recorder.deliveries == [["a"], ["b"]])
        // The same statement run again is a new run, delivered again.
        #expect(try insertA.step() == false)
        try insertA.reset()
        #expect(recorder.deliveries == [["a"], ["b"], ["a"]])
    }

    @Test("two statements stepped to their ends, then both reset, are each delivered once")
    func interleavedResets() throws {
        let db = try makeDatabase()
        let recorder = try observe(db)
        let insertA = try db.prepare("INSERT INTO a VALUES (1)")
        let insertB = try db.prepare("INSERT INTO b VALUES (1)")
        _ = try insertA.step()
        _ = try insertB.step()
        try insertA.reset()
        try insertB.reset()
        let insertLog = try db.prepare("INSERT INTO log VALUES (1)")
        _ = try insertLog.step()
        #expect(recorder.deliveries == [["a"], ["b"], ["log"]])
    }

    @Test("a failed statement reset afterwards delivers nothing, and the next commit only its own table")
    func failedThenReset() throws {
        let db = try makeDatabase()
        try db.execute("CREATE TABLE unique_x (x UNIQUE)")
        try db.execute("INSERT INTO unique_x VALUES (1)")
        let recorder = try observe(db)
        let duplicate = try db.prepare("INSERT INTO unique_x VALUES (1)")
        #expect(throws: DatabaseError.self) { try duplicate.step() }
        try duplicate.reset()
        try db.execute("INSERT INTO b VALUES (1)")
        #expect(recorder.deliveries == [["b"]])
    }

    @Test(
        "a savepoint is followed whatever its SQL looks like: quoted names, comments, a long preamble, steps and resets",
        arguments: [
            ("SAVEPOINT \"a b\"", "ROLLBACK TO \"a b\""),
            ("/* a comment */ savepoint [x]", "rollback  transaction  to  savepoint  `x`"),
            (String(repeating: "-- a long comment line\n", count: 40) + "SAVEPOINT s", "ROLLBACK TO s"),
        ])
    func savepointSpellings(begin: String, rollback: String) throws {
        let db = try makeDatabase()
        let recorder = try observe(db)
        try db.execute("BEGIN")
        try db.execute("INSERT INTO b VALUES (1)")
        let savepoint = try db.prepare(begin)
        _ = try savepoint.step()
        try savepoint.reset()
        try db.execute("INSERT INTO a VALUES (1)")
        try db.execute(rollback)
        try db.execute("COMMIT")
        // The savepoint's row of `a` was rolled back: only `b` committed.
        #expect(recorder.deliveries == [["b"]])
        #expect(try db.queryValue("SELECT count(*) FROM a", as: Int.self) == 0)
    }
}
