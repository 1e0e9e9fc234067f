import Foundation
import SQLiteToolkit
import Testing

/// The cross-process write gate (`Configuration.usesWriteGate`) between connections of one process: each connection
/// opens the gate's files itself, so the kernel queues them as it queues processes. The processes themselves are
/// in `MultiProcessTests`.
@Suite("Write gate")
struct WriteGateTests {
    private func gated(_ mode: Database.BusyMode = .timeout(5)) -> Database.Configuration {
        var configuration = Database.Configuration()
        configuration.usesWriteGate = true
        configuration.busyMode = mode
        return configuration
    }

    /// Calls `body` with two gated connections on a fresh file with a table `t (x)`.
    private func withTwoWriters(
        second mode: Database.BusyMode = .timeout(5), _ body: (Database, Database, String) throws -> Void
    ) throws {
        try TemporaryFile.withDatabasePath { path in
            let first = try Database(path: path, configuration: gated())
            try first.execute("CREATE TABLE t (x)")
            let second = try Database(path: path, configuration: gated(mode))
            try body(first, second, path)
            first.close()
            second.close()
        }
    }

    @Test("a writer waits for the gate only up to its busy timeout, then throws busy with reason writeGateTimeout")
    func timeout() throws {
        try withTwoWriters(second: .timeout(0.2)) { first, second, _ in
            try first.beginTransaction()
            let start = Date()
            let error = try #require(throws: DatabaseError.self) { try second.beginTransaction() }
            let waited = Date().timeIntervalSince(start)
            #expect(error.isBusy)
            #expect(error.reason == .writeGateTimeout)
            #expect(!second.isInTransaction)
            // It waited for the gate, and stopped: never an unbounded hang (the bound is generous for a loaded
            // machine; it only tells a wait of its timeout from no wait or a wait without end).
            #expect(waited >= 0.19 && waited < 30, "waited \(waited) s")
            try first.commit()
            // The request that timed out is still queued in the kernel; the next transaction takes it.
            try second.transaction { db in try db.execute("INSERT INTO t VALUES (2)") }
            #expect(try first.queryValue("SELECT count(*) FROM t", as: Int.self) == 1)
        }
    }

    @Test(".immediateError does not wait for the gate")
    func immediateError() throws {
        try withTwoWriters(second: .immediateError) { first, second, _ in
            try first.beginTransaction(.exclusive)
            let error = try #require(throws: DatabaseError.self) { try second.beginTransaction() }
            #expect(error.reason == .writeGateTimeout)
            try first.rollback()
            try second.transaction { db in try db.execute("INSERT INTO t VALUES (1)") }
        }
    }

    @Test("a handler busy mode is asked while the gate stays closed, and its false ends the wait")
    func handler() throws {
        let asked = Counter()
        try withTwoWriters(second: .handler { retries in asked.set(retries + 1) < 5 }) { first, second, _ in
            try first.beginTransaction()
            let error = try #require(throws: DatabaseError.self) { try second.beginTransaction() }
            #expect(error.reason == .writeGateTimeout)
            #expect(asked.value == 5)
            try first.commit()
        }
    }

    @Test("the gate is given back at commit, at rollback, when the body throws and when BEGIN fails")
    func releasedAtEveryEnd() throws {
        try withTwoWriters(second: .immediateError) { first, second, _ in
            try first.transaction { db in try db.execute("INSERT INTO t VALUES (1)") }
            try second.transaction { db in try db.execute("INSERT INTO t VALUES (2)") }
            try first.inTransaction { _ in .rollback }
            try second.transaction { db in try db.execute("INSERT INTO t VALUES (3)") }
            struct Failure: Error {}
            #expect(throws: Failure.self) { try first.transaction { _ in throw Failure() } }
            try second.transaction { db in try db.execute("INSERT INTO t VALUES (4)") }
            // BEGIN fails: SQLite's write lock is held by a connection without the gate.
            var outsiderConfiguration = Database.Configuration()
            outsiderConfiguration.busyMode = .immediateError
            let outsider = try Database(path: second.path, configuration: outsiderConfiguration)
            try outsider.beginTransaction()
            #expect(throws: DatabaseError.self) { try second.beginTransaction() }
            try outsider.rollback()
            outsider.close()
            // `second` gave the gate back when its BEGIN failed.
            try first.transaction { db in try db.execute("INSERT INTO t VALUES (5)") }
            #expect(try first.queryValue("SELECT count(*) FROM t", as: Int.self) == 5)
        }
    }

    @Test("a transaction ended by SQL text keeps the gate until the queue's access ends")
    func endedBySQLText() throws {
        try TemporaryFile.withDatabasePath { path in
            let queue = try DatabaseQueue(path: path, configuration: gated())
            try queue.inDatabase { db in try db.execute("CREATE TABLE t (x)") }
            let other = try Database(path: path, configuration: gated(.immediateError))
            try queue.inDatabase { db in
                try db.beginTransaction()
                try db.execute("COMMIT")
                #expect(throws: DatabaseError.self) { try other.beginTransaction() }
            }
            try other.transaction { db in try db.execute("INSERT INTO t VALUES (1)") }
            other.close()
            queue.close()
        }
    }

    @Test("threads of one process take the gate in turns and every increment lands")
    func threadsTakeTurns() throws {
        try TemporaryFile.withDatabasePath { path in
            let setup = try Database(path: path)
            _ = try setup.queryValue("PRAGMA journal_mode = wal", as: String.self)
            try setup.execute("CREATE TABLE counter (value INTEGER NOT NULL)")
            try setup.execute("INSERT INTO counter VALUES (0)")
            let failures = Counter()
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                do {
                    let db = try Database(path: path, configuration: gated())
                    defer { db.close() }
                    for _ in 0..<100 {
                        try db.transaction { db in
                            try db.execute("UPDATE counter SET value = value + 1")
                            usleep(200)
                        }
                    }
                } catch {
                    failures.add()
                }
            }
            #expect(failures.value == 0)
            #expect(try setup.queryValue("SELECT value FROM counter", as: Int.self) == 400)
            setup.close()
        }
    }

    @Test("in-memory databases, deferred transactions and connections without the option create no gate files")
    func noFilesWhereNotUsed() throws {
        let memory = try Database(configuration: gated())
        try memory.transaction { db in try db.execute("CREATE TABLE t (x)") }
        try TemporaryFile.withDatabasePath { path in
            let plain = try Database(path: path)
            try plain.transaction { db in try db.execute("CREATE TABLE t (x)") }
            let deferred = try Database(path: path, configuration: gated())
            try deferred.transaction(.deferred) { db in try db.execute("INSERT INTO t VALUES (1)") }
            #expect(!TemporaryFile.exists(path + "-writegate"))
            #expect(!TemporaryFile.exists(path + "-writequeue"))
            try deferred.transaction { db in try db.execute("INSERT INTO t VALUES (2)") }
            #expect(TemporaryFile.exists(path + "-writegate"))
            #expect(TemporaryFile.exists(path + "-writequeue"))
            plain.close()
            deferred.close()
        }
    }
}

/// A counter shared between threads.
private final class Counter: @unchecked Sendable {
    // @unchecked Sendable: `count` is read and written holding `lock`.
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.withLock { count } }

    func add() { lock.withLock { count += 1 } }

    /// Sets the count and returns it.
    func set(_ value: Int) -> Int {
        lock.withLock {
            count = value
            return value
        }
    }
}
