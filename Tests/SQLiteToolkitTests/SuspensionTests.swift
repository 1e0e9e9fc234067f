import Foundation
import Testing

@testable import SQLiteToolkit

/// The locks another process sees on a database file, its `-wal` and its `-shm`: `sqltk-test-helper locks`, which asks
/// with `fcntl(F_GETLK)` from outside this process (POSIX locks are per process, so this process cannot ask itself).
enum LockProbe {
    /// The helper's `lock FILE TYPE START LENGTH PID` lines; blocks until it exits.
    static func locks(on path: String) throws -> [String] {
        let process = Process()
        process.executableURL = try TestHelper.executable()
        process.arguments = ["locks", path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        guard process.terminationStatus == 0, lines.last == "done" else {
            throw TestHelper.HelperError(description: "sqltk-test-helper locks failed: \(lines)")
        }
        return lines.filter { $0.hasPrefix("lock ") }
    }
}

/// The set-up hook of the suspension tests: WAL mode, and `mark(x)`, which returns `x` and records that a statement
/// runs (a test interrupts only a statement that runs).
func suspensionSetUp(marking started: Locked<Bool>) -> @Sendable (Database) throws -> Void {
    { db in
        _ = try db.queryValue("PRAGMA journal_mode = WAL", as: String.self)
        try db.createFunction("mark") { (x: Int) -> Int in
            started.withLock { $0 = true }
            return x
        }
    }
}

/// A query that runs for minutes unless interrupted, calling `mark` on every row.
let longMarkedQuery =
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT count(mark(x)) FROM c"

@Suite("Suspension of a queue", .serialized, .timeLimit(.minutes(2)))
struct QueueSuspensionTests {
    func makeQueue(_ path: String, started: Locked<Bool> = Locked(false)) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: path, setUp: suspensionSetUp(marking: started))
        try queue.write { db in
            try db.execute("CREATE TABLE t (x)")
            try db.execute("INSERT INTO t VALUES (1), (2)")
        }
        return queue
    }

    @Test("a second process sees the locks of an open read, and none once suspend() returns; resume() carries on")
    func locksGoAway() throws {
        try TemporaryFile.withDatabasePath { path in
            let queue = try makeQueue(path)
            defer { queue.close() }
            let during = try queue.read { db in
                let rows = try db.query("SELECT x FROM t")
                _ = try rows.next()
                return try LockProbe.locks(on: path)
            }
            // The -shm file's DMS byte (128), held while the connection is open, and a read mark (120 + 3 + n),
            // held during the read transaction.
            #expect(during.contains { $0.hasPrefix("lock shm read 128 1 ") }, "\(during)")
            #expect(
                during.contains { $0.hasPrefix("lock shm read 12") && !$0.hasPrefix("lock shm read 128") }, "\(during)")
            try queue.suspend()
            #expect(try LockProbe.locks(on: path) == [])
            try queue.resume()
            #expect(try queue.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 2)
            #expect(!(try LockProbe.locks(on: path)).isEmpty)
        }
    }

    @Test("accesses during a suspension throw .suspended; suspending twice and resuming twice are harmless")
    func accessesFail() throws {
        try TemporaryFile.withDatabasePath { path in
            let queue = try makeQueue(path)
            defer { queue.close() }
            try queue.resume()  // not suspended: nothing happens
            try queue.inDatabase { db in try db.execute("PRAGMA cache_size = 1234") }
            try queue.suspend()
            try queue.suspend()
            #expect(queue.isSuspended)
            let error = #expect(throws: DatabaseError.self) { try queue.read { _ in } }
            #expect(error?.reason == .suspended)
            try queue.resume()
            try queue.resume()
            #expect(!queue.isSuspended)
            // The connection's own settings and the set-up hook's function came back with it.
            #expect(try queue.inDatabase { db in try db.queryValue("PRAGMA cache_size", as: Int.self) } == 1234)
            #expect(try queue.read { db in try db.queryValue("SELECT mark(21)", as: Int.self) } == 21)
        }
    }

    @Test("suspend() during a long read interrupts it: the read throws .suspended")
    func interruptsRead() throws {
        try TemporaryFile.withDatabasePath { path in
            let started = Locked(false)
            let queue = try makeQueue(path, started: started)
            defer { queue.close() }
            let run = runOnThreadInBackground {
                try queue.read { db in try db.queryValue(longMarkedQuery, as: Int.self) }
            }
            #expect(spinUntil { started.current })
            try queue.suspend()
            try #require(wait(run.done))
            let error = #expect(throws: DatabaseError.self) { try run.result()?.get() }
            #expect(error?.reason == .suspended)
            #expect(try LockProbe.locks(on: path) == [])
            try queue.resume()
        }
    }

    @Test("suspend() during a write transaction rolls it back: nothing is committed")
    func rollsBackWrite() throws {
        try TemporaryFile.withDatabasePath { path in
            let started = Locked(false)
            let queue = try makeQueue(path, started: started)
            defer { queue.close() }
            let run = runOnThreadInBackground {
                try queue.write { db in
                    try db.execute("INSERT INTO t VALUES (99)")
                    return try db.queryValue(longMarkedQuery, as: Int.self)
                }
            }
            #expect(spinUntil { started.current })
            try queue.suspend()
            try #require(wait(run.done))
            let error = #expect(throws: DatabaseError.self) { try run.result()?.get() }
            #expect(error?.reason == .suspended)
            #expect(try LockProbe.locks(on: path) == [])
            try queue.resume()
            #expect(
                try queue.read { db in try db.queryValue("SELECT count(*) FROM t WHERE x = 99", as: Int.self) } == 0)
        }
    }

    @Test("close() during a suspension returns, ends it, and reopen() opens the queue")
    func closeWhileSuspended() throws {
        try TemporaryFile.withDatabasePath { path in
            let queue = try makeQueue(path)
            try queue.suspend()
            let closed = runOnThread(timeout: 20) { queue.close() }
            #expect(closed != nil)
            #expect(!queue.isSuspended)
            let error = #expect(throws: DatabaseError.self) { try queue.read { _ in } }
            #expect(error?.reason == .accessAfterClose)
            try queue.reopen()
            #expect(try queue.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 2)
            queue.close()
        }
    }

    @Test("two threads suspending at once both return with no lock held")
    func concurrentSuspends() throws {
        try TemporaryFile.withDatabasePath { path in
            let queue = try makeQueue(path)
            defer { queue.close() }
            let failures = Locked(0)
            concurrently(2) { _ in
                do { try queue.suspend() } catch { failures.withLock { $0 += 1 } }
            }
            #expect(failures.current == 0)
            #expect(try LockProbe.locks(on: path) == [])
            try queue.resume()
            #expect(try queue.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 2)
        }
    }

    @Test("with accesses: .wait, an access waits: resume() lets it run, close() makes it throw")
    func waitingAccesses() throws {
        try TemporaryFile.withDatabasePath { path in
            let queue = try makeQueue(path)
            try queue.suspend(accesses: .wait)
            let resumed = runOnThreadInBackground {
                try queue.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) }
            }
            #expect(spinUntil { queue.serialized.waitingAccessCount == 1 })
            try queue.resume()
            try #require(wait(resumed.done))
            #expect(try resumed.result()?.get() == 2)

            try queue.suspend(accesses: .wait)
            let closed = runOnThreadInBackground { try queue.read { _ in 0 } }
            #expect(spinUntil { queue.serialized.waitingAccessCount == 1 })
            queue.close()
            try #require(wait(closed.done))
            let error = #expect(throws: DatabaseError.self) { try closed.result()?.get() }
            #expect(error?.reason == .accessAfterClose)
        }
    }

    @Test("a suspension that would lose an attached database refuses, and the queue carries on")
    func refusesLosingState() throws {
        try TemporaryFile.withDatabasePath { path in
            let queue = try makeQueue(path)
            defer { queue.close() }
            try queue.inDatabase { db in try db.execute("ATTACH ':memory:' AS side") }
            let error = #expect(throws: DatabaseError.self) { try queue.suspend() }
            #expect(error?.reason == .suspensionLosesConnectionState)
            #expect(!queue.isSuspended)
            #expect(try queue.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 2)
        }
    }

    @Test("an observed query's stream survives a suspension and sees the commits after resume()")
    func observationSurvives() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let queue = try makeQueue(path)
            defer { queue.close() }
            let stream = queue.observe(tables: ["t"], bufferingPolicy: .unbounded) { db in
                try db.queryValue("SELECT count(*) FROM t", as: Int.self) ?? -1
            }
            var iterator = stream.makeAsyncIterator()
            #expect(try await iterator.next() == 2)
            try await queue.suspend()
            try await queue.resume()
            try await queue.write { db in try db.execute("INSERT INTO t VALUES (3)") }
            #expect(try await iterator.next() == 3)
        }
    }

    @Test("an in-memory queue stays open through a suspension, its content kept")
    func inMemory() throws {
        let queue = try DatabaseQueue()
        defer { queue.close() }
        try queue.write { db in
            try db.execute("CREATE TABLE t (x)")
            try db.execute("INSERT INTO t VALUES (1)")
        }
        try queue.suspend()
        #expect(throws: DatabaseError.self) { try queue.read { _ in } }
        try queue.resume()
        #expect(try queue.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 1)
    }
}

