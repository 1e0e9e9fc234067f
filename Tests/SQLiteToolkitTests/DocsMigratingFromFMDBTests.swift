import Foundation
import SQLiteToolkit
import Testing

/// The deliberate differences from FMDB that the migration article (Sources/SQLiteToolkit/SQLiteToolkit.docc/
/// MigratingFromFMDB.md) shows, line for line: `DocsSampleTests` checks that every line of its samples appears here.
@Suite("Docs: Migrating from FMDB")
struct DocsMigratingFromFMDBTests {
    @Test("foreign keys are enforced, double-quoted strings are identifiers, arguments must match")
    func strictDefaults() throws {
        let db = try Database()
        try db.execute("CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT)")
        try db.execute("CREATE TABLE book (title TEXT, authorID INTEGER REFERENCES author(id))")

        // FMDB inserted the orphan; here SQLite refuses it
        let orphan = try #require(throws: DatabaseError.self) {
            try db.execute("INSERT INTO book (title, authorID) VALUES (?, ?)", "Dune", 42)
        }
        #expect(orphan.extendedCode == .constraintForeignkey)
        // FMDB read "Frank" as a string; here it is an unknown column
        let quoted = try #require(throws: DatabaseError.self) {
            try db.execute("INSERT INTO author (name) VALUES (\"Frank\")")
        }
        #expect(quoted.message.contains("no such column"))
        // FMDB ignored the extra argument; here nothing runs
        let extra = try #require(throws: DatabaseError.self) {
            try db.execute("INSERT INTO author (name) VALUES (?)", "Frank", "Herbert")
        }
        #expect(extra.reason == .argumentMismatch(expected: 1, given: 2))
        #expect(try db.queryValue("SELECT count(*) FROM author", as: Int.self) == 0)

        var configuration = Database.Configuration()
        configuration.foreignKeysEnabled = false  // FMDB's behaviour, if you must
        configuration.allowsDoubleQuotedStringLiterals = true
        let lenient = try Database(configuration: configuration)
        try lenient.execute("CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT)")
        try lenient.execute("INSERT INTO author (name) VALUES (\"Frank\")")
        #expect(try lenient.queryValue("SELECT name FROM author", as: String.self) == "Frank")
    }

    @Test("transactions are IMMEDIATE by default; a nested one throws before its closure runs")
    func transactions() throws {
        try TemporaryFile.withDatabasePath { path in
            let db = try Database(path: path)
            try db.execute("CREATE TABLE t (x)")
            var configuration = Database.Configuration()
            configuration.busyMode = .immediateError
            let other = try Database(path: path, configuration: configuration)

            try db.transaction { db in  // BEGIN IMMEDIATE: the write lock is taken here
                let busy = try #require(throws: DatabaseError.self) {
                    try other.execute("INSERT INTO t VALUES (1)")
                }
                #expect(busy.isBusy)
                var ran = false
                let nested = try #require(throws: DatabaseError.self) {
                    try db.transaction { _ in ran = true }
                }
                #expect(nested.reason == .nestedTransaction)
                #expect(!ran)
                try db.savepoint { db in try db.execute("INSERT INTO t VALUES (2)") }  // nest with a savepoint
            }
            try db.transaction(.exclusive) { db in  // FMDB's beginTransaction, when you need it
                try db.execute("INSERT INTO t VALUES (3)")
            }
            #expect(try db.queryValue("SELECT sum(x) FROM t", as: Int.self) == 5)
        }
    }

    @Test("a nested access to the same queue throws instead of deadlocking")
    func reentry() throws {
        let queue = try DatabaseQueue()
        try queue.inDatabase { db in
            let error = try #require(throws: DatabaseError.self) {
                try queue.read { _ in 1 }  // FMDB: an assertion in debug builds, a deadlock in release
            }
            #expect(error.reason == .reentrantAccess)
            #expect(try db.queryValue("SELECT 1", as: Int.self) == 1)  // use the db you were given
        }
    }

    @Test("dates are REAL Unix seconds, as in FMDB; text dates read too")
    func dates() throws {
        let db = try Database()
        try db.execute("CREATE TABLE event (at)")
        let date = Date(timeIntervalSince1970: 1_361_361_600.5)
        try db.execute("INSERT INTO event (at) VALUES (?)", date)  // stored as REAL 1361361600.5
        try db.execute("INSERT INTO event (at) VALUES ('2013-02-20 12:00:00')")  // what CURRENT_TIMESTAMP writes
        let dates = try db.query("SELECT at FROM event ORDER BY rowid").map { try $0.value(at: 0) as Date }
        #expect(dates == [date, Date(timeIntervalSince1970: 1_361_361_600)])
        #expect(try db.queryValue("SELECT typeof(at) FROM event WHERE rowid = 1", as: String.self) == "real")
    }
}
