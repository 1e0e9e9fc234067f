import SQLiteToolkit
import Testing

/// The sum of the squares of the non-NULL integer arguments.
struct SumOfSquares: DatabaseAggregate {
    var sum = 0
    mutating func step(_ arguments: FunctionValues) throws {
        if let value = try arguments.value(at: 0, as: Int?.self) { sum += value * value }
    }
    func finalize() -> Int { sum }
}

/// A sum over a sliding window frame.
struct MovingSum: DatabaseWindowFunction {
    var sum = 0
    mutating func step(_ arguments: FunctionValues) throws { sum += try arguments.value(at: 0, as: Int.self) }
    mutating func inverse(_ arguments: FunctionValues) throws { sum -= try arguments.value(at: 0, as: Int.self) }
    func value() -> Int { sum }
    func finalize() -> Int { sum }
}

/// Counts its instances and fails on a negative argument, to follow their lifetimes.
final class CountedAggregate: DatabaseWindowFunction {
    /// One instance counter per test, set before the statement runs (tests of this suite that use it are serialized).
    nonisolated(unsafe) static var counter: ReleaseCounter?
    let token = CountedAggregate.counter?.token()
    var total = 0
    var finalized = false

    init() {}

    func step(_ arguments: FunctionValues) throws {
        let value = try arguments.value(at: 0, as: Int.self)
        guard value >= 0 else { throw FunctionFailure(description: "negative value") }
        total += value
    }
    func inverse(_ arguments: FunctionValues) throws { total -= try arguments.value(at: 0, as: Int.self) }
    func value() -> Int? { total }
    func finalize() -> Int? {
        finalized = true
        return total == 0 ? nil : total
    }
}

