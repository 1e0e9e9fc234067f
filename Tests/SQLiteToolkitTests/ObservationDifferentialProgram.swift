import Foundation
import SQLiteToolkit

/// The schema and the random statements of ``ObservationDifferentialTests``, and the oracle's triggers.
///
/// Every statement carries the tables it may write, triggers included, written by hand from the schema below: a
/// delivered table that did not change is imprecision when the unit ran a statement that may write it, and a
/// repeat (or a late delivery) when it did not.
enum ObservationProgram {
    /// A statement of a program and the lowercased names of the tables it may write.
    struct Statement {
        let sql: String
        let mayWrite: Set<String>

        /// Whether the statement gives rows, so that stepping it once may leave it partway.
        var returnsRows: Bool { sql.contains("RETURNING") || sql.hasPrefix("SELECT") }
    }

    /// How the program runs one statement.
    enum RunMode: CaseIterable {
        /// `db.execute(sql)`.
        case execute
        /// `prepare`, `step` to the end, `reset`.
        case stepReset
        /// `prepare`, `step` to the end, `reset`, `reset`.
        case stepResetTwice
        /// `prepare`, `step` to the end, then the statement is released (finalized) without a reset.
        case stepRelease
        /// `prepare`, one `step`, `reset`: a statement that gives rows stops partway.
        case partialReset
        /// `prepare`, one `step`, then the statement is released (finalized): partway for a statement with rows.
        case partialRelease
    }

    /// The schema: rowid tables, a `WITHOUT ROWID` table, a view written through `INSTEAD OF` triggers, a trigger
    /// that cascades, a `BEFORE` trigger that writes elsewhere then skips its row with `RAISE(IGNORE)`, a deferred
    /// foreign key, a table with a mixed-case name, a table without a delete trigger (so that `DELETE` without
    /// `WHERE` takes SQLite's truncate optimization), a temp table, and a table of an attached database.
    static let schema = [
        "CREATE TABLE a (id INTEGER PRIMARY KEY, v INTEGER UNIQUE, w TEXT)",
        "CREATE TABLE b (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)",
        "CREATE TABLE c (id INTEGER PRIMARY KEY, b_id INTEGER, v INTEGER)",
        "CREATE TRIGGER b_cascade_insert AFTER INSERT ON b BEGIN INSERT INTO c (b_id, v) VALUES (new.id, new.v); END",
        "CREATE TRIGGER b_cascade_delete AFTER DELETE ON b BEGIN DELETE FROM c WHERE b_id = old.id; END",
        "CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER CHECK (v >= 0)) WITHOUT ROWID",
        "CREATE TABLE items (id INTEGER PRIMARY KEY, v INTEGER)",
        "CREATE VIEW items_view AS SELECT id, v FROM items",
        "CREATE TRIGGER items_view_insert INSTEAD OF INSERT ON items_view BEGIN "
            + "INSERT INTO items (v) VALUES (new.v); END",
        "CREATE TRIGGER items_view_update INSTEAD OF UPDATE ON items_view BEGIN "
            + "UPDATE items SET v = new.v WHERE id = old.id; END",
        "CREATE TRIGGER items_view_delete INSTEAD OF DELETE ON items_view BEGIN "
            + "DELETE FROM items WHERE id = old.id; END",
        "CREATE TABLE guarded (id INTEGER PRIMARY KEY, v INTEGER)",
        "CREATE TABLE audit (id INTEGER PRIMARY KEY, v INTEGER)",
        "CREATE TRIGGER guarded_skip BEFORE INSERT ON guarded WHEN new.v < 0 BEGIN "
            + "INSERT INTO audit (v) VALUES (new.v); SELECT RAISE(IGNORE); END",
        "CREATE TABLE parent (id INTEGER PRIMARY KEY)",
        "CREATE TABLE child (id INTEGER PRIMARY KEY, "
            + "parent_id INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)",
        "CREATE TABLE Players (id INTEGER PRIMARY KEY, name TEXT)",
        "CREATE TABLE bulk (id INTEGER PRIMARY KEY, v INTEGER)",
        "CREATE TEMP TABLE scratch (id INTEGER PRIMARY KEY, v INTEGER)",
        "CREATE TABLE aux.remote (id INTEGER PRIMARY KEY, v INTEGER UNIQUE)",
        "INSERT INTO a (v, w) VALUES (1, 'one'), (3, 'three'), (5, 'five')",
        "INSERT INTO b (v) VALUES (1), (4)",
        "INSERT INTO kv (k, v) VALUES ('k1', 1), ('k4', 4)",
        "INSERT INTO items (v) VALUES (2), (6)",
        "INSERT INTO parent (id) VALUES (1), (2), (3)",
        "INSERT INTO child (parent_id) VALUES (1)",
        "INSERT INTO bulk (v) VALUES (1), (2)",
        "INSERT INTO aux.remote (v) VALUES (2)",
    ]

