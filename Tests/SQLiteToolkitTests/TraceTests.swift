import SQLiteToolkit
import Testing

@Suite("Tracing")
struct TraceTests {
    private func makeDatabase() throws -> Database {
        let db = try Database()
        try db.execute("CREATE TABLE t (x, y)")
        return db
    }

    @Test("trace records each statement's SQL, in order, as prepared")
    func recordsStatementsInOrder() throws {
        let db = try makeDatabase()
        var traced: [Database.TracedStatement] = []
        try db.trace { traced.append($0) }
        try db.execute("INSERT INTO t VALUES (?, ?)", 1, "one")
        try db.execute("INSERT INTO t VALUES (?, ?)", 2, "two")
        _ = try db.queryValue("SELECT count(*) FROM t", as: Int.self)
        try db.transaction { db in try db.execute("DELETE FROM t WHERE x = ?", 1) }
        let statement = try db.prepare("UPDATE t SET y = :y")
        try statement.execute(arguments: ["y": "z"])
        #expect(
            traced.map(\.sql) == [
                "INSERT INTO t VALUES (?, ?)",
                "INSERT INTO t VALUES (?, ?)",
                "SELECT count(*) FROM t",
                "BEGIN IMMEDIATE TRANSACTION",
                "DELETE FROM t WHERE x = ?",
                "COMMIT TRANSACTION",
                "UPDATE t SET y = :y",
            ])
        #expect(traced.allSatisfy { $0.duration == nil })
    }

    @Test("a failing statement is traced too")
    func failingStatement() throws {
        let db = try makeDatabase()
        try db.execute("CREATE TABLE u (x NOT NULL)")
        var traced: [String] = []
        try db.trace { traced.append($0.sql) }
        #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO u VALUES (NULL)") }
        #expect(traced == ["INSERT INTO u VALUES (NULL)"])
    }

    @Test(".expandedSQL shows the bound values")
    func expandedSQL() throws {
        let db = try makeDatabase()
        var traced: [String] = []
        try db.trace(options: .expandedSQL) { traced.append($0.sql) }
        try db.execute("INSERT INTO t VALUES (?, ?)", 42, "it's")
        try db.execute("INSERT INTO t VALUES (:x, :y)", arguments: ["x": 1.5, "y": nil as String?])
        #expect(
            traced == [
                "INSERT INTO t VALUES (42, 'it''s')",
                "INSERT INTO t VALUES (1.5, NULL)",
            ])
    }

    @Test("without .expandedSQL the bound values stay out of the trace")
    func unexpandedSQLHidesValues() throws {
        let db = try makeDatabase()
        var traced: [String] = []
        try db.trace { traced.append($0.sql) }
        try db.execute("INSERT INTO t VALUES (?, ?)", 42, "secret")
        #expect(traced == ["INSERT INTO t VALUES (?, ?)"])
    }

    @Test(
        "a trigger and its statements are reported as SQL comments, expanded or not",
        arguments: [
            Database.TraceOptions(), .expandedSQL,
        ])
    func trigger(options: Database.TraceOptions) throws {
        let db = try makeDatabase()
        try db.execute("CREATE TABLE log (x)")
        try db.execute("CREATE TRIGGER logger AFTER INSERT ON t BEGIN INSERT INTO log VALUES (new.x); END")
        var traced: [String] = []
        try db.trace(options: options) { traced.append($0.sql) }
        try db.execute("INSERT INTO t VALUES (?, ?)", 1, 2)
        let insert = options.contains(.expandedSQL) ? "INSERT INTO t VALUES (1, 2)" : "INSERT INTO t VALUES (?, ?)"
        // SQLite reports the trigger, then each of its statements, as comments; neither is expanded.
        #expect(traced == [insert, "-- TRIGGER logger", "-- INSERT INTO log VALUES (new.x)"])
    }

    @Test(".duration reports each statement when it finishes, with a non-negative duration")
    func duration() throws {
        let db = try makeDatabase()
        var traced: [Database.TracedStatement] = []
        try db.trace(options: .duration) { traced.append($0) }
        try db.execute("INSERT INTO t VALUES (?, ?)", 1, 2)
        _ = try db.queryValue("SELECT count(*) FROM t", as: Int.self)
        #expect(traced.map(\.sql) == ["INSERT INTO t VALUES (?, ?)", "SELECT count(*) FROM t"])
        for statement in traced {
            let duration = try #require(statement.duration)
            #expect(duration >= 0)
        }
    }

    @Test(".duration with .expandedSQL reports the bound values")
    func durationExpanded() throws {
        let db = try makeDatabase()
        var traced: [Database.TracedStatement] = []
        try db.trace(options: [.duration, .expandedSQL]) { traced.append($0) }
        try db.execute("INSERT INTO t VALUES (?, ?)", 1, "a")
        #expect(traced.map(\.sql) == ["INSERT INTO t VALUES (1, 'a')"])
        #expect(traced.first?.duration != nil)
    }

    @Test("trace(nil) stops tracing")
    func traceNilStops() throws {
        let db = try makeDatabase()
        var traced: [String] = []
        try db.trace { traced.append($0.sql) }
        try db.execute("INSERT INTO t VALUES (1, 1)")
        try db.trace(nil)
        try db.execute("INSERT INTO t VALUES (2, 2)")
        #expect(traced == ["INSERT INTO t VALUES (1, 1)"])
    }

    @Test("a new trace replaces the previous one")
    func newTraceReplaces() throws {
        let db = try makeDatabase()
        var first: [String] = []
        var second: [String] = []
        try db.trace { first.append($0.sql) }
        try db.execute("INSERT INTO t VALUES (1, 1)")
        try db.trace { second.append($0.sql) }
        try db.execute("INSERT INTO t VALUES (2, 2)")
        #expect(first == ["INSERT INTO t VALUES (1, 1)"])
        #expect(second == ["INSERT INTO t VALUES (2, 2)"])
    }

    @Test("closing the connection releases the trace closure")
    func closeReleasesClosure() throws {
        final class Witness {}
        let db = try makeDatabase()
        weak var witnessReference: Witness?
        try {
            let witness = Witness()
            witnessReference = witness
            try db.trace { _ in _ = witness }
        }()
        #expect(witnessReference != nil)
        db.close()
        #expect(witnessReference == nil)
    }
}
