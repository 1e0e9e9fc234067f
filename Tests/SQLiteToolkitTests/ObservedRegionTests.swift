import Foundation
import SQLiteToolkit
import Testing

/// Observed queries without a table list follow what they read; named tables are checked; observers hear commits
/// in the order they were made; a pool's commit takes one reader for all its observed queries; a slow consumer gets
/// the newest value. Each test failed before the change it covers.
@Suite("Observed queries: the tables they read, the names they give, order and buffering", .timeLimit(.minutes(3)))
struct ObservedRegionTests {
    static let schema = """
        CREATE TABLE a (x);
        CREATE TABLE b (x);
        CREATE TABLE other (x);
        CREATE TABLE config (flag INT NOT NULL);
        INSERT INTO config VALUES (0);
        CREATE VIEW v AS SELECT x FROM a UNION ALL SELECT x FROM b;
        """

    @Test("without a table list, a queue's query runs again after writes to the tables it reads through a view only")
    func queueFollowsReadsThroughView() async throws {
        let queue = try DatabaseQueue()
        // Its observations' streams are drained until it closes: close it, or they keep it alive.
        defer { queue.close() }
        try await queue.write { db in try db.executeScript(Self.schema) }
        let runs = Locked(0)
        let stream = queue.observe(bufferingPolicy: .unbounded) { db in
            runs.withLock { $0 += 1 }
            return try db.queryValue("SELECT count(*) FROM v", as: Int.self) ?? -1
        }
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        // On a queue the query runs inside the commit's access: when the write returns, a run would have happened.
        try await queue.write { db in try db.execute("INSERT INTO other VALUES (1)") }
        #expect(runs.withLock { $0 } == 1, "a write to a table the query does not read made it run")
        try await queue.write { db in try db.execute("INSERT INTO a VALUES (1)") }
        #expect(try await iterator.next() == 1)
        try await queue.write { db in try db.execute("INSERT INTO b VALUES (1)") }
        #expect(try await iterator.next() == 2)
        #expect(runs.withLock { $0 } == 3)
    }

    @Test("the tables watched follow the query from one run to the next")
    func regionFollowsQuery() async throws {
        let queue = try DatabaseQueue()
        // Its observations' streams are drained until it closes: close it, or they keep it alive.
        defer { queue.close() }
        try await queue.write { db in try db.executeScript(Self.schema) }
        let runs = Locked(0)
        let stream = queue.observe(bufferingPolicy: .unbounded) { db in
            runs.withLock { $0 += 1 }
            let flag = try db.queryValue("SELECT flag FROM config", as: Int.self) ?? 0
            let table = flag == 0 ? "a" : "b"
            return flag * 100 + (try db.queryValue("SELECT count(*) FROM \(table)", as: Int.self) ?? -1)
        }
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        try await queue.write { db in try db.execute("INSERT INTO b VALUES (1)") }
        #expect(runs.withLock { $0 } == 1, "b is not read while the flag is 0")
        try await queue.write { db in try db.execute("INSERT INTO a VALUES (1)") }
        #expect(try await iterator.next() == 1)
        try await queue.write { db in try db.execute("UPDATE config SET flag = 1") }
        #expect(try await iterator.next() == 101)
        try await queue.write { db in try db.execute("INSERT INTO a VALUES (2)") }
        #expect(runs.withLock { $0 } == 3, "a is not read any more once the flag is 1")
        try await queue.write { db in try db.execute("INSERT INTO b VALUES (2)") }
        #expect(try await iterator.next() == 102)
    }

