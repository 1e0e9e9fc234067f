import Dispatch
import Foundation
import SQLiteToolkit
import Testing

/// The review's cases that held: ways to read a table, names, the shared reader, cancellation, key changes.
extension ObservationReviewTests {
    // MARK: - What held

    /// One way to read a table, and a write that changes what it reads.
    struct ReadShape: Sendable, CustomTestStringConvertible {
        let name: String
        let setUp: String
        let query: String
        let write: String
        var testDescription: String { name }
    }

    static let shapes: [ReadShape] = [
        ReadShape(
            name: "CTE", setUp: "", query: "WITH c AS (SELECT x FROM a) SELECT count(*) FROM c",
            write: "INSERT INTO a VALUES (1)"),
        ReadShape(
            name: "recursive CTE over a table",
            setUp: "",
            query: """
                WITH RECURSIVE r(n) AS (SELECT count(*) FROM a UNION ALL SELECT n - 1 FROM r WHERE n > 0)
                SELECT count(*) FROM r
                """,
            write: "INSERT INTO a VALUES (1)"),
        ReadShape(
            name: "subquery in WHERE", setUp: "",
            query: "SELECT count(*) FROM other WHERE 1 IN (SELECT count(*) FROM a)", write: "INSERT INTO a VALUES (1)"),
        ReadShape(
            name: "EXISTS without a column", setUp: "", query: "SELECT EXISTS (SELECT 1 FROM a)",
            write: "INSERT INTO a VALUES (1)"),
        ReadShape(
            name: "rowid only", setUp: "", query: "SELECT coalesce(max(rowid), 0) FROM a",
            write: "INSERT INTO a VALUES (1)"),
        ReadShape(
            name: "WITHOUT ROWID", setUp: "CREATE TABLE w (k PRIMARY KEY, x) WITHOUT ROWID",
            query: "SELECT count(*) FROM w", write: "INSERT INTO w VALUES (1, 1)"),
        ReadShape(
            name: "FTS5 MATCH", setUp: "CREATE VIRTUAL TABLE f USING fts5(body)",
            query: "SELECT count(*) FROM f WHERE f MATCH 'hello'", write: "INSERT INTO f VALUES ('hello')"),
        ReadShape(
            name: "FTS5 external content without triggers, read by rowid",
            setUp: """
                CREATE TABLE docs (id INTEGER PRIMARY KEY, body);
                INSERT INTO docs VALUES (1, 'old');
                CREATE VIRTUAL TABLE fe USING fts5(body, content='docs', content_rowid='id');
                """,
            query: "SELECT length(body) FROM fe WHERE rowid = 1", write: "UPDATE docs SET body = 'longer' WHERE id = 1"),
        ReadShape(
            name: "temp table", setUp: "CREATE TEMP TABLE t (x)", query: "SELECT count(*) FROM temp.t",
            write: "INSERT INTO t VALUES (1)"),
        ReadShape(
            name: "attached table",
            setUp: "ATTACH ':memory:' AS side; CREATE TABLE side.s (x)", query: "SELECT count(*) FROM side.s",
            write: "INSERT INTO side.s VALUES (1)"),
        ReadShape(
            name: "view through a join", setUp: "CREATE VIEW j AS SELECT a.x FROM a JOIN b ON 1",
            query: "SELECT count(*) FROM j", write: "INSERT INTO b VALUES (1)"),
    ]

    @Test("without a table list, a queue's query runs again after a write to what it reads", arguments: shapes)
    func queueFollowsEveryReadShape(_ shape: ReadShape) async throws {
        let queue = try DatabaseQueue()
        // Its observations' streams are drained until it closes: close it, or they keep it alive.
        defer { queue.close() }
        try await queue.write { db in
            try db.executeScript(Self.schema)
            try db.executeScript("INSERT INTO b VALUES (0);" + shape.setUp)
        }
        let runs = Locked(0)
        let values = collect(
            queue.observe(bufferingPolicy: .unbounded) { db in
                runs.withLock { $0 += 1 }
                return try db.queryValue(shape.query, as: Int.self) ?? -1
            })
        #expect(await waitUntil { values.current.count == 1 })
        try await queue.write { db in try db.execute("INSERT INTO log VALUES (1)") }
        #expect(runs.current == 1, "a write to a table the query does not read made it run")
        try await queue.write { db in try db.execute(shape.write) }
        #expect(await waitUntil { runs.current == 2 })
        #expect(values.error == nil)
    }