    /// The real tables the oracle logs, with their schemas; `bulk` has no delete trigger (the oracle compares its
    /// content instead).
    static let loggedTables: [(schema: String, table: String)] = [
        ("main", "a"), ("main", "b"), ("main", "c"), ("main", "kv"), ("main", "items"), ("main", "guarded"),
        ("main", "audit"), ("main", "parent"), ("main", "child"), ("main", "Players"), ("main", "bulk"),
        ("temp", "scratch"), ("aux", "remote"),
    ]

    /// The oracle: a log table in the main database, and `TEMP` triggers (they may watch any schema's table and
    /// write any schema's) that log each changed row's table. The log's rows commit and roll back with what they
    /// log, and are read through a second connection once each unit is over. The triggers also call
    /// `oracle_touch(table)`, a function of the test whose record is not rolled back: it tells which statements
    /// changed a row at all, and which tables a unit changed and then rolled back.
    static var oracle: [String] {
        var sql = ["CREATE TABLE oracle_log (id INTEGER PRIMARY KEY, tbl TEXT NOT NULL)"]
        for (schema, table) in loggedTables {
            let operations = table == "bulk" ? ["INSERT", "UPDATE"] : ["INSERT", "UPDATE", "DELETE"]
            for operation in operations {
                sql.append(
                    "CREATE TEMP TRIGGER oracle_\(table)_\(operation.lowercased()) AFTER \(operation) ON "
                        + "\(schema).\(table) BEGIN INSERT INTO oracle_log (tbl) VALUES ('\(table.lowercased())'); "
                        + "SELECT oracle_touch('\(table.lowercased())'); END"
                )
            }
        }
        return sql
    }

    /// The tables the named-tables observer watches, spelled in another case than their `CREATE TABLE`.
    static let namedTables: Set<String> = ["A", "Items", "KV", "audit", "Remote", "players", "C", "BULK", "scratch"]

    /// A random element of `elements`, which must not be empty.
    static func pick<T>(_ elements: [T], _ random: inout SeededRandom) -> T {
        elements[Int.random(in: 0..<elements.count, using: &random)]
    }

