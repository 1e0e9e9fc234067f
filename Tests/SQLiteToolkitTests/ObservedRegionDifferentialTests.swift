import Foundation
import SQLiteToolkit
import Testing

/// A seeded differential test of observed queries without a table list: random queries read random tables and
/// views (and, half the time, choose what to read from a setting they read first), random units write random
/// tables, views and triggers of the same database, and the oracle is SQLite itself: the query's text run on a
/// second connection after each unit. Whenever the oracle's answer changed, the observed query must have run and
/// yielded it (a miss otherwise); on a queue, a unit with one commit runs the query once at most (a repeat
/// otherwise). Runs after units whose answer did not change are counted as imprecise (extra work, never wrong).
///
/// `SQLTK_REGION_PROGRAMS` programs (default 60) from seed `SQLTK_SEED` (default 43); program `i` uses seed
/// `SQLTK_SEED + i`. `SQLTK_RELIABILITY_REPORT` prints the figures.
@Suite("Observed queries without a table list against SQLite's own answers", .timeLimit(.minutes(5)))
struct ObservedRegionDifferentialTests {
    enum Target: String, CaseIterable, Sendable {
        case queue, pool
    }

    static let programCount = environmentInteger("SQLTK_REGION_PROGRAMS") ?? 60
    static let unitsPerProgram = 15

    static let schema = """
        CREATE TABLE t0 (x INT);
        CREATE TABLE t1 (x INT);
        CREATE TABLE t2 (x INT);
        CREATE TABLE t3 (x INT) ;
        CREATE TABLE t4 (k INTEGER PRIMARY KEY, x INT) WITHOUT ROWID;
        CREATE TABLE config (flag INT NOT NULL);
        INSERT INTO config VALUES (0);
        CREATE VIEW v01 AS SELECT x FROM t0 UNION ALL SELECT x FROM t1;
        CREATE VIEW v23 AS SELECT t2.x FROM t2 JOIN t3 ON t2.x = t3.x;
        CREATE TRIGGER v01_insert INSTEAD OF INSERT ON v01 BEGIN INSERT INTO t1 VALUES (new.x); END;
        CREATE TRIGGER t3_cascade AFTER INSERT ON t3 WHEN new.x % 3 = 0 BEGIN INSERT INTO t0 VALUES (new.x); END;
        """
    static let readables = ["t0", "t1", "t2", "t3", "t4", "v01", "v23"]

    @Test(
        "every change of the query's answer is yielded, after the unit that made it, and nothing is yielded twice",
        arguments: Target.allCases)
    func differential(target: Target) async throws {
        let baseSeed = SeededRandom.seed(default: 43)
        var units = 0
        var changes = 0
        var missed: [String] = []
        var repeated: [String] = []
        var imprecise = 0
        for index in 0..<Self.programCount {
            let seed = baseSeed &+ UInt64(index)
            try await TemporaryFile.withDatabasePathAsync { path in
                var random = SeededRandom(seed: seed)
                let program = try Self.makeTarget(target, path: path)
                defer { program.close() }
                let oracle = try Database(path: path)
                defer { oracle.close() }
                let query = Self.randomQuery(&random)
                // The values as the stream yields them, in its order: on a pool a run on the writer can end before
                // an earlier commit's run on a reader, so the order runs end in is not the order of the values.
                let log = Locked<[String]>([])
                let runCount = Locked(0)
                let stream = program.observe { db in
                    runCount.withLock { $0 += 1 }
                    return try query.run(db)
                }
                // A stream that ends with an error stops yielding: the error is kept to be named with a miss.
                let ending = Locked<String?>(nil)
                let draining = Task {
                    do {
                        for try await value in stream { log.withLock { $0.append(value) } }
                        ending.withLock { $0 = "the stream finished" }
                    } catch {
                        ending.withLock { $0 = "the stream failed: \(error)" }
                    }
                }
                defer { draining.cancel() }
                var answer = try query.run(oracle)
                await waitFor { log.withLock { $0.last } == answer }
                for unit in 1...Self.unitsPerProgram {
                    let runsBefore = runCount.withLock { $0 }
                    let sql = Self.randomUnit(&random)
                    try? program.run(sql)
                    let newAnswer = try query.run(oracle)
                    units += 1
                    let place = "seed \(seed) unit \(unit) (\(query.description)): \(sql)"
                    if newAnswer != answer {
                        changes += 1
                        // Long enough for a machine loaded past its cores: a value that never comes is a miss.
                        let yielded = await waitFor(seconds: 60) { log.withLock { $0.last } == newAnswer }
                        if !yielded {
                            let last = log.withLock { $0.last } ?? "none"
                            missed.append(
                                "\(place): expected \(newAnswer), last yielded \(last), \(ending.withLock { $0 } ?? "running")"
                            )
                        }
                    }
                    let runs = runCount.withLock { $0 } - runsBefore
                    if target == .queue && runs > 1 { repeated.append("\(place): \(runs) runs") }
                    if newAnswer == answer && runs > 0 { imprecise += 1 }
                    answer = newAnswer
                }
            }
        }
        let summary =
            "observed-region differential [\(target)]: seed \(baseSeed), \(Self.programCount) programs, \(units) "
            + "units, \(changes) answers changed, missed \(missed.count), repeated \(repeated.count), "
            + "imprecise \(imprecise) (runs after a unit that left the answer as it was)"
        if environmentInteger("SQLTK_RELIABILITY_REPORT") != nil || !missed.isEmpty || !repeated.isEmpty {
            print(summary)
        }
        #expect(missed.isEmpty, "\(summary)\n\(missed.prefix(5).joined(separator: "\n"))")
        #expect(repeated.isEmpty, "\(summary)\n\(repeated.prefix(5).joined(separator: "\n"))")
    }