@Suite("Aggregates and window functions", .serialized)
struct AggregateTests {
    func database(rows: [(group: String, value: Int?)]) throws -> Database {
        let db = try Database()
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, grp TEXT, x INTEGER)")
        for row in rows { try db.execute("INSERT INTO t (grp, x) VALUES (?, ?)", row.group, row.value) }
        return db
    }

    @Test("an aggregate computes one result per group with a fresh instance each")
    func groups() throws {
        let db = try database(rows: [("a", 1), ("a", 2), ("b", 3), ("b", nil), ("c", 4)])
        try db.createAggregate("sumsq", argumentCount: 1, SumOfSquares.self)
        #expect(try db.queryValue("SELECT sumsq(x) FROM t", as: Int.self) == 30)
        #expect(
            try allValues(db, "SELECT grp, sumsq(x) FROM t GROUP BY grp ORDER BY grp") == [
                ["a", 5], ["b", 9], ["c", 16],
            ])
    }

    @Test("an aggregate over an empty table finalizes an instance that saw no row")
    func emptyTable() throws {
        let db = try database(rows: [])
        try db.createAggregate("sumsq", argumentCount: 1, SumOfSquares.self)
        #expect(try db.queryValue("SELECT sumsq(x) FROM t", as: Int.self) == 0)
        try db.createAggregate("counted", argumentCount: 1, CountedAggregate.self)
        #expect(try allValues(db, "SELECT counted(x) FROM t") == [[.null]])
        #expect(try allValues(db, "SELECT grp, sumsq(x) FROM t GROUP BY grp").isEmpty)
    }

    @Test("an error in step fails the statement and releases the instance without finalizing it")
    func stepError() throws {
        let counter = ReleaseCounter()
        CountedAggregate.counter = counter
        defer { CountedAggregate.counter = nil }
        let db = try database(rows: [("a", 1), ("a", -1), ("a", 2)])
        try db.createAggregate("counted", argumentCount: 1, CountedAggregate.self)
        let error = try #require(throws: DatabaseError.self) {
            try db.queryValue("SELECT counted(x) FROM t", as: Int.self)
        }
        #expect(error.message == "negative value")
        #expect(counter.released == 1)
        // A successful run releases its instances too: one per group.
        try db.execute("DELETE FROM t WHERE x < 0")
        try db.execute("INSERT INTO t (grp, x) VALUES ('b', 5)")
        #expect(try allValues(db, "SELECT grp, counted(x) FROM t GROUP BY grp ORDER BY grp") == [["a", 3], ["b", 5]])
        #expect(counter.released == 3)
    }

    @Test("a statement reset in the middle of an evaluation releases its instance")
    func resetMidEvaluation() throws {
        let counter = ReleaseCounter()
        CountedAggregate.counter = counter
        defer { CountedAggregate.counter = nil }
        let db = try database(rows: [("a", 1), ("a", 2), ("a", 3)])
        try db.createWindowFunction("counted", argumentCount: 1, CountedAggregate.self)
        let rows = try db.query("SELECT counted(x) OVER (ORDER BY id) FROM t")
        #expect(try rows.next()?.value(at: 0, as: Int.self) == 1)
        #expect(counter.created == 1)
        #expect(counter.released == 0)
        rows.close()
        #expect(counter.released == 1)
    }

    @Test("an aggregate's registration is released by replacing, removing and closing")
    func registrationReleases() throws {
        let db = try database(rows: [("a", 3)])
        try db.createAggregate("sumsq", argumentCount: 1, SumOfSquares.self)
        try db.createAggregate("sumsq", argumentCount: 1, SumOfSquares.self)
        #expect(try db.queryValue("SELECT sumsq(x) FROM t", as: Int.self) == 9)
        try db.removeFunction("sumsq", argumentCount: 1)
        #expect(throws: DatabaseError.self) { try db.execute("SELECT sumsq(x) FROM t") }
        let error = try #require(throws: DatabaseError.self) {
            try db.createAggregate("", argumentCount: 1, SumOfSquares.self)
        }
        #expect(error.reason == .invalidFunctionName(""))
        db.close()
        let closed = try #require(throws: DatabaseError.self) {
            try db.createWindowFunction("moving", argumentCount: 1, MovingSum.self)
        }
        #expect(closed.reason == .connectionClosed)
    }

    @Test("a window function gives a moving sum over ROWS BETWEEN 2 PRECEDING AND CURRENT ROW")
    func movingSum() throws {
        let db = try database(rows: [("a", 1), ("a", 2), ("a", 3), ("a", 4), ("a", 5)])
        try db.createWindowFunction("moving_sum", argumentCount: 1, MovingSum.self)
        let sql = "SELECT x, moving_sum(x) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM t"
        #expect(try allValues(db, sql) == [[1, 1], [2, 3], [3, 6], [4, 9], [5, 12]])
        // The same function is a plain aggregate without OVER.
        #expect(try db.queryValue("SELECT moving_sum(x) FROM t", as: Int.self) == 15)
    }

    @Test("a window function restarts in each partition")
    func partitions() throws {
        let counter = ReleaseCounter()
        CountedAggregate.counter = counter
        defer { CountedAggregate.counter = nil }
        let db = try database(rows: [("a", 1), ("b", 10), ("a", 2), ("b", 20), ("a", 3), ("b", 30)])
        try db.createWindowFunction("moving_sum", argumentCount: 1, MovingSum.self)
        try db.createWindowFunction("counted", argumentCount: 1, CountedAggregate.self)
        let sql = """
            SELECT grp, x,
                   moving_sum(x) OVER (PARTITION BY grp ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW),
                   counted(x) OVER (PARTITION BY grp ORDER BY id)
            FROM t ORDER BY grp, id
            """
        #expect(
            try allValues(db, sql) == [
                ["a", 1, 1, 1], ["a", 2, 3, 3], ["a", 3, 5, 6],
                ["b", 10, 10, 10], ["b", 20, 30, 30], ["b", 30, 50, 60],
            ])
        #expect(counter.released == 2)
        // An error in a window step fails the statement and releases the instance.
        try db.execute("INSERT INTO t (grp, x) VALUES ('c', -1)")
        let error = try #require(throws: DatabaseError.self) {
            try allValues(db, "SELECT counted(x) OVER (PARTITION BY grp ORDER BY id) FROM t")
        }
        #expect(error.message == "negative value")
        #expect(counter.released == 5)
    }
}
