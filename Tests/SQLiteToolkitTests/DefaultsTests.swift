import Dispatch
import Foundation
import SQLiteBindings
import SQLiteToolkit
import Testing

@Suite("Defaults applied at open")
struct DefaultsTests {
    // MARK: Extended result codes

    @Test("extended result codes are on: a constraint error names the constraint")
    func extendedResultCodesOn() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x UNIQUE NOT NULL)")
        try db.execute("INSERT INTO t VALUES (1)")
        let unique = try #require(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (1)") }
        #expect(unique.extendedCode == .constraintUnique)
        #expect(unique.code == .constraint)
        let notNull = try #require(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (NULL)") }
        #expect(notNull.extendedCode == .constraintNotnull)

        // The C API returns extended codes too.
        let handle = try #require(db.handle)
        let statement = try #require(handle.prepare(sql: "INSERT INTO t VALUES (1)", flags: []).statement)
        defer { _ = statement.finalize() }
        #expect(statement.step() == .constraintUnique)
    }

    @Test("usesExtendedResultCodes = false gives primary codes from the C API; errors stay extended")
    func extendedResultCodesOff() throws {
        var configuration = Database.Configuration()
        configuration.usesExtendedResultCodes = false
        let db = try Database(configuration: configuration)
        try db.execute("CREATE TABLE t (x UNIQUE)")
        try db.execute("INSERT INTO t VALUES (1)")
        let handle = try #require(db.handle)
        let statement = try #require(handle.prepare(sql: "INSERT INTO t VALUES (1)", flags: []).statement)
        defer { _ = statement.finalize() }
        #expect(statement.step() == ResultCode.constraint)
        #expect(handle.extendedErrorCode() == .constraintUnique)

        let error = try #require(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (1)") }
        #expect(error.extendedCode == .constraintUnique)
    }

    // MARK: Busy timeout

    @Test("the default busy mode is a 5 second timeout")
    func defaultBusyMode() throws {
        guard case .timeout(let seconds) = Database.Configuration().busyMode else {
            Issue.record("the default busy mode is not a timeout")
            return
        }
        #expect(seconds == 5)
    }

    @Test("by default a blocked write waits for the lock instead of failing at once")
    func defaultBusyTimeoutWaits() throws {
        try TemporaryFile.withDatabasePath { path in
            let holder = try Database(path: path)
            try holder.execute("CREATE TABLE t (x)")
            // The holder keeps a read transaction open: its shared lock lets a writer write, but not commit.
            try holder.beginTransaction(.deferred)
            #expect(try holder.queryValue("SELECT count(*) FROM t", as: Int.self) == 0)
            // A connection that never waits. SQLite refuses it a read only while a writer holds the pending lock,
            // which a committing writer takes, and keeps, while it waits for the readers to leave.
            var probeConfiguration = Database.Configuration()
            probeConfiguration.busyMode = .immediateError
            let probe = try Database(path: path, configuration: probeConfiguration)

            // The waiting connection is opened on a thread of its own (not a global dispatch queue, whose few
            // threads the tests running in parallel may all be using), with the default configuration.
            let finished = DispatchSemaphore(value: 0)
            let outcome = Outcome()
            Thread {
                do {
                    let waiter = try Database(path: path)
                    try waiter.execute("INSERT INTO t VALUES (1)")
                    outcome.set(nil)
                } catch {
                    outcome.set(error)
                }
                finished.signal()
            }.start()
            // Handshake: the probe is refused once the waiter is blocked in its commit. A waiter that did not wait
            // returns (with SQLITE_BUSY) while the holder still reads.
            let waited = try probeUntilReached(orEnded: finished) {
                do {
                    _ = try probe.queryValue("SELECT count(*) FROM t", as: Int.self)
                    return false
                } catch let error as DatabaseError where error.isBusy {
                    return true
                }
            }
            try holder.commit()
            #expect(waited, "the write returned while the holder still read")
            #expect(wait(finished))
            #expect(outcome.error == nil)
            #expect(try holder.queryValue("SELECT count(*) FROM t", as: Int.self) == 1)
            holder.close()
            probe.close()
        }
    }

    @Test("busyMode .timeout makes a blocked write wait, then fail with busy")
    func busyTimeoutFailsAfterWaiting() throws {
        try TemporaryFile.withDatabasePath { path in
            let holder = try Database(path: path)
            try holder.execute("CREATE TABLE t (x)")
            try holder.beginTransaction(.immediate)

            var configuration = Database.Configuration()
            configuration.busyMode = .timeout(0.2)
            let waiter = try Database(path: path, configuration: configuration)
            let start = Date()
            let error = try #require(throws: DatabaseError.self) { try waiter.execute("INSERT INTO t VALUES (1)") }
            // A loose lower bound only: SQLite sleeps for the whole timeout before it gives up.
            #expect(Date().timeIntervalSince(start) >= 0.1)
            #expect(error.code == .busy)
            #expect(error.isBusy)
            try holder.rollback()
            holder.close()
            waiter.close()
        }
    }

    // MARK: Defensive

    @Test("SQLITE_DBCONFIG_DEFENSIVE is on: the schema table cannot be written even with writable_schema")
    func defensiveOn() throws {
        let db = try Database()
        #expect(db.handle?.configure(.defensive, -1).value == 1)
        try db.execute("CREATE TABLE t (x)")
        try db.execute("PRAGMA writable_schema = ON")
        let error = try #require(throws: DatabaseError.self) {
            try db.execute("UPDATE sqlite_schema SET sql = 'CREATE TABLE t (y)' WHERE name = 't'")
        }
        #expect(error.message.contains("may not be modified"))
    }

    @Test("isDefensive = false lets writable_schema write the schema table")
    func defensiveOff() throws {
        var configuration = Database.Configuration()
        configuration.isDefensive = false
        let db = try Database(configuration: configuration)
        #expect(db.handle?.configure(.defensive, -1).value == 0)
        try db.execute("CREATE TABLE t (x)")
        try db.execute("PRAGMA writable_schema = ON")
        try db.execute("UPDATE sqlite_schema SET sql = 'CREATE TABLE t (x)' WHERE name = 't'")
        #expect(db.changes == 1)
        try db.execute("PRAGMA writable_schema = OFF")
    }

    // MARK: Foreign keys

    @Test("foreign keys are enforced: a violation throws constraintForeignkey")
    func foreignKeysOn() throws {
        let db = try Database()
        #expect(try db.queryValue("PRAGMA foreign_keys", as: Int.self) == 1)
        try db.executeScript(
            """
            CREATE TABLE parent (id INTEGER PRIMARY KEY);
            CREATE TABLE child (parentID INTEGER REFERENCES parent (id));
            INSERT INTO parent VALUES (1);
            INSERT INTO child VALUES (1);
            """)
        let error = try #require(throws: DatabaseError.self) { try db.execute("INSERT INTO child VALUES (?)", 2) }
        #expect(error.extendedCode == .constraintForeignkey)
        #expect(error.isConstraintViolation)
        #expect(try db.queryValue("SELECT count(*) FROM child", as: Int.self) == 1)
    }

    @Test("foreignKeysEnabled = false leaves foreign keys unchecked")
    func foreignKeysOff() throws {
        var configuration = Database.Configuration()
        configuration.foreignKeysEnabled = false
        let db = try Database(configuration: configuration)
        #expect(try db.queryValue("PRAGMA foreign_keys", as: Int.self) == 0)
        try db.executeScript(
            """
            CREATE TABLE parent (id INTEGER PRIMARY KEY);
            CREATE TABLE child (parentID INTEGER REFERENCES parent (id));
            """)
        try db.execute("INSERT INTO child VALUES (?)", 2)
        #expect(try db.queryValue("SELECT count(*) FROM child", as: Int.self) == 1)
    }

    // MARK: Double-quoted strings

    @Test("double-quoted string literals are off: an unknown double-quoted name is a column error")
    func doubleQuotedStringsOff() throws {
        let db = try Database()
        let error = try #require(throws: DatabaseError.self) { try db.execute("SELECT \"nonexistent\"") }
        #expect(error.code == .error)
        #expect(error.message.contains("no such column: \"nonexistent\""))
        try db.execute("CREATE TABLE t (x)")
        #expect(throws: DatabaseError.self) { try db.execute("CREATE INDEX i ON t (\"nonexistent\")") }
        #expect(db.handle?.configure(.dqsDml, -1).value == 0)
        #expect(db.handle?.configure(.dqsDdl, -1).value == 0)
    }

    @Test("allowsDoubleQuotedStringLiterals = true restores SQLite's legacy reading")
    func doubleQuotedStringsOn() throws {
        var configuration = Database.Configuration()
        configuration.allowsDoubleQuotedStringLiterals = true
        let db = try Database(configuration: configuration)
        #expect(try db.queryValue("SELECT \"nonexistent\"", as: String.self) == "nonexistent")
    }
}

/// The error a background thread saw, handed back to the test. `@unchecked Sendable`: `lock` guards `value`.
private final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var value: (any Error)?

    func set(_ error: (any Error)?) {
        lock.withLock { value = error }
    }

    var error: (any Error)? { lock.withLock { value } }
}
