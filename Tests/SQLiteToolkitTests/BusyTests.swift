import Foundation
import SQLiteBindings
import SQLiteToolkit
import Testing

@Suite("Busy handling")
struct BusyTests {
    /// Calls `body` with a connection that holds the write lock of a fresh database file (`BEGIN IMMEDIATE`) and
    /// the path, so a second connection can be blocked by it.
    private func withWriteLockHeld(_ body: (_ holder: Database, _ path: String) throws -> Void) throws {
        try TemporaryFile.withDatabasePath { path in
            let holder = try Database(path: path)
            try holder.execute("CREATE TABLE t (x)")
            try holder.beginTransaction(.immediate)
            try body(holder, path)
            if holder.isInTransaction { try holder.rollback() }
            holder.close()
        }
    }

    private func configuration(_ mode: Database.BusyMode) -> Database.Configuration {
        var configuration = Database.Configuration()
        configuration.busyMode = mode
        return configuration
    }

    @Test(".immediateError fails at once with busy while another connection holds the write lock")
    func immediateError() throws {
        try withWriteLockHeld { _, path in
            let db = try Database(path: path, configuration: configuration(.immediateError))
            let error = try #require(throws: DatabaseError.self) { try db.beginTransaction(.immediate) }
            #expect(error.code == .busy)
            #expect(error.isBusy)
            #expect(!db.isInTransaction)
            #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (1)") }
            // Reading is still allowed: the holder has not written to the file yet.
            #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 0)
        }
    }

    @Test("a busy error can be caught by its code")
    func catchByCode() throws {
        try withWriteLockHeld { _, path in
            let db = try Database(path: path, configuration: configuration(.immediateError))
            do {
                try db.execute("INSERT INTO t VALUES (1)")
                Issue.record("the insert must fail while the lock is held")
            } catch ResultCode.busy {
                // expected
            }
        }
    }

    @Test(".timeout waits, then fails with busy")
    func timeout() throws {
        try withWriteLockHeld { _, path in
            let db = try Database(path: path, configuration: configuration(.timeout(0.2)))
            let start = Date()
            let error = try #require(throws: DatabaseError.self) { try db.beginTransaction(.immediate) }
            #expect(error.code == .busy)
            // A loose lower bound only: SQLite sleeps for the whole timeout before it gives up.
            #expect(Date().timeIntervalSince(start) >= 0.1)
        }
    }

    @Test("the write succeeds once the lock is released")
    func succeedsAfterRelease() throws {
        try withWriteLockHeld { holder, path in
            let db = try Database(path: path, configuration: configuration(.immediateError))
            #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (1)") }
            try holder.commit()
            try db.execute("INSERT INTO t VALUES (1)")
            #expect(try holder.queryValue("SELECT count(*) FROM t", as: Int.self) == 1)
        }
    }

    @Test(".handler is called with retry counts 0, 1, 2, ...; answering false fails with busy")
    func handlerRetryCounts() throws {
        try withWriteLockHeld { _, path in
            let calls = RetryLog()
            let db = try Database(
                path: path,
                configuration: configuration(
                    .handler { retries in
                        calls.append(retries)
                        return retries < 3
                    }))
            let error = try #require(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (1)") }
            #expect(error.code == .busy)
            #expect(calls.values == [0, 1, 2, 3])

            // Each new wait starts counting again from 0.
            calls.removeAll()
            #expect(throws: DatabaseError.self) { try db.beginTransaction(.immediate) }
            #expect(calls.values == [0, 1, 2, 3])
        }
    }

    @Test("a handler that always answers false fails at once after one call")
    func handlerRefusing() throws {
        try withWriteLockHeld { _, path in
            let calls = RetryLog()
            let db = try Database(
                path: path,
                configuration: configuration(
                    .handler { retries in
                        calls.append(retries)
                        return false
                    }))
            #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (1)") }
            #expect(calls.values == [0])
        }
    }

    @Test("a handler that retries until the lock is released lets the write succeed")
    func handlerUntilReleased() throws {
        try withWriteLockHeld { holder, path in
            let calls = RetryLog()
            let db = try Database(
                path: path,
                configuration: configuration(
                    .handler { retries in
                        calls.append(retries)
                        return retries < 100
                    }))
            #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (1)") }
            #expect(calls.values.count == 101)
            try holder.commit()
            calls.removeAll()
            try db.execute("INSERT INTO t VALUES (1)")
            #expect(calls.values.isEmpty)
        }
    }

    @Test("setBusyMode switches modes at run time")
    func switchModes() throws {
        try withWriteLockHeld { _, path in
            let db = try Database(path: path, configuration: configuration(.immediateError))
            #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (1)") }

            let calls = RetryLog()
            try db.setBusyMode(
                .handler { retries in
                    calls.append(retries)
                    return retries < 1
                })
            #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (1)") }
            #expect(calls.values == [0, 1])

            // Back to an immediate error: the handler is no longer asked.
            try db.setBusyMode(.immediateError)
            #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (1)") }
            #expect(calls.values == [0, 1])

            // A timeout replaces the handler too.
            try db.setBusyMode(.timeout(0.05))
            let error = try #require(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (1)") }
            #expect(error.code == .busy)
            #expect(calls.values == [0, 1])
        }
    }

    @Test("odd timeouts (zero, negative, infinite, NaN) are accepted")
    func oddTimeouts() throws {
        let db = try Database()
        for seconds in [0, -1, .infinity, .nan] as [TimeInterval] {
            try db.setBusyMode(.timeout(seconds))
        }
        try db.setBusyMode(.timeout(0))
        try withWriteLockHeld { _, path in
            let other = try Database(path: path, configuration: configuration(.timeout(-1)))
            let error = try #require(throws: DatabaseError.self) { try other.execute("INSERT INTO t VALUES (1)") }
            #expect(error.code == .busy)
        }
    }
}

/// The retry counts a busy handler saw. `@unchecked Sendable`: `lock` guards `log`.
private final class RetryLog: @unchecked Sendable {
    private let lock = NSLock()
    private var log: [Int] = []

    func append(_ retries: Int) {
        lock.withLock { log.append(retries) }
    }

    func removeAll() {
        lock.withLock { log.removeAll() }
    }

    var values: [Int] { lock.withLock { log } }
}
