import Foundation
import SQLiteToolkit
import SQLiteToolkitCluster
import Testing

/// Short timeouts for fake nodes on loopback: a fake answers at once or never.
private let quick = ClusterDatabase.Timeouts(connect: 2, request: 5, leaderSearch: 5)

/// The reason of the `ClusterError` that `body` throws, or nil when it throws nothing or another error.
private func reason<T>(_ body: () throws -> T) -> ClusterError.Reason? {
    do {
        _ = try body()
        return nil
    } catch let error as ClusterError {
        return error.reason
    } catch {
        return nil
    }
}

/// Runs `body` on a thread of its own and waits up to `seconds` for it: false when it did not return in time
/// (it is then left running).
private func finishes(within seconds: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        body()
        done.signal()
    }
    return done.wait(timeout: .now() + seconds) == .success
}

@Suite("Review: the cluster client against malformed, slow and dropped responses")
struct ClusterReviewTests {
    /// Responses a node could send to a query that break the protocol: each gives a typed error.
    static let malformedQueryResponses: [(String, [UInt8])] = [
        (
            "a row whose header claims more columns than it carries",
            Fake.message(
                7,
                Fake.word(3) + Fake.text("a") + Fake.text("b") + Fake.text("c") + [1, 0, 0, 0, 0, 0, 0, 0]
                    + Fake.word(7) + Fake.end)
        ),
        ("a column count larger than the response", Fake.message(7, Fake.word(UInt64.max) + Fake.end)),
        ("a column name without its NUL", Fake.message(7, Fake.word(1) + Array("abcdefgh".utf8))),
        (
            "a text value without its NUL",
            Fake.message(7, Fake.word(1) + Fake.text("v") + [3, 0, 0, 0, 0, 0, 0, 0] + Array("abcdefgh".utf8))
        ),
        (
            "a value of an unknown type",
            Fake.message(7, Fake.word(1) + Fake.text("v") + [15, 0, 0, 0, 0, 0, 0, 0] + Fake.word(0) + Fake.end)
        ),
        (
            "a blob longer than its response",
            Fake.message(
                7, Fake.word(1) + Fake.text("v") + [4, 0, 0, 0, 0, 0, 0, 0] + Fake.word(UInt64.max) + Fake.end)
        ),
        ("rows without an end marker", Fake.message(7, Fake.word(1) + Fake.text("v"))),
        ("a response of the wrong type", Fake.result),
        ("a response of an unknown type", Fake.message(200, Fake.word(0))),
        ("an empty failure response", Fake.message(0, [])),
        ("EOF in the middle of a body", Array(Fake.textRows(["abc"]).prefix(20))),
        ("EOF in the middle of a header", [3, 0, 0]),
    ]

    @Test("A malformed or truncated response is a typed error", arguments: 0..<malformedQueryResponses.count)
    func malformedResponse(_ index: Int) throws {
        let (_, bytes) = Self.malformedQueryResponses[index]
        let node = try FakeNode.leader { _, type in type == 9 ? bytes : Fake.result }
        defer { node.stop() }
        let cluster = try ClusterDatabase(nodes: [node.address], name: "x", timeouts: quick)
        defer { cluster.close() }
        let thrown = reason { try cluster.fetchAll("SELECT v FROM t") }
        #expect(thrown != nil, "\(Self.malformedQueryResponses[index].0)")
    }

    @Test(
        "A header announcing 32 GiB is a typed error, not an allocation of 32 GiB")
    func hugeSizeHeader() throws {
        let node = try FakeNode.leader { _, _ in Fake.message(7, Fake.word(1), words: UInt32.max) }
        defer { node.stop() }
        let cluster = try ClusterDatabase(nodes: [node.address], name: "x", timeouts: quick)
        defer { cluster.close() }
        #expect(reason { try cluster.fetchAll("SELECT 1") } != nil)
    }

    @Test("After a protocol violation the connection is dropped, not read on by the next access")
    func violationDropsConnection() throws {
        let queries = SQLLog()
        let node = try FakeNode.leader(log: queries) { sql, _ in
            // The first query gets a broken part followed by a second part; a real node would also stream on.
            if sql.hasPrefix("PRAGMA") { return Fake.result }
            if sql == "SELECT 1" {
                return Fake.message(
                    7, Fake.word(1) + Fake.text("v") + [15, 0, 0, 0, 0, 0, 0, 0] + Fake.word(0) + Fake.part)
                    + Fake.textRows(["stale"])
            }
            return Fake.textRows(["fresh"])
        }
        defer { node.stop() }
        let cluster = try ClusterDatabase(nodes: [node.address], name: "x", timeouts: quick)
        defer { cluster.close() }
        #expect(reason { try cluster.fetchAll("SELECT 1") } != nil)
        let rows = try cluster.fetchAll("SELECT 2")
        #expect(try rows.first?.value(at: 0, as: String.self) == "fresh")
    }