    // MARK: - Programs

    /// A query over a random set of tables and views; with a setting, it reads the setting first, then one set or
    /// another depending on it.
    struct Query: Sendable {
        let whenEven: [String]
        let whenOdd: [String]?

        var description: String {
            whenOdd.map { "config ? \(whenEven) : \($0)" } ?? "\(whenEven)"
        }

        func run(_ db: Database) throws -> String {
            var tables = whenEven
            var prefix = ""
            if let whenOdd {
                let flag = try db.queryValue("SELECT flag FROM config", as: Int.self) ?? 0
                if flag % 2 == 1 { tables = whenOdd }
                prefix = "\(flag % 2):"
            }
            let parts = tables.map { "(SELECT count(*) || '/' || total(x) FROM \($0))" }
            let sql = "SELECT " + parts.joined(separator: " || ',' || ")
            return prefix + (try db.queryValue(sql, as: String.self) ?? "")
        }
    }

    static func randomSubset(_ random: inout SeededRandom) -> [String] {
        let count = Int.random(in: 1...3, using: &random)
        return Array(readables.shuffled(using: &random).prefix(count))
    }

    static func randomQuery(_ random: inout SeededRandom) -> Query {
        let even = randomSubset(&random)
        return Query(whenEven: even, whenOdd: Bool.random(using: &random) ? randomSubset(&random) : nil)
    }

    static func randomStatement(_ random: inout SeededRandom) -> String {
        let value = Int.random(in: 0..<30, using: &random)
        let table = ["t0", "t1", "t2", "t3"][Int.random(in: 0..<4, using: &random)]
        switch Int.random(in: 0..<9, using: &random) {
        case 0, 1: return "INSERT INTO \(table) VALUES (\(value))"
        case 2: return "UPDATE \(table) SET x = x + 1 WHERE x % 2 = \(value % 2)"
        case 3: return "DELETE FROM \(table) WHERE x < \(value)"
        case 4: return "INSERT INTO v01 VALUES (\(value))"
        case 5: return "INSERT OR REPLACE INTO t4 VALUES (\(value % 5), \(value))"
        case 6: return "UPDATE config SET flag = flag + 1"
        case 7: return "UPDATE \(table) SET x = x WHERE x = \(value)"
        default: return "DELETE FROM \(table)"
        }
    }

    /// One unit: an autocommit statement, or a transaction of a few, committed or rolled back, perhaps with a
    /// savepoint rolled back inside.
    static func randomUnit(_ random: inout SeededRandom) -> String {
        switch Int.random(in: 0..<4, using: &random) {
        case 0, 1:
            return randomStatement(&random)
        case 2:
            let body = (0..<Int.random(in: 1...3, using: &random)).map { _ in randomStatement(&random) }
            let end = Bool.random(using: &random) ? "COMMIT" : "ROLLBACK"
            return (["BEGIN"] + body + [end]).joined(separator: "; ")
        default:
            let kept = randomStatement(&random)
            let undone = randomStatement(&random)
            return "BEGIN; \(kept); SAVEPOINT s; \(undone); ROLLBACK TO s; RELEASE s; COMMIT"
        }
    }

    // MARK: - Targets

    /// A queue or a pool, as the program uses it.
    struct ProgramTarget {
        let observe: (@escaping @Sendable (Database) throws -> String) -> AsyncThrowingStream<String, any Error>
        let run: (String) throws -> Void
        let close: () -> Void
    }

    static func makeTarget(_ target: Target, path: String) throws -> ProgramTarget {
        switch target {
        case .queue:
            let queue = try DatabaseQueue(path: path)
            try queue.inDatabase { db in try db.executeScript(schema) }
            return ProgramTarget(
                observe: { queue.observe(bufferingPolicy: .unbounded, $0) },
                run: { sql in
                    try queue.inDatabase { db in
                        defer { if db.isInTransaction { try? db.execute("ROLLBACK") } }
                        try db.executeScript(sql)
                    }
                },
                close: { queue.close() })
        case .pool:
            let pool = try DatabasePool(path: path, maximumReaderCount: 2)
            try pool.writeWithoutTransaction { db in try db.executeScript(schema) }
            return ProgramTarget(
                observe: { pool.observe(bufferingPolicy: .unbounded, $0) },
                run: { sql in
                    try pool.writeWithoutTransaction { db in
                        defer { if db.isInTransaction { try? db.execute("ROLLBACK") } }
                        try db.executeScript(sql)
                    }
                },
                close: { pool.close() })
        }
    }
}

/// Waits until `condition` holds, polling; `false` after `seconds`.
@discardableResult
private func waitFor(seconds: Double = 30, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        try? await Task.sleep(nanoseconds: 200_000)
    }
    return true
}
