import Foundation
import SQLiteToolkit
import SQLiteToolkitCluster
import Testing

@Suite(
    "A dqlite cluster of three nodes",
    .serialized,
    .enabled(if: dqliteInstalled, "needs dqlite-demo from Debian's go-dqlite (scripts/install-test-peers)")
)
struct ClusterDatabaseTests {
    @Test func statementsWithArgumentsAndTypedValues() throws {
        let cluster = try DqliteCluster()
        defer { cluster.stop() }
        // Any node finds the leader, the last one included.
        let database = try ClusterDatabase(nodes: [cluster.addresses[2], cluster.addresses[1]], name: "values.db")
        defer { database.close() }
        try database.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, price REAL, data BLOB, note TEXT)")
        let inserted = try database.execute(
            "INSERT INTO item (name, price, data, note) VALUES (?, ?, ?, ?)", "pen", 1.5, Data([0, 1, 2]), nil)
        #expect(inserted.lastInsertedRowID == 1)
        #expect(inserted.changes == 1)
        let rows = try database.fetchAll("SELECT id, name, price, data, note FROM item WHERE name = ?", "pen")
        try #require(rows.count == 1)
        #expect(rows[0].columnNames == ["id", "name", "price", "data", "note"])
        #expect(try rows[0].value(at: 0, as: Int.self) == 1)
        #expect(try rows[0].value(named: "NAME", as: String.self) == "pen")
        #expect(try rows[0].value(named: "price", as: Double.self) == 1.5)
        #expect(try rows[0].value(named: "data", as: Data.self) == Data([0, 1, 2]))
        #expect(try rows[0].value(named: "note", as: String?.self) == nil)
        #expect(rows[0].values == [.integer(1), .text("pen"), .real(1.5), .blob(Data([0, 1, 2])), .null])
    }

    @Test func largeResultSetsSpanSeveralResponses() throws {
        let cluster = try DqliteCluster()
        defer { cluster.stop() }
        let database = try ClusterDatabase(nodes: cluster.addresses, name: "large.db")
        defer { database.close() }
        try database.execute("CREATE TABLE t (n INTEGER, padding TEXT)")
        try database.write { db in
            for n in 0..<2000 { try db.execute("INSERT INTO t VALUES (?, ?)", n, String(repeating: "x", count: 100)) }
        }
        let numbers = try database.fetchAll("SELECT n FROM t ORDER BY n").map { try $0.value(at: 0, as: Int.self) }
        #expect(numbers == Array(0..<2000))
    }

    @Test func sqliteErrorsKeepTheirCodeAndMessage() throws {
        let cluster = try DqliteCluster()
        defer { cluster.stop() }
        let database = try ClusterDatabase(nodes: cluster.addresses, name: "errors.db")
        defer { database.close() }
        try database.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)")
        try database.execute("INSERT INTO t VALUES (1)")
        let error = try #require(throws: ClusterError.self) { try database.execute("INSERT INTO t VALUES (1)") }
        // SQLITE_CONSTRAINT_PRIMARYKEY
        #expect(error.reason == .sqlite(code: 1555, message: "UNIQUE constraint failed: t.id"))
        #expect(error.sqliteCode == 19)
        let syntax = try #require(throws: ClusterError.self) { try database.execute("SELEKT 1") }
        #expect(syntax.sqliteCode == 1)
        // The connection is still usable after SQLite's errors.
        #expect(try database.fetchAll("SELECT count(*) FROM t")[0].value(at: 0, as: Int.self) == 1)
    }

    @Test func aThrowingWriteRollsBack() throws {
        let cluster = try DqliteCluster()
        defer { cluster.stop() }
        let database = try ClusterDatabase(nodes: cluster.addresses, name: "rollback.db")
        defer { database.close() }
        try database.execute("CREATE TABLE t (n INTEGER)")
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try database.write { db in
                try db.execute("INSERT INTO t VALUES (1)")
                throw Abort()
            }
        }
        try database.write { db in try db.execute("INSERT INTO t VALUES (2)") }
        let values = try database.read { db in
            try db.fetchAll("SELECT n FROM t").map { try $0.value(at: 0, as: Int.self) }
        }
        #expect(values == [2])
    }

    @Test func retryingRunsAgainOnlyWhatThePolicyAllows() throws {
        let cluster = try DqliteCluster()
        defer { cluster.stop() }
        let database = try ClusterDatabase(nodes: cluster.addresses, name: "retry.db")
        defer { database.close() }
        var runs = 0
        let leaderLost = ClusterError(.leadershipLost(address: "x"))
        let value = try database.retrying(.init(maximumAttempts: 3, initialDelay: 0.01)) { () throws -> Int in
            runs += 1
            if runs < 3 { throw leaderLost }
            return runs
        }
        #expect(value == 3)
        runs = 0
        let unknown = ClusterError(.outcomeUnknown(address: "x", cause: "y"))
        #expect(throws: unknown) {
            try database.retrying(.init(maximumAttempts: 3, initialDelay: 0.01)) {
                runs += 1
                throw unknown
            }
        }
        #expect(runs == 1)
        runs = 0
        #expect(throws: unknown) {
            try database.retrying(.init(maximumAttempts: 3, initialDelay: 0.01, retriesUnknownOutcome: true)) {
                runs += 1
                throw unknown
            }
        }
        #expect(runs == 3)
        // SQLite's own errors are the statement's, not the cluster's: never run again.
        runs = 0
        #expect(throws: ClusterError.self) {
            try database.retrying(.init(maximumAttempts: 3, initialDelay: 0.01)) {
                runs += 1
                try database.execute("SELEKT 1")
            }
        }
        #expect(runs == 1)
    }

    @Test func unreachableNodesAreReportedByAddress() throws {
        // A port nothing listens on: connecting is refused at once.
        let error = try #require(throws: ClusterError.self) {
            try ClusterDatabase(
                nodes: ["127.0.0.1:1"], name: "none.db",
                timeouts: .init(connect: 0.2, request: 1, leaderSearch: 0.3))
        }
        guard case .nodeUnreachable(let address, _) = error.reason else {
            Issue.record("expected nodeUnreachable, got \(error)")
            return
        }
        #expect(address == "127.0.0.1:1")
    }
}