    @Test("a pool's follows-reads observation carries on through changeKey")
    func poolFollowsReadsThroughKeyChange() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            var configuration = Database.Configuration()
            configuration.key = .passphrase("old")
            let pool = try DatabasePool(path: path, configuration: configuration, maximumReaderCount: 1)
            try await pool.write { db in try db.executeScript(Self.schema) }
            let values = collect(
                pool.observe(bufferingPolicy: .unbounded) { db in
                    try db.queryValue("SELECT count(*) FROM v", as: Int.self) ?? -1
                })
            #expect(await waitUntil { values.current == [0] })
            try await pool.write { db in try db.execute("INSERT INTO a VALUES (1)") }
            try await pool.changeKey(to: .passphrase("new"))
            try await pool.write { db in try db.execute("INSERT INTO a VALUES (1)") }
            #expect(await waitUntil { values.current == [0, 1, 2] })
            pool.close()
            #expect(await waitUntil { values.finished })
            #expect(values.error == nil)
        }
    }

    @Test("a pool observation naming a table dropped since does not stop a new observation from starting")
    func droppedNamedTableDoesNotBlockNewObservation() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path)
            try await pool.write { db in try db.executeScript(Self.schema + "CREATE TABLE gone (x);") }
            let first = collect(
                pool.observe(tables: ["gone"]) { db in try db.queryValue("SELECT 1", as: Int.self) ?? -1 })
            #expect(await waitUntil { first.current == [1] })
            try await pool.write { db in try db.execute("DROP TABLE gone") }
            let second = collect(
                pool.observe(tables: ["b"], bufferingPolicy: .unbounded) { db in
                    try db.queryValue("SELECT count(*) FROM b", as: Int.self) ?? -1
                })
            #expect(await waitUntil { second.current == [0] })
            try await pool.write { db in try db.execute("INSERT INTO b VALUES (1)") }
            #expect(await waitUntil { second.current == [0, 1] })
            first.task?.cancel()
            try await pool.write { db in try db.execute("INSERT INTO b VALUES (1)") }
            #expect(await waitUntil { second.current == [0, 1, 2] })
            pool.close()
        }
    }

    @Test("names: other case is known; schema-qualified and quoted names are refused with unknownTable")
    func namedTableSpellings() async throws {
        let queue = try DatabaseQueue()
        // Its observations' streams are drained until it closes: close it, or they keep it alive.
        defer { queue.close() }
        try await queue.write { db in try db.executeScript(Self.schema) }
        let known = collect(queue.observe(tables: ["A"]) { db in try db.queryValue("SELECT 1", as: Int.self) ?? -1 })
        #expect(await waitUntil { known.current == [1] })
        for name in ["main.a", "\"a\""] {
            let refused = collect(
                queue.observe(tables: [name]) { db in try db.queryValue("SELECT 1", as: Int.self) ?? -1 })
            #expect(await waitUntil { refused.error != nil })
            #expect((refused.error as? DatabaseError)?.reason == .unknownTable(name))
        }
    }

    @Test("a query that throws on a pool's shared reader ends its stream only; the others go on, the reader returns")
    func throwingQueryOnSharedReader() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path, maximumReaderCount: 1)
            try await pool.write { db in try db.executeScript(Self.schema) }
            let failing = collect(
                pool.observe(tables: ["a"], bufferingPolicy: .unbounded) { db in
                    let count = try db.queryValue("SELECT count(*) FROM a", as: Int.self) ?? -1
                    if count == 1 { _ = try db.query("SELECT * FROM no_such_table") }
                    return count
                })
            let healthy = (0..<3).map { _ in
                collect(
                    pool.observe(bufferingPolicy: .unbounded) { db in
                        try db.queryValue("SELECT count(*) FROM a", as: Int.self) ?? -1
                    })
            }
            #expect(await waitUntil { healthy.allSatisfy { $0.current == [0] } && failing.current == [0] })
            for _ in 0..<3 { try await pool.write { db in try db.execute("INSERT INTO a VALUES (1)") } }
            #expect(await waitUntil { healthy.allSatisfy { $0.current == [0, 1, 2, 3] } })
            #expect(await waitUntil { failing.error != nil })
            // The reader is back, and sees the last commit (no read transaction of the failed run was left open).
            #expect(try await pool.read { db in try db.queryValue("SELECT count(*) FROM a", as: Int.self) } == 3)
            #expect(pool.readerCount <= 1)
            pool.close()
            #expect(await waitUntil { healthy.allSatisfy(\.finished) })
        }
    }

    @Test("one reader, twelve observed queries and concurrent reads: every value arrives, no reader leaks")
    func oneReaderManyQueriesConcurrentReads() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path, maximumReaderCount: 1)
            try await pool.write { db in try db.executeScript(Self.schema) }
            let streams = (0..<12).map { index in
                collect(
                    pool.observe(tables: index.isMultiple(of: 2) ? ["a"] : nil, bufferingPolicy: .unbounded) { db in
                        try db.queryValue("SELECT count(*) FROM a", as: Int.self) ?? -1
                    })
            }
            let commits = 40
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for _ in 0..<commits { try await pool.write { db in try db.execute("INSERT INTO a VALUES (1)") } }
                }
                for _ in 0..<4 {
                    group.addTask {
                        for _ in 0..<50 {
                            _ = try await pool.read { db in try db.queryValue("SELECT 1", as: Int.self) }
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(await waitUntil { streams.allSatisfy { $0.current.last == commits } })
            for stream in streams { #expect(stream.current == stream.current.sorted(), "values in commit order") }
            #expect(pool.readerCount <= 1)
            // The reader was checked in: a blocking read gets it at once.
            #expect(try await pool.read { db in try db.queryValue("SELECT count(*) FROM a", as: Int.self) } == commits)
            pool.close()
            #expect(await waitUntil { streams.allSatisfy(\.finished) })
        }
    }

    @Test("cancelling a stream while its run holds the shared reader: the reader returns, the others go on")
    func cancelWhileRunInFlight() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path, maximumReaderCount: 1)
            try await pool.write { db in try db.executeScript(Self.schema) }
            let gate = DispatchSemaphore(value: 0)
            let blocked = Locked(false)
            let runs = Locked(0)
            let cancelled = collect(
                pool.observe(tables: ["a"]) { db in
                    let run = runs.withLock {
                        $0 += 1
                        return $0
                    }
                    if run == 2 {
                        blocked.withLock { $0 = true }
                        gate.wait()
                    }
                    return try db.queryValue("SELECT count(*) FROM a", as: Int.self) ?? -1
                })
            let other = collect(
                pool.observe(tables: ["a"], bufferingPolicy: .unbounded) { db in
                    try db.queryValue("SELECT count(*) FROM a", as: Int.self) ?? -1
                })
            #expect(await waitUntil { cancelled.current == [0] && other.current == [0] })
            try await pool.write { db in try db.execute("INSERT INTO a VALUES (1)") }
            #expect(await waitUntil { blocked.current })
            cancelled.task?.cancel()
            gate.signal()
            try await pool.write { db in try db.execute("INSERT INTO a VALUES (1)") }
            #expect(await waitUntil { other.current == [0, 1, 2] })
            #expect(runs.current == 2, "the cancelled query ran after its cancellation")
            #expect(try await pool.read { db in try db.queryValue("SELECT count(*) FROM a", as: Int.self) } == 2)
            pool.close()
        }
    }

    @Test("a query whose closure starts another observation, on a queue and a pool: both deliver")
    func closureStartsObservation() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path)
            let queue = try DatabaseQueue()
            // Its observations' streams are drained until it closes: close it, or they keep it alive.
            defer { queue.close() }
            try await pool.write { db in try db.executeScript(Self.schema) }
            try await queue.write { db in try db.executeScript(Self.schema) }
            let inner = Locked<[Collector<Int>]>([])
            let outerPool = collect(
                pool.observe(tables: ["a"]) { db in
                    let count = try db.queryValue("SELECT count(*) FROM a", as: Int.self) ?? -1
                    if count == 0 {
                        let stream = pool.observe(tables: ["b"]) { db in
                            try db.queryValue("SELECT count(*) FROM b", as: Int.self) ?? -1
                        }
                        inner.withLock { $0.append(collect(stream)) }
                    }
                    return count
                })
            let outerQueue = collect(
                queue.observe { db in
                    let count = try db.queryValue("SELECT count(*) FROM a", as: Int.self) ?? -1
                    if count == 0 {
                        let stream = queue.observe { db in
                            try db.queryValue("SELECT count(*) FROM b", as: Int.self) ?? -1
                        }
                        inner.withLock { $0.append(collect(stream)) }
                    }
                    return count
                })
            #expect(await waitUntil { inner.current.count == 2 && inner.current.allSatisfy { $0.current == [0] } })
            try await pool.write { db in try db.execute("INSERT INTO b VALUES (1)") }
            try await queue.write { db in try db.execute("INSERT INTO b VALUES (1)") }
            #expect(await waitUntil { inner.current.allSatisfy { $0.current.last == 1 } })
            #expect(outerPool.current == [0] && outerQueue.current == [0])
            pool.close()
            queue.close()
            #expect(
                await waitUntil { inner.current.allSatisfy(\.finished) && outerPool.finished && outerQueue.finished })
        }
    }
}