    @Test("A node that trickles its answer past the request timeout times out")
    func trickledResponse() throws {
        let slow = AddressBox()
        let trickler = try FakeNode { peer, _ in
            guard peer.handshake(leader: slow.value) else { return }
            guard peer.request() != nil else { return }
            // 48 bytes, one every 0.25 s: the whole answer takes 12 s, the request timeout is 1 s.
            for byte in Fake.textRows(["late"]) {
                usleep(250_000)
                peer.send([byte])
            }
        }
        slow.value = trickler.address
        defer { trickler.stop() }
        let cluster = try ClusterDatabase(
            nodes: [trickler.address], name: "x", timeouts: .init(connect: 2, request: 1, leaderSearch: 5))
        defer { cluster.close() }
        guard case .connectionLost = reason({ try cluster.fetchAll("SELECT 1") }) else {
            Issue.record("a response trickled over 12 s was read with a request timeout of 1 s")
            return
        }
    }

    @Test(
        "A timeout the client cannot honour is an error naming it",
        arguments: [Double.infinity, .nan, -1, 1e300])
    func unusableTimeout(_ seconds: Double) throws {
        let node = try FakeNode.leader { _, _ in Fake.result }
        defer { node.stop() }
        for timeouts in [
            ClusterDatabase.Timeouts(connect: seconds), .init(request: seconds), .init(leaderSearch: seconds),
        ] {
            let thrown = reason { try ClusterDatabase(nodes: [node.address], name: "x", timeouts: timeouts) }
            guard case .unsupportedArgument = thrown else {
                Issue.record("\(timeouts) gave \(String(describing: thrown))")
                continue
            }
        }
    }

    @Test(
        "A retry delay the client cannot honour is an error naming it",
        arguments: [Double.infinity, .nan, 1e300])
    func unusableRetryDelay(_ seconds: Double) throws {
        let node = try FakeNode.leader { _, _ in Fake.result }
        defer { node.stop() }
        let cluster = try ClusterDatabase(nodes: [node.address], name: "x", timeouts: quick)
        defer { cluster.close() }
        var runs = 0
        let thrown = reason {
            try cluster.retrying(.init(maximumAttempts: 2, initialDelay: seconds, maximumDelay: seconds)) {
                runs += 1
                throw ClusterError(.noLeader(addresses: []))
            }
        }
        guard case .unsupportedArgument = thrown else {
            Issue.record("gave \(String(describing: thrown))")
            return
        }
        #expect(runs == 0)
    }

    @Test("An access inside an access of the same database fails fast instead of deadlocking")
    func reentrantAccess() throws {
        let node = try FakeNode.leader { _, type in type == 9 ? Fake.textRows(["a"]) : Fake.result }
        defer { node.stop() }
        let cluster = try ClusterDatabase(nodes: [node.address], name: "x", timeouts: quick)
        let outcome = SQLLog()
        let returned = finishes(within: 20) {
            let thrown = reason { try cluster.write { _ in try cluster.fetchAll("SELECT 1") } }
            outcome.append("\(String(describing: thrown))")
            // close() and leaderAddress inside an access deadlocked too.
            let inner = reason {
                try cluster.write { db in
                    _ = cluster.leaderAddress
                    cluster.close()
                    try db.execute("INSERT 1")
                }
            }
            outcome.append("\(String(describing: inner))")
        }
        #expect(returned)
        #expect(outcome.all.first == "\(String(describing: Optional(ClusterError.Reason.reentrantAccess)))")
        #expect(outcome.all.count == 2 && outcome.all.last != "nil")
        #expect(reason { try cluster.fetchAll("SELECT 1") } == .closed)
    }

