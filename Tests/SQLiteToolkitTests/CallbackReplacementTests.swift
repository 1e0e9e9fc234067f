import Foundation
import SQLiteToolkit
import Testing

/// Replacing a trace, progress or busy handler from inside itself: the running closure (and what it captured) stays
/// alive until it returns, the new one takes over, and the replaced one is released afterwards. Run these under
/// AddressSanitizer too (`swift test --sanitize=address --filter CallbackReplacementTests`).
@Suite("Replacing a callback from inside itself")
struct CallbackReplacementTests {
    /// An object only the replaced closure holds: it lives exactly as long as that closure.
    final class Sentinel: Sendable {
        let name: String
        init(_ name: String) { self.name = name }
    }

    @Test("a trace closure that sets another trace keeps running, and is released afterwards")
    func traceReplacesItself() throws {
        let db = try Database()
        // The closures capture the connection: closing breaks that cycle, as for any callback.
        defer { db.close() }
        var sentinel: Sentinel? = Sentinel("first trace")
        weak let watch = sentinel
        var seenByFirst: [String] = []
        var seenBySecond: [String] = []
        var aliveAfterReplacing: [Bool] = []
        try db.trace { [sentinel] traced in
            try? db.trace { seenBySecond.append($0.sql) }
            // Still running after its own replacement: its captures must still be there.
            aliveAfterReplacing.append(watch != nil)
            seenByFirst.append(traced.sql + (sentinel?.name ?? ""))
        }
        sentinel = nil
        try db.execute("SELECT 1")
        try db.execute("SELECT 2")
        #expect(aliveAfterReplacing == [true])
        #expect(seenByFirst == ["SELECT 1first trace"])
        #expect(seenBySecond == ["SELECT 2"])
        #expect(watch == nil, "the replaced closure is released once no callback runs")
        try db.trace(nil)
    }

    @Test("a trace closure that removes the trace keeps running")
    func traceRemovesItself() throws {
        let db = try Database()
        // The closures capture the connection: closing breaks that cycle, as for any callback.
        defer { db.close() }
        var sentinel: Sentinel? = Sentinel("trace")
        weak let watch = sentinel
        var calls = 0
        var alive: [Bool] = []
        try db.trace { [sentinel] _ in
            try? db.trace(nil)
            alive.append(watch != nil && sentinel != nil)
            calls += 1
        }
        sentinel = nil
        try db.execute("SELECT 1")
        try db.execute("SELECT 2")
        #expect(calls == 1)
        #expect(alive == [true])
        // Released at the latest by the next setter called outside any callback.
        try db.setProgressHandler(nil)
        #expect(watch == nil)
    }

    @Test("a progress handler that sets another one keeps running; the new one runs for the rest of the statement")
    func progressHandlerReplacesItself() throws {
        let db = try Database()
        // The closures capture the connection: closing breaks that cycle, as for any callback.
        defer { db.close() }
        var sentinel: Sentinel? = Sentinel("first progress handler")
        weak let watch = sentinel
        var firstCalls = 0
        var secondCalls = 0
        var alive: [Bool] = []
        try db.setProgressHandler(every: 1) { [sentinel] in
            firstCalls += 1
            try? db.setProgressHandler(every: 1) {
                secondCalls += 1
                return false
            }
            alive.append(watch != nil && sentinel != nil)
            return false
        }
        sentinel = nil
        let count = try db.queryValue(
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100) SELECT count(*) FROM c",
            as: Int.self)
        #expect(count == 100)
        #expect(firstCalls == 1)
        #expect(alive == [true])
        #expect(secondCalls > 0)
        try db.execute("SELECT 1")
        #expect(watch == nil)
        try db.setProgressHandler(nil)
    }

    @Test("replacing a progress handler from a trace closure, and a trace from a progress handler")
    func crossReplacement() throws {
        let db = try Database()
        // The closures capture the connection: closing breaks that cycle, as for any callback.
        defer { db.close() }
        var order: [String] = []
        try db.trace { _ in
            order.append("trace")
            try? db.setProgressHandler(every: 1) {
                order.append("progress")
                try? db.trace(nil)
                try? db.setProgressHandler(nil)
                return false
            }
        }
        try db.execute("SELECT 1")
        try db.execute("SELECT 2")
        #expect(order.first == "trace")
        #expect(order.filter { $0 == "trace" }.count == 1)
        #expect(order.filter { $0 == "progress" }.count == 1)
    }

    @Test("a busy handler that sets another busy mode keeps running; the new mode decides the next retries")
    func busyHandlerReplacesItself() throws {
        try TemporaryFile.withDatabasePath { path in
            let holder = try Database(path: path)
            try holder.execute("CREATE TABLE t (x)")
            try holder.beginTransaction(.immediate)
            defer { try? holder.rollback() }
            // The handlers are `@Sendable`; the connection and the counters are used on this thread only.
            nonisolated(unsafe) let waiter = try Database(path: path)
            nonisolated(unsafe) var firstCalls = 0
            nonisolated(unsafe) var secondCalls = 0
            nonisolated(unsafe) var alive: [Bool] = []
            nonisolated(unsafe) var sentinel: Sentinel? = Sentinel("first busy handler")
            weak let watch = sentinel
            try waiter.setBusyMode(
                .handler { [sentinel] _ in
                    firstCalls += 1
                    try? waiter.setBusyMode(
                        .handler { retries in
                            secondCalls += 1
                            return retries < 3
                        })
                    alive.append(watch != nil && sentinel != nil)
                    return true
                })
            sentinel = nil
            let error = #expect(throws: DatabaseError.self) { try waiter.execute("INSERT INTO t VALUES (1)") }
            #expect(error?.code == .busy)
            #expect(firstCalls == 1)
            #expect(alive == [true])
            #expect(secondCalls >= 1)
            try waiter.setBusyMode(.immediateError)
            #expect(watch == nil)
            waiter.close()
        }
    }

    @Test("a busy handler that switches to the timeout mode keeps running")
    func busyHandlerSwitchesToTimeout() throws {
        try TemporaryFile.withDatabasePath { path in
            let holder = try Database(path: path)
            try holder.execute("CREATE TABLE t (x)")
            try holder.beginTransaction(.immediate)
            defer { try? holder.rollback() }
            nonisolated(unsafe) let waiter = try Database(path: path)
            nonisolated(unsafe) var calls = 0
            try waiter.setBusyMode(
                .handler { _ in
                    calls += 1
                    try? waiter.setBusyMode(.timeout(0.01))
                    return true
                })
            let error = #expect(throws: DatabaseError.self) { try waiter.execute("INSERT INTO t VALUES (1)") }
            #expect(error?.code == .busy)
            #expect(calls == 1)
            waiter.close()
        }
    }
}
