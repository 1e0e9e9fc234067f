import Dispatch
import Foundation
import SQLiteToolkit
import Testing

/// A review of observed queries without a table list, of named tables and of a pool's shared reader: each test
/// failed before the fix of what it shows (runs ending out of order, nested recordings, schema changes, views of
/// the same name in another schema, internal and temp tables, commits made by an observer).
@Suite("Observation review: the region, the shared reader, the names", .timeLimit(.minutes(3)))
struct ObservationReviewTests {
    static let schema = """
        CREATE TABLE a (x);
        CREATE TABLE b (x);
        CREATE TABLE other (x);
        CREATE TABLE log (x);
        CREATE TABLE config (flag INT NOT NULL);
        INSERT INTO config VALUES (0);
        CREATE VIEW v AS SELECT x FROM a;
        """

    // MARK: - Defects

    @Test("a pool's older run, ended after a newer one ran on the writer, puts back the tables the query read before")
    func poolOlderRunOverwritesRegion() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path, maximumReaderCount: 1)
            try await pool.write { db in try db.executeScript(Self.schema) }
            let gate = DispatchSemaphore(value: 0)
            let blockNext = Locked(false)
            let blocked = Locked(false)
            let values = collect(
                pool.observe(bufferingPolicy: .unbounded) { db in
                    let flag = try db.queryValue("SELECT flag FROM config", as: Int.self) ?? 0
                    let count = try db.queryValue("SELECT count(*) FROM \(flag == 0 ? "a" : "b")", as: Int.self) ?? -1
                    if blockNext.withLock({ holds in
                        defer { holds = false }
                        return holds
                    }) {
                        blocked.withLock { $0 = true }
                        gate.wait()
                    }
                    return flag * 100 + count
                })
            #expect(await waitUntil { values.current == [0] })
            // The commit takes the only reader, whose run (of a, flag 0) stops before it ends.
            blockNext.withLock { $0 = true }
            try await pool.write { db in try db.execute("INSERT INTO a VALUES (1)") }
            #expect(await waitUntil { blocked.current })
            // No reader is idle: this commit's run happens on the writer, reads b, and ends first.
            try await pool.write { db in try db.execute("UPDATE config SET flag = 1") }
            gate.signal()
            #expect(await waitUntil { values.current == [0, 1, 100] })
            // The run of the flag-0 state ended last and set the watched tables back to config and a.
            try await pool.write { db in try db.execute("INSERT INTO b VALUES (1)") }
            #expect(await waitUntil(seconds: 2) { values.current == [0, 1, 100, 101] })
            pool.close()
        }
    }

    @Test("a queue's observed query that commits a write loses the tables it read: a nested run ends its recording")
    func observedQueryThatWritesLosesItsReads() async throws {
        let queue = try DatabaseQueue()
        // Its observations' streams are drained until it closes: close it, or they keep it alive.
        defer { queue.close() }
        try await queue.write { db in try db.executeScript(Self.schema) }
        let logs = collect(
            queue.observe(bufferingPolicy: .unbounded) { db in
                try db.queryValue("SELECT count(*) FROM log", as: Int.self) ?? -1
            })
        #expect(await waitUntil { logs.current == [0] })
        let wroteOnce = Locked(false)
        let values = collect(
            queue.observe(bufferingPolicy: .unbounded) { db in
                let count = try db.queryValue("SELECT count(*) FROM a", as: Int.self) ?? -1
                // A query that logs its first read: its transaction commits inside the run.
                if wroteOnce.withLock({ wrote in
                    defer { wrote = true }
                    return !wrote
                }) {
                    try db.execute("INSERT INTO log VALUES (1)")
                }
                return count
            })
        #expect(await waitUntil { logs.current == [0, 1] })
        #expect(await waitUntil { values.current.first == 0 })
        try await queue.write { db in try db.execute("INSERT INTO a VALUES (1)") }
        #expect(await waitUntil(seconds: 2) { values.current.last == 1 })

    }

    @Test("a query of sqlite_schema runs again after a commit that creates a table")
    func schemaQueryRunsAgainAfterCreateTable() async throws {
        let queue = try DatabaseQueue()
        // Its observations' streams are drained until it closes: close it, or they keep it alive.
        defer { queue.close() }
        try await queue.write { db in try db.executeScript(Self.schema) }
        let values = collect(
            queue.observe(bufferingPolicy: .unbounded) { db in
                try db.queryValue("SELECT count(*) FROM sqlite_schema WHERE type = 'table'", as: Int.self) ?? -1
            })
        #expect(await waitUntil { values.current == [5] })
        try await queue.write { db in try db.execute("CREATE TABLE added (x)") }
        #expect(await waitUntil(seconds: 1) { values.current == [5, 6] })

    }

    @Test("a view redefined to read another table: the query follows it, or at least runs again")
    func viewRedefinedToAnotherTable() async throws {
        let queue = try DatabaseQueue()
        // Its observations' streams are drained until it closes: close it, or they keep it alive.
        defer { queue.close() }
        try await queue.write { db in try db.executeScript(Self.schema) }
        let values = collect(
            queue.observe(bufferingPolicy: .unbounded) { db in
                try db.queryValue("SELECT count(*) FROM v", as: Int.self) ?? -1
            })
        #expect(await waitUntil { values.current == [0] })
        try await queue.write { db in
            try db.executeScript("DROP VIEW v; CREATE VIEW v AS SELECT x FROM b; INSERT INTO other VALUES (1)")
        }
        try await queue.write { db in try db.execute("INSERT INTO b VALUES (1)") }
        #expect(await waitUntil(seconds: 1) { values.current.last == 1 })

    }

    @Test("a named table the broker never reports (sqlite_sequence) is refused, or heard")
    func namedInternalTableIsRefusedOrHeard() async throws {
        let queue = try DatabaseQueue()
        // Its observations' streams are drained until it closes: close it, or they keep it alive.
        defer { queue.close() }
        try await queue.write { db in
            try db.execute("CREATE TABLE counter (id INTEGER PRIMARY KEY AUTOINCREMENT, x)")
        }
        let values = collect(
            queue.observe(tables: ["sqlite_sequence"], bufferingPolicy: .unbounded) { db in
                try db.queryValue("SELECT count(*) FROM sqlite_sequence", as: Int.self) ?? -1
            })
        #expect(await waitUntil { !values.current.isEmpty || values.error != nil })
        try await queue.write { db in try db.execute("INSERT INTO counter (x) VALUES (1)") }
        #expect(await waitUntil(seconds: 1) { values.current == [0, 1] || values.error != nil })

    }

    @Test(
        "an observer that commits while told of a commit: a queue's observed query yields each state it can read once")
    func observedQueryAfterReentrantCommit() async throws {
        let queue = try DatabaseQueue()
        // Its observations' streams are drained until it closes: close it, or they keep it alive.
        defer { queue.close() }
        try await queue.write { db in
            try db.executeScript(Self.schema)
            // Registered before the observed query: told of each commit first.
            let wrote = Locked(false)
            try db.addTransactionObserver(tables: ["a"], includingRowChanges: false) { [unowned db] _ in
                guard
                    wrote.withLock({ wrote in
                        defer { wrote = true }
                        return !wrote
                    })
                else { return }
                try? db.execute("INSERT INTO log VALUES (1)")
            }
        }
        let values = collect(
            queue.observe(tables: ["a", "log"], bufferingPolicy: .unbounded) { db in
                let a = try db.queryValue("SELECT count(*) FROM a", as: Int.self) ?? -1
                let log = try db.queryValue("SELECT count(*) FROM log", as: Int.self) ?? -1
                return "a \(a) log \(log)"
            })
        #expect(await waitUntil { values.current.count == 1 })
        try await queue.write { db in try db.execute("INSERT INTO a VALUES (1)") }
        // The observer told first committed before the query ran for the first commit: the state after the first
        // commit alone is gone, and the query reads the one after both, once, not once per commit.
        #expect(await waitUntil { values.current.count == 2 })
        try await queue.write { db in try db.execute("INSERT INTO a VALUES (2)") }
        #expect(await waitUntil { values.current.count == 3 })
        #expect(values.current == ["a 0 log 0", "a 1 log 1", "a 2 log 1"])
    }

    @Test("DatabaseTransactionChanges.tables names the changed table, and may name one a trigger could have written")
    func changedTablesAreExact() throws {
        let db = try Database()
        try db.executeScript(
            Self.schema + "CREATE TRIGGER never AFTER INSERT ON a WHEN 0 BEGIN INSERT INTO b VALUES (1); END;")
        let heard = Locked<[Set<String>]>([])
        try db.addTransactionObserver(includingRowChanges: false) { changes in
            heard.withLock { $0.append(changes.tables) }
        }
        try db.execute("INSERT INTO a VALUES (1)")
        #expect(try db.queryValue("SELECT count(*) FROM b", as: Int.self) == 0)
        // The documentation says so: a table a trigger could have written may be named, a changed one never left out.
        #expect(heard.current.count == 1)
        #expect(heard.current.first?.contains("a") == true)
        #expect(heard.current.first?.isSubset(of: ["a", "b"]) == true)
    }

    @Test("a pool observation of a table only the writer sees (a temp table) is refused, or keeps working")
    func poolWriterTempTable() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path)
            try await pool.write { db in try db.executeScript(Self.schema + "CREATE TEMP TABLE scratch (x);") }
            let values = collect(
                pool.observe(tables: ["scratch"], bufferingPolicy: .unbounded) { db in
                    try db.queryValue("SELECT count(*) FROM scratch", as: Int.self) ?? -1
                })
            #expect(await waitUntil { !values.current.isEmpty || values.error != nil })
            try await pool.write { db in try db.execute("INSERT INTO scratch VALUES (1)") }
            #expect(await waitUntil { values.current.count == 2 || values.error != nil })
            // Refused at once: the readers, where the later runs happen, cannot see the writer's temp tables.
            #expect(values.current.isEmpty)
            #expect((values.error as? DatabaseError)?.reason == .unknownTable("scratch"))
            pool.close()
        }
    }

    @Test("a write to a table whose name a view of another schema also has is heard (the view filter looks by name)")
    func tableNamedLikeViewOfAnotherSchema() throws {
        let db = try Database()
        try db.executeScript(
            Self.schema + "ATTACH ':memory:' AS side; CREATE TABLE side.v (x); CREATE TEMP VIEW a AS SELECT 1 AS x;")
        let heard = Locked<[Set<String>]>([])
        try db.addTransactionObserver(includingRowChanges: false) { changes in
            heard.withLock { $0.append(changes.tables) }
        }
        // side.v is a table; main.v is a view. main.a is a table; temp.a is a view.
        try db.execute("INSERT INTO side.v VALUES (1)")
        try db.execute("INSERT INTO main.a VALUES (1)")
        #expect(try db.queryValue("SELECT count(*) FROM side.v", as: Int.self) == 1)
        #expect(try db.queryValue("SELECT count(*) FROM main.a", as: Int.self) == 1)
        #expect(heard.current == [["v"], ["a"]])

    }
}

// MARK: - Support

/// The values a stream yielded so far, drained by a task of its own, and how it ended.
final class Collector<Value: Sendable>: Sendable {
    let values = Locked<[Value]>([])
    let ending = Locked<(finished: Bool, error: (any Error)?)>((false, nil))
    nonisolated(unsafe) var task: Task<Void, Never>?

    var current: [Value] { values.current }
    var finished: Bool { ending.current.finished }
    var error: (any Error)? { ending.current.error }
}

func collect<Value: Sendable>(_ stream: AsyncThrowingStream<Value, any Error>) -> Collector<Value> {
    let collector = Collector<Value>()
    collector.task = Task {
        do {
            for try await value in stream { collector.values.withLock { $0.append(value) } }
            collector.ending.withLock { $0 = (true, nil) }
        } catch {
            collector.ending.withLock { $0 = (true, error) }
        }
    }
    return collector
}

/// Whether `condition` held within `seconds`, checked every millisecond.
func waitUntil(seconds: Double = 20, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        try? await Task.sleep(nanoseconds: 1_000_000)
    }
    return true
}