    /// A random statement that writes (or tries to, or reads): conflicts, failures midway, no-op writes, `DELETE`
    /// without `WHERE`, writes through the view, triggers that cascade or skip, `RETURNING`.
    static func randomStatement(_ random: inout SeededRandom) -> Statement {
        let n = Int.random(in: 0..<8, using: &random)
        let conflict = pick(["", " OR ABORT", " OR FAIL", " OR IGNORE", " OR REPLACE"], &random)
        let templates: [(String, Set<String>)] = [
            ("INSERT\(conflict) INTO a (v, w) VALUES (\(n), 'w\(n)')", ["a"]),
            ("INSERT\(conflict) INTO a (v) VALUES (\(n)), (\(n + 1)), (\(n + 2))", ["a"]),
            ("UPDATE\(conflict) a SET v = v + 1", ["a"]),
            ("UPDATE a SET w = 'u\(n)' WHERE v = \(n)", ["a"]),
            ("UPDATE a SET w = 'never' WHERE 0", ["a"]),
            ("DELETE FROM a WHERE v > \(n)", ["a"]),
            ("DELETE FROM a", ["a"]),
            ("INSERT INTO b (v) VALUES (\(n))", ["b", "c"]),
            ("INSERT INTO b (v) VALUES (NULL)", ["b", "c"]),
            ("DELETE FROM b WHERE v <= \(n)", ["b", "c"]),
            ("UPDATE c SET v = v + 1 WHERE b_id % 2 = \(n % 2)", ["c"]),
            ("INSERT\(conflict) INTO kv (k, v) VALUES ('k\(n)', \(n))", ["kv"]),
            ("UPDATE\(conflict) kv SET v = v - 3", ["kv"]),
            ("DELETE FROM kv", ["kv"]),
            ("INSERT INTO items_view (v) VALUES (\(n))", ["items", "items_view"]),
            ("UPDATE items_view SET v = v + 1 WHERE v < \(n)", ["items", "items_view"]),
            ("DELETE FROM items_view WHERE v = \(n)", ["items", "items_view"]),
            ("INSERT INTO guarded (v) VALUES (\(n - 4))", ["guarded", "audit"]),
            ("DELETE FROM audit", ["audit"]),
            ("INSERT OR IGNORE INTO parent (id) VALUES (\(n))", ["parent"]),
            ("DELETE FROM parent WHERE id = \(n)", ["parent"]),
            ("INSERT INTO child (parent_id) VALUES (\(n))", ["child"]),
            ("DELETE FROM child WHERE parent_id = \(n)", ["child"]),
            ("INSERT INTO scratch (v) VALUES (\(n))", ["scratch"]),
            ("DELETE FROM temp.scratch", ["scratch"]),
            ("INSERT\(conflict) INTO aux.remote (v) VALUES (\(n))", ["remote"]),
            ("UPDATE\(conflict) remote SET v = v + 1", ["remote"]),
            ("INSERT INTO players (name) VALUES ('p\(n)')", ["players"]),
            ("DELETE FROM PLAYERS WHERE name = 'p\(n)' RETURNING id", ["players"]),
            ("INSERT INTO bulk (v) VALUES (\(n))", ["bulk"]),
            ("DELETE FROM bulk", ["bulk"]),
            ("INSERT\(conflict) INTO a (v) VALUES (\(n)), (\(n + 3)) RETURNING id", ["a"]),
            ("DELETE FROM c WHERE v < \(n) RETURNING id", ["c"]),
            ("UPDATE kv SET v = v + 1 RETURNING k", ["kv"]),
            ("SELECT count(*) FROM a", []),
        ]
        let (sql, mayWrite) = pick(templates, &random)
        return Statement(sql: sql, mayWrite: mayWrite)
    }

    /// Savepoint names, some of which need quoting; `sp` and `SP` are one name to SQLite.
    static let savepointNames = ["sp", "SP", "a b", "x;y", "s2", "r1"]

    /// `name` as SQL, quoted in one of SQLite's ways when it must be (and sometimes when it need not be), in a
    /// random case when it is a plain word.
    static func spell(_ name: String, _ random: inout SeededRandom) -> String {
        let isPlain = name.allSatisfy { $0.isLetter || $0.isNumber }
        let style = Int.random(in: 0..<(isPlain ? 5 : 3), using: &random)
        switch style {
        case 0: return "\"\(name)\""
        case 1: return "[\(name)]"
        case 2: return "`\(name)`"
        case 3: return name.uppercased()
        default: return name
        }
    }

    /// A prefix SQLite skips before a statement: none, a block comment or a line comment.
    static func leadingComment(_ random: inout SeededRandom) -> String {
        pick(["", "", "", "/* note */ ", "-- note\n", "  "], &random)
    }

    static func savepoint(_ name: String, _ random: inout SeededRandom) -> String {
        leadingComment(&random) + pick(["SAVEPOINT", "savepoint", "Savepoint"], &random) + " " + spell(name, &random)
    }

    static func release(_ name: String, _ random: inout SeededRandom) -> String {
        let verb = pick(["RELEASE", "release", "RELEASE SAVEPOINT", "release savepoint", "Release Savepoint"], &random)
        return leadingComment(&random) + verb + " " + spell(name, &random)
    }

    static func rollbackTo(_ name: String, _ random: inout SeededRandom) -> String {
        let verb = pick(
            [
                "ROLLBACK TO", "rollback to", "ROLLBACK TO SAVEPOINT", "rollback transaction to savepoint",
                "Rollback Transaction To",
            ], &random)
        return leadingComment(&random) + verb + " " + spell(name, &random)
    }
}
