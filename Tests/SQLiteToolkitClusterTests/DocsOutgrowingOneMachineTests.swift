import SQLiteToolkit
import SQLiteToolkitCluster
import Testing

// The samples of OutgrowingOneMachine.md (SQLiteToolkitCluster.docc), line for line: `DocsSampleTests` checks that
// every line of the article's samples appears here.

func recordScore(on addresses: [String]) throws -> [(String, Int)] {
    let cluster = try ClusterDatabase(nodes: addresses, name: "game.db")
    defer { cluster.close() }
    try cluster.execute("CREATE TABLE player (name TEXT NOT NULL, score INTEGER NOT NULL)")
    try cluster.write { db in
        try db.execute("INSERT INTO player (name, score) VALUES (?, ?)", "Arthur", 42)
    }
    return try cluster.read { db in
        try db.fetchAll("SELECT name, score FROM player").map { row in
            (try row.value(named: "name", as: String.self), try row.value(named: "score", as: Int.self))
        }
    }
}

func recordSignup(_ requestID: String, on cluster: ClusterDatabase) throws {
    try cluster.retrying(.init(retriesUnknownOutcome: true)) {
        try cluster.write { db in
            try db.execute("INSERT OR IGNORE INTO event (id, kind) VALUES (?, ?)", requestID, "signup")
        }
    }
}

@Suite(
    "The samples of Outgrowing one machine",
    .serialized,
    .enabled(if: dqliteInstalled, "needs dqlite-demo from Debian's go-dqlite (scripts/install-test-peers)")
)
struct DocsOutgrowingOneMachineTests {
    @Test func samplesRunAgainstThreeNodes() throws {
        let cluster = try DqliteCluster()
        defer { cluster.stop() }
        let scores = try recordScore(on: cluster.addresses)
        #expect(scores.map(\.0) == ["Arthur"])
        #expect(scores.map(\.1) == [42])

        let database = try ClusterDatabase(nodes: cluster.addresses, name: "events.db")
        defer { database.close() }
        try database.execute("CREATE TABLE event (id TEXT PRIMARY KEY, kind TEXT NOT NULL)")
        try recordSignup("request-1", on: database)
        // A second run, as after an unknown outcome, inserts nothing.
        try recordSignup("request-1", on: database)
        let count = try database.fetchAll("SELECT count(*) FROM event")[0].value(at: 0, as: Int.self)
        #expect(count == 1)
    }
}