@Suite("Suspension: keys and failed resumes", .serialized, .timeLimit(.minutes(2)))
struct SuspensionResumeTests {
    struct HookFailure: Error {}

    @Test("a resume whose set-up hook throws leaves the queue suspended; the next resume carries on")
    func failedResume() throws {
        try TemporaryFile.withDatabasePath { path in
            let failing = Locked(false)
            let queue = try DatabaseQueue(path: path) { db in
                if failing.current { throw HookFailure() }
                _ = try db.queryValue("PRAGMA journal_mode = WAL", as: String.self)
            }
            defer { queue.close() }
            try queue.write { db in try db.execute("CREATE TABLE t (x)") }
            try queue.suspend()
            failing.withLock { $0 = true }
            #expect(throws: HookFailure.self) { try queue.resume() }
            #expect(queue.isSuspended)
            #expect(try LockProbe.locks(on: path) == [])
            let refused = #expect(throws: DatabaseError.self) { try queue.read { _ in } }
            #expect(refused?.reason == .suspended)
            failing.withLock { $0 = false }
            try queue.resume()
            #expect(try queue.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 0)
        }
    }

    @Test("an encrypted pool resumes with its key, the one a key change set last")
    func encryptedPool() throws {
        try TemporaryFile.withDatabasePath { path in
            var configuration = Database.Configuration()
            configuration.key = .passphrase("first")
            let pool = try DatabasePool(path: path, configuration: configuration)
            defer { pool.close() }
            try pool.write { db in
                try db.execute("CREATE TABLE t (x)")
                try db.execute("INSERT INTO t VALUES (1)")
            }
            try pool.changeKey(to: .passphrase("second"))
            try pool.suspend()
            #expect(try LockProbe.locks(on: path) == [])
            try pool.resume()
            #expect(try pool.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 1)
            try pool.write { db in try db.execute("INSERT INTO t VALUES (2)") }
            pool.close()
            var second = Database.Configuration()
            second.key = .passphrase("second")
            let db = try Database(path: path, configuration: second)
            defer { db.close() }
            #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 2)
        }
    }
}