    @Test("without a table list, a pool's query runs again after writes to the tables it reads only")
    func poolFollowsReads() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path)
            try await pool.write { db in try db.executeScript(Self.schema) }
            let stream = pool.observe(bufferingPolicy: .unbounded) { db in
                try db.queryValue("SELECT count(*) FROM v", as: Int.self) ?? -1
            }
            var iterator = stream.makeAsyncIterator()
            #expect(try await iterator.next() == 0)
            // A run after this write would deliver 0 again before the insert's 1.
            try await pool.write { db in try db.execute("INSERT INTO other VALUES (1)") }
            try await pool.write { db in try db.execute("INSERT INTO a VALUES (1)") }
            #expect(try await iterator.next() == 1)
            try await pool.write { db in try db.execute("INSERT INTO b VALUES (1)") }
            #expect(try await iterator.next() == 2)
            pool.close()
            #expect(try await iterator.next() == nil)
        }
    }

    @Test("a name that is neither a table nor a view ends a queue's and a pool's observation at once with unknownTable")
    func unknownTableEndsObservation() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path)
            let queue = try DatabaseQueue()
            // Its observations' streams are drained until it closes: close it, or they keep it alive.
            defer { queue.close() }
            for write in [{ try await pool.write($0) }, { try await queue.write($0) }] as [WriteAccess] {
                try await write { db in try db.executeScript(Self.schema) }
            }
            let streams = [
                pool.observe(tables: ["a", "players"]) { db in try db.queryValue("SELECT 1", as: Int.self) },
                queue.observe(tables: ["a", "players"]) { db in try db.queryValue("SELECT 1", as: Int.self) },
            ]
            for stream in streams {
                var iterator = stream.makeAsyncIterator()
                let error = await #expect(throws: DatabaseError.self) { _ = try await iterator.next() }
                #expect(error?.reason == .unknownTable("players"))
            }
            // Names of views, in another case, and of temp and attached tables are known.
            try await queue.write { db in
                try db.execute("CREATE TEMP TABLE scratch (x)")
                try db.execute("ATTACH ':memory:' AS side")
                try db.execute("CREATE TABLE side.elsewhere (x)")
            }
            let known = queue.observe(tables: ["V", "A", "scratch", "elsewhere"]) { db in
                try db.queryValue("SELECT count(*) FROM a", as: Int.self)
            }
            var iterator = known.makeAsyncIterator()
            #expect(try await iterator.next() == 0)
            pool.close()
        }
    }

    @Test("a transaction observer of a misspelled table throws unknownTable, and none is added")
    func unknownTableThrowsForTransactionObserver() throws {
        let db = try Database()
        try db.executeScript(Self.schema)
        let told = Locked(0)
        let error = #expect(throws: DatabaseError.self) {
            try db.addTransactionObserver(tables: ["a", "bb"]) { _ in told.withLock { $0 += 1 } }
        }
        #expect(error?.reason == .unknownTable("bb"))
        try db.execute("INSERT INTO a VALUES (1)")
        #expect(told.withLock { $0 } == 0)
    }

    @Test("an observer that commits while told of a commit: every observer hears the two commits in their order")
    func reentrantCommitOrder() throws {
        let db = try Database()
        try db.executeScript(Self.schema)
        let heard = Locked<[String]>([])
        var wroteOnce = false
        try db.addTransactionObserver(includingRowChanges: false) { [unowned db] changes in
            heard.withLock { $0.append("first: \(changes.tables.sorted())") }
            guard !wroteOnce else { return }
            wroteOnce = true
            try? db.execute("INSERT INTO b VALUES (1)")
        }
        try db.addTransactionObserver(includingRowChanges: false) { changes in
            heard.withLock { $0.append("second: \(changes.tables.sorted())") }
        }
        try db.execute("INSERT INTO a VALUES (1)")
        #expect(
            heard.withLock { $0 } == [
                "first: [\"a\"]", "second: [\"a\"]", "first: [\"b\"]", "second: [\"b\"]",
            ])
    }

    @Test("a pool's commit runs all its observed queries on one connection, and never opens more readers than allowed")
    func poolSharesOneReaderPerCommit() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path, maximumReaderCount: 2)
            try await pool.write { db in try db.execute("CREATE TABLE t (x)") }
            // For each count the queries saw, the connections they ran on.
            let connections = Locked<[Int: Set<ObjectIdentifier>]>([:])
            let runs = Locked(0)
            let streams = (0..<6).map { _ in
                pool.observe(tables: ["t"]) { db in
                    let count = try db.queryValue("SELECT count(*) FROM t", as: Int.self) ?? -1
                    _ = connections.withLock { $0[count, default: []].insert(ObjectIdentifier(db)) }
                    runs.withLock { $0 += 1 }
                    return count
                }
            }
            let draining = streams.map { stream in Task { for try await _ in stream {} } }
            try await sleepUntil { runs.withLock { $0 } == 6 }
            let commits = 20
            for _ in 0..<commits {
                try await pool.write { db in try db.execute("INSERT INTO t VALUES (1)") }
            }
            try await sleepUntil { runs.withLock { $0 } == 6 * (commits + 1) }
            for count in 1...commits {
                #expect(connections.withLock { $0[count]?.count } == 1, "the queries after commit \(count)")
            }
            #expect(pool.readerCount <= 2)
            pool.close()
            for task in draining { _ = try? await task.value }
        }
    }

    @Test("by default a slow consumer gets the newest value, not a backlog; .unbounded keeps them all")
    func slowConsumerGetsNewestValue() async throws {
        let queue = try DatabaseQueue()
        // Its observations' streams are drained until it closes: close it, or they keep it alive.
        defer { queue.close() }
        try await queue.write { db in try db.execute("CREATE TABLE t (x)") }
        let newest = queue.observe(tables: ["t"]) { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) }
        let every = queue.observe(tables: ["t"], bufferingPolicy: .unbounded) { db in
            try db.queryValue("SELECT count(*) FROM t", as: Int.self)
        }
        var newestIterator = newest.makeAsyncIterator()
        var everyIterator = every.makeAsyncIterator()
        // Both observing before the writes.
        #expect(try await newestIterator.next() == 0)
        #expect(try await everyIterator.next() == 0)
        for _ in 0..<50 {
            try await queue.write { db in try db.execute("INSERT INTO t VALUES (1)") }
        }
        #expect(try await newestIterator.next() == 50)
        try await queue.write { db in try db.execute("INSERT INTO t VALUES (1)") }
        #expect(try await newestIterator.next() == 51)
        var values: [Int?] = []
        for _ in 1...51 { values.append(try await everyIterator.next() ?? nil) }
        #expect(values == Array(1...51))
    }
}

private typealias WriteAccess = (@Sendable (Database) throws -> Void) async throws -> Void
