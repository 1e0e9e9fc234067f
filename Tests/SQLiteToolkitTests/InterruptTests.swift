import Dispatch
import Foundation
import SQLiteBindings
import SQLiteToolkit
import Testing

@Suite("Interrupt and progress handler")
struct InterruptTests {
    /// A query that would run for minutes: only an interrupt ends it in a test.
    private let countToABillion = """
        WITH RECURSIVE counter(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM counter WHERE n < 1000000000)
        SELECT count(*) FROM counter
        """

    /// Runs `body` while another thread calls `handle.interrupt()` every few milliseconds, and returns once that
    /// thread has stopped. Repeating the call means the test does not depend on when `body`'s statement starts.
    private func whileInterrupting<T>(_ handle: InterruptHandle, _ body: () throws -> T) rethrows -> T {
        let stop = Flag()
        let stopped = DispatchSemaphore(value: 0)
        // A thread of its own, not a global dispatch queue: those share their few threads (as many as the cores)
        // with the tests running in parallel, so the interrupting work might not start until the query ends.
        let thread = Thread {
            while !stop.isSet {
                handle.interrupt()
                Thread.sleep(forTimeInterval: 0.002)
            }
            stopped.signal()
        }
        thread.start()
        defer {
            stop.set()
            stopped.wait()
        }
        return try body()
    }

    @Test("interrupt() from another thread makes a running query throw interrupt; the connection stays usable")
    func interruptFromAnotherThread() throws {
        let db = try Database()
        let error = try whileInterrupting(db.interruptHandle) {
            try #require(throws: DatabaseError.self) { try db.queryValue(countToABillion, as: Int.self) }
        }
        #expect(error.code == .interrupt)
        #expect(error.isInterrupted)
        #expect(error.sql == countToABillion)
        #expect(db.openCursors == 0)
        #expect(try db.queryValue("SELECT 1 + 1", as: Int.self) == 2)
        // The interrupted statement is back in the cache and runs again.
        #expect(try db.queryValue("SELECT count(*) FROM (SELECT 1 UNION ALL SELECT 2)", as: Int.self) == 2)
    }

    @Test("an interrupted cursor throws interrupt and stays failed; the connection stays usable")
    func interruptCursor() throws {
        let db = try Database()
        let rows = try db.query("WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT n FROM c")
        #expect(try rows.next()?.value(at: 0, as: Int.self) == 1)
        let error = try whileInterrupting(db.interruptHandle) {
            try #require(throws: DatabaseError.self) {
                while try rows.next() != nil {}
            }
        }
        #expect(error.code == .interrupt)
        #expect(throws: DatabaseError.self) { try rows.next() }
        #expect(!rows.isOpen)
        #expect(db.openCursors == 0)
        #expect(try db.queryValue("SELECT 3", as: Int.self) == 3)
    }

    @Test("an interrupted write in a transaction rolls the transaction back; the connection stays usable")
    func interruptWriteInTransaction() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (n)")
        try db.execute("INSERT INTO t VALUES (0)")
        let error = try whileInterrupting(db.interruptHandle) {
            try #require(throws: DatabaseError.self) {
                try db.transaction { db in
                    try db.execute("INSERT INTO t VALUES (1)")
                    try db.execute(
                        """
                        INSERT INTO t
                        WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000000000)
                        SELECT n FROM c
                        """)
                }
            }
        }
        #expect(error.code == .interrupt)
        #expect(!db.isInTransaction)
        #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 1)
        try db.transaction { db in try db.execute("INSERT INTO t VALUES (2)") }
        #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 2)
    }

    @Test("an interrupt while nothing runs does not affect the next statement")
    func interruptWhileIdle() throws {
        let db = try Database()
        db.interrupt()
        db.interruptHandle.interrupt()
        #expect(try db.queryValue("SELECT 1", as: Int.self) == 1)
    }

    @Test("Database.interrupt() called during a statement interrupts it")
    func interruptOnTheConnection() throws {
        let db = try Database()
        try db.setProgressHandler(every: 1000) { [weak db] in
            db?.interrupt()
            return false
        }
        let error = try #require(throws: DatabaseError.self) { try db.queryValue(countToABillion, as: Int.self) }
        #expect(error.code == .interrupt)
        try db.setProgressHandler(nil)
        #expect(try db.queryValue("SELECT 1", as: Int.self) == 1)
    }

    @Test("interrupt after close does nothing, not even to a connection opened since")
    func interruptAfterClose() throws {
        let db = try Database()
        let handle = db.interruptHandle
        db.close()
        try expectNoStrayInterrupt { handle.interrupt() }
        try expectNoStrayInterrupt { db.interrupt() }
    }

    @Test("an interrupt handle that outlives its connection does nothing, not even to a connection opened since")
    func interruptAfterRelease() throws {
        var db: Database? = try Database()
        let handle = try #require(db?.interruptHandle)
        db = nil
        try expectNoStrayInterrupt { handle.interrupt() }
    }

    /// Opens a connection, calls `interrupt` while one of its statements runs, and expects the statement to run on
    /// to its end. Opened right after another connection was freed, the new one usually gets that connection's
    /// memory, so an interrupt that still reached the freed connection's address would fail the statement here.
    private func expectNoStrayInterrupt(_ interrupt: () -> Void) throws {
        let db = try Database()
        let rows = try db.query(
            "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3) SELECT n FROM c")
        #expect(try rows.next()?.value(at: 0, as: Int.self) == 1)
        interrupt()
        #expect(try rows.next()?.value(at: 0, as: Int.self) == 2)
        #expect(try rows.next()?.value(at: 0, as: Int.self) == 3)
        #expect(try rows.next() == nil)
    }

    @Test("interrupt racing with close neither crashes nor interrupts a later connection")
    func interruptRacingClose() throws {
        for _ in 0..<20 {
            let db = try Database()
            whileInterrupting(db.interruptHandle) {
                db.close()
            }
        }
        let db = try Database()
        #expect(try db.queryValue("SELECT 1", as: Int.self) == 1)
    }

    @Test("a progress handler returning true interrupts the query with interrupt")
    func progressHandlerInterrupts() throws {
        let db = try Database()
        var calls = 0
        try db.setProgressHandler(every: 100) {
            calls += 1
            return calls >= 3
        }
        let error = try #require(throws: DatabaseError.self) { try db.queryValue(countToABillion, as: Int.self) }
        #expect(error.code == .interrupt)
        #expect(calls == 3)

        // Removing the handler lets statements run to the end.
        try db.setProgressHandler(nil)
        let count = try db.queryValue(
            "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000) SELECT count(*) FROM c",
            as: Int.self)
        #expect(count == 1000)
        #expect(calls == 3)
    }

    @Test("a progress handler returning false lets the statement finish")
    func progressHandlerContinues() throws {
        let db = try Database()
        var calls = 0
        try db.setProgressHandler(every: 10) {
            calls += 1
            return false
        }
        let count = try db.queryValue(
            "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000) SELECT count(*) FROM c",
            as: Int.self)
        #expect(count == 1000)
        #expect(calls > 0)
    }
}

/// A flag set by one thread and read by another. `@unchecked Sendable`: `lock` guards `value`.
private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func set() {
        lock.withLock { value = true }
    }

    var isSet: Bool { lock.withLock { value } }
}
