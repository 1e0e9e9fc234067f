import Foundation
import Testing

@testable import SQLiteToolkit

/// Cases the suspension's first tests left out: a write caught between two statements, a suspension that races a
/// resume, a suspension of a closed queue or pool.
@Suite("Suspension, reviewed", .serialized, .timeLimit(.minutes(2)))
struct SuspensionReviewTests {
    /// A WAL queue with a table `t` of no rows; its set-up hook blocks while `gate` is armed (a resume reruns it).
    func makeQueue(_ path: String, gate: SetUpGate = SetUpGate()) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: path) { db in
            _ = try db.queryValue("PRAGMA journal_mode = WAL", as: String.self)
            gate.pass()
        }
        try queue.write { db in try db.execute("CREATE TABLE t (x)") }
        return queue
    }

    @Test("a queue's write caught between two statements by suspend() commits nothing and throws .suspended")
    func queueWriteBetweenStatements() throws {
        try TemporaryFile.withDatabasePath { path in
            let queue = try makeQueue(path)
            defer { queue.close() }
            let inside = DispatchSemaphore(value: 0)
            let write = runOnThreadInBackground {
                try queue.write { db in
                    try db.execute("INSERT INTO t VALUES (1)")
                    inside.signal()
                    // Work that is not SQL (a computation, a file read) while the suspension begins.
                    Thread.sleep(forTimeInterval: 0.3)
                }
            }
            #expect(wait(inside))
            try queue.suspend()
            #expect(wait(write.done))
            try queue.resume()
            let count = try queue.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) }
            #expect(count == 0, "the suspension let the interrupted write commit")
            #expect(Self.databaseError(write.result())?.reason == .suspended)
        }
    }

    @Test("a pool's write caught between two statements by suspend() commits nothing and throws .suspended")
    func poolWriteBetweenStatements() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path)
            defer { pool.close() }
            try pool.write { db in try db.execute("CREATE TABLE t (x)") }
            let inside = DispatchSemaphore(value: 0)
            let write = runOnThreadInBackground {
                try pool.write { db in
                    try db.execute("INSERT INTO t VALUES (1)")
                    inside.signal()
                    Thread.sleep(forTimeInterval: 0.3)
                }
            }
            #expect(wait(inside))
            try pool.suspend()
            #expect(wait(write.done))
            try pool.resume()
            let count = try pool.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) }
            #expect(count == 0, "the suspension let the interrupted write commit")
            #expect(Self.databaseError(write.result())?.reason == .suspended)
        }
    }

    @Test("suspend() called while a resume() reopens the queue leaves it suspended, with no lock")
    func suspendDuringResume() throws {
        try TemporaryFile.withDatabasePath { path in
            let gate = SetUpGate()
            let queue = try makeQueue(path, gate: gate)
            defer { queue.close() }
            try queue.suspend()
            gate.arm()
            let resume = runOnThreadInBackground { try queue.resume() }
            #expect(wait(gate.inside))
            // The app goes back to the background while the resume runs the set-up hook.
            let suspend = runOnThreadInBackground { try queue.suspend() }
            // Time for the suspend to return, or to wait for the resume (the right thing to do).
            Thread.sleep(forTimeInterval: 0.3)
            gate.release()
            #expect(wait(resume.done))
            #expect(wait(suspend.done))
            #expect(throws: Never.self) { try suspend.result()?.get() }
            #expect(queue.isSuspended, "the suspension that came last did not hold")
            #expect(try LockProbe.locks(on: path) == [])
        }
    }

    @Test("suspend() on a closed queue does not leave the reopened queue refusing its accesses")
    func queueSuspendAfterClose() throws {
        try TemporaryFile.withDatabasePath { path in
            let queue = try makeQueue(path)
            defer { queue.close() }
            queue.close()
            try queue.suspend()
            try queue.reopen()
            #expect(!queue.isSuspended)
            #expect(throws: Never.self) { try queue.write { db in try db.execute("INSERT INTO t VALUES (1)") } }
        }
    }

    @Test("suspend() on a closed pool does not leave the reopened pool refusing its accesses")
    func poolSuspendAfterClose() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path)
            defer { pool.close() }
            try pool.write { db in try db.execute("CREATE TABLE t (x)") }
            pool.close()
            try pool.suspend()
            try pool.reopen()
            #expect(!pool.isSuspended)
            #expect(throws: Never.self) { try pool.write { db in try db.execute("INSERT INTO t VALUES (1)") } }
            #expect(throws: Never.self) {
                try pool.read { db in _ = try db.queryValue("SELECT count(*) FROM t", as: Int.self) }
            }
        }
    }

    @Test("with accesses: .wait, a read waiting in line for a reader waits for the resume, and opens no connection")
    func readInLineWaitsForResume() throws {
        try TemporaryFile.withDatabasePath { path in
            let started = Locked(false)
            let pool = try DatabasePool(path: path, maximumReaderCount: 1, setUp: suspensionSetUp(marking: started))
            defer { pool.close() }
            try pool.write { db in try db.executeScript("CREATE TABLE t (x); INSERT INTO t VALUES (1)") }
            // The pool's one reader runs a query that only an interruption ends.
            let long = runOnThreadInBackground {
                try pool.read { db in try db.queryValue(longMarkedQuery, as: Int.self) }
            }
            #expect(spinUntil { started.current })
            // A second read waits in line for that reader.
            let inLine = runOnThreadInBackground {
                try pool.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) }
            }
            Thread.sleep(forTimeInterval: 0.2)
            try pool.suspend(accesses: .wait)
            #expect(wait(long.done))
            #expect(Self.databaseError(long.result())?.reason == .suspended)
            #expect(try LockProbe.locks(on: path) == [], "a read opened a connection during the suspension")
            Thread.sleep(forTimeInterval: 0.2)
            #expect(inLine.result() == nil, "the read in line ran during the suspension")
            try pool.resume()
            #expect(wait(inLine.done))
            #expect(throws: Never.self) { try inLine.result()?.get() }
        }
    }

    @Test("a key change that a suspension interrupts leaves a queue that resumes with the key in effect, data intact")
    func keyChangeInterrupted() throws {
        try TemporaryFile.withDatabasePath { path in
            var configuration = Database.Configuration()
            configuration.key = .passphrase("old passphrase")
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { queue.close() }
            try queue.write { db in
                try db.execute("CREATE TABLE t (x)")
                for _ in 0..<2000 { try db.execute("INSERT INTO t VALUES (randomblob(4000))") }
            }
            let change = runOnThreadInBackground { try queue.changeKey(to: .passphrase("new passphrase")) }
            Thread.sleep(forTimeInterval: 0.05)
            try queue.suspend()
            #expect(wait(change.done))
            let error = Self.databaseError(change.result())
            if let error { #expect(error.reason == .suspended, "\(error)") }
            try queue.resume()
            #expect(try queue.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 2000)
        }
    }

    @Test("a statement stepped in a pool's read and kept after it is reset when the read ends: nothing pins the WAL")
    func keptStatementIsReset() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path, maximumReaderCount: 1)
            defer { pool.close() }
            try pool.write { db in try db.executeScript("CREATE TABLE t (x BLOB); INSERT INTO t VALUES (1), (2)") }
            // The case: a statement stepped once and never reset would keep its read transaction.
            var kept: Statement?
            try pool.read { db in
                let statement = try db.prepare("SELECT x FROM t")
                _ = try statement.step()
                kept = statement
            }
            for _ in 0..<40 {
                try pool.write { db in
                    for _ in 0..<30 { try db.execute("INSERT INTO t VALUES (randomblob(4000))") }
                }
            }
            // The one reader, which ran the kept statement, reads the newest state, not the one the statement saw.
            #expect(try pool.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 1202)
            #expect(try pool.read { db in try db.steppingStatements() }.isEmpty)
            #expect(pool.walReadHolders().isEmpty)
            // Nothing kept a read transaction, so a truncation empties the WAL.
            _ = try pool.checkpoint(.truncate)
            #expect(pool.walFileSize == 0)
            withExtendedLifetime(kept) {}
        }
    }

    @Test("a statement stepped in a queue's read and kept after it is reset when the read ends")
    func queueKeptStatementIsReset() throws {
        try TemporaryFile.withDatabasePath { path in
            let queue = try DatabaseQueue(path: path)
            defer { queue.close() }
            try queue.write { db in
                try db.executeScript("PRAGMA journal_mode = WAL; CREATE TABLE t (x); INSERT INTO t VALUES (1)")
            }
            var kept: Statement?
            try queue.read { db in
                let statement = try db.prepare("SELECT x FROM t")
                _ = try statement.step()
                kept = statement
            }
            // Another connection commits; the queue's next read sees it.
            let other = try Database(path: path)
            try other.execute("INSERT INTO t VALUES (2)")
            other.close()
            #expect(try queue.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 2)
            withExtendedLifetime(kept) {}
        }
    }

    static func databaseError<T>(_ result: Result<T, any Error>?) -> DatabaseError? {
        guard case .failure(let error) = result else { return nil }
        return error as? DatabaseError
    }
}

/// Blocks a set-up hook while armed, until released.
final class SetUpGate: Sendable {
    let inside = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)
    private let armed = Locked(false)

    func arm() { armed.withLock { $0 = true } }

    func release() {
        armed.withLock { $0 = false }
        released.signal()
    }

    /// Called by the set-up hook.
    func pass() {
        guard armed.current else { return }
        inside.signal()
        _ = released.wait(timeout: .now() + 30)
    }
}