    @Test("A read makes the connection query_only once for reads in a row, and writable again before a write")
    func readIsQueryOnly() throws {
        let log = SQLLog()
        let node = try FakeNode.leader(log: log) { _, type in type == 9 ? Fake.textRows([]) : Fake.result }
        defer { node.stop() }
        let cluster = try ClusterDatabase(nodes: [node.address], name: "x", timeouts: quick)
        defer { cluster.close() }
        try cluster.read { db in _ = try db.fetchAll("SELECT 1") }
        _ = try cluster.fetchAll("SELECT 2")
        try cluster.write { db in try db.execute("INSERT 1") }
        try cluster.execute("INSERT 2")
        try cluster.read { db in _ = try db.fetchAll("SELECT 3") }
        #expect(
            log.all == [
                "PRAGMA query_only = 1", "BEGIN", "SELECT 1", "COMMIT", "SELECT 2",
                "PRAGMA query_only = 0", "BEGIN", "INSERT 1", "COMMIT", "INSERT 2",
                "PRAGMA query_only = 1", "BEGIN", "SELECT 3", "COMMIT",
            ])
    }

    @Test("A database name with a NUL is refused, not cut at the NUL")
    func databaseNameWithNul() throws {
        let node = try FakeNode.leader { _, _ in Fake.result }
        defer { node.stop() }
        let thrown = reason { try ClusterDatabase(nodes: [node.address], name: "app\u{0}.db", timeouts: quick) }
        guard case .unsupportedArgument = thrown else {
            Issue.record("gave \(String(describing: thrown))")
            return
        }
    }

    @Test("A COMMIT the body sends itself is refused before it is sent, and retrying does not run the body again")
    func commitInsideWrite() throws {
        let log = SQLLog()
        let node = try FakeNode.leader(log: log) { sql, _ in sql == "COMMIT" ? nil : Fake.result }
        defer { node.stop() }
        let cluster = try ClusterDatabase(nodes: [node.address], name: "x", timeouts: quick)
        defer { cluster.close() }
        let thrown = reason {
            try cluster.retrying(.init(maximumAttempts: 3, initialDelay: 0.01)) {
                try cluster.write { db in
                    try db.execute("INSERT 1")
                    try db.execute("COMMIT")
                }
            }
        }
        #expect(thrown == .transactionControl(keyword: "COMMIT"))
        #expect(log.all == ["BEGIN", "INSERT 1", "ROLLBACK"])
    }

    /// Transaction control in every spelling a node would run, alone or after other statements in one text.
    static let transactionControlTexts: [(String, String)] = [
        ("BEGIN", "BEGIN"), ("begin immediate", "BEGIN"), ("  \n\tCommit", "COMMIT"), ("END TRANSACTION", "END"),
        ("-- why\nROLLBACK", "ROLLBACK"), ("/* a */ /* b */savepoint s", "SAVEPOINT"), ("Release s", "RELEASE"),
        ("ROLLBACK TO s", "ROLLBACK"), ("SELECT 1; COMMIT", "COMMIT"), ("SELECT ';'; /* ; */ begin", "BEGIN"),
        (
            "CREATE TRIGGER g AFTER INSERT ON t BEGIN SELECT CASE WHEN 1 THEN 2 END; END; SAVEPOINT x",
            "SAVEPOINT"
        ),
    ]

    @Test(
        "Transaction control in any body is a typed error naming the keyword, and nothing is sent",
        arguments: 0..<transactionControlTexts.count)
    func transactionControlRefused(_ index: Int) throws {
        let (sql, keyword) = Self.transactionControlTexts[index]
        let log = SQLLog()
        let node = try FakeNode.leader(log: log) { _, type in type == 9 ? Fake.textRows([]) : Fake.result }
        defer { node.stop() }
        let cluster = try ClusterDatabase(nodes: [node.address], name: "x", timeouts: quick)
        defer { cluster.close() }
        let expected = ClusterError.Reason.transactionControl(keyword: keyword)
        #expect(reason { try cluster.execute(sql) } == expected)
        #expect(reason { try cluster.fetchAll(sql) } == expected)
        #expect(reason { try cluster.writeWithoutTransaction { db in try db.execute(sql) } } == expected)
        #expect(reason { try cluster.read { db in try db.fetchAll(sql) } } == expected)
        #expect(reason { try cluster.write { db in try db.fetchOne(sql) } } == expected)
        // Only the client's own statements went out: the pragma of reads, and a transaction it began and rolled back.
        #expect(log.all.allSatisfy { ["BEGIN", "ROLLBACK"].contains($0) || $0.hasPrefix("PRAGMA query_only = ") })
        #expect(!ClusterError(expected).isRetryable)
    }

    @Test("Statements that only contain the keywords, and a trigger's BEGIN and END, are sent")
    func transactionKeywordsElsewhereAllowed() throws {
        let log = SQLLog()
        let node = try FakeNode.leader(log: log) { _, _ in Fake.result }
        defer { node.stop() }
        let cluster = try ClusterDatabase(nodes: [node.address], name: "x", timeouts: quick)
        defer { cluster.close() }
        let texts = [
            "INSERT INTO t (\"begin\", [commit]) VALUES ('END', 'ROLLBACK; BEGIN')",
            "CREATE TABLE savepoint_log (release TEXT)",
            "CREATE TEMP TRIGGER g AFTER INSERT ON t BEGIN UPDATE t SET n = CASE WHEN n > 1 THEN 1 END; END",
            "CREATE TABLE a (n); -- COMMIT\nCREATE TABLE b (n) /* ; ROLLBACK */",
        ]
        for sql in texts { try cluster.execute(sql) }
        #expect(log.all == texts)
    }
}
