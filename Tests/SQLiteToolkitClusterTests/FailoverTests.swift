import Dispatch
import Foundation
import SQLiteToolkit
import SQLiteToolkitCluster
import Testing

/// What the writers saw, shared between their threads.
private final class Ledger: @unchecked Sendable {
    // @unchecked Sendable: every property is read and written with `lock` held.
    private let lock = NSLock()
    private var acknowledged: [Int: [Int]] = [:]
    private var unknown: [Int: [Int]] = [:]
    private var refused: [Int: [Int]] = [:]
    private var acknowledgedAt: [Double] = []
    private var otherErrors: [String] = []
    private var stopped = false

    func record(client: Int, seq: Int, outcome: Result<Void, any Error>, at time: Double) {
        lock.withLock {
            switch outcome {
            case .success:
                acknowledged[client, default: []].append(seq)
                acknowledgedAt.append(time)
            case .failure(let error as ClusterError):
                if case .outcomeUnknown = error.reason {
                    unknown[client, default: []].append(seq)
                } else if error.isRetryable {
                    refused[client, default: []].append(seq)
                } else {
                    otherErrors.append("\(error)")
                }
            case .failure(let error):
                otherErrors.append("\(error)")
            }
        }
    }

    func stop() { lock.withLock { stopped = true } }
    var isStopped: Bool { lock.withLock { stopped } }

    /// The first acknowledgement after `time`.
    func firstAcknowledgement(after time: Double) -> Double? {
        lock.withLock { acknowledgedAt.filter { $0 > time }.min() }
    }

    var snapshot: (acknowledged: [Int: [Int]], unknown: [Int: [Int]], refused: [Int: [Int]], errors: [String]) {
        lock.withLock { (acknowledged, unknown, refused, otherErrors) }
    }
}

private func now() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}

/// How many times the failover test kills the leader: 2 in the suite; `SQLTK_DQLITE_KILLS=10` for the measurement
/// (at least 1).
private let leaderKills = max(1, Int(ProcessInfo.processInfo.environment["SQLTK_DQLITE_KILLS"] ?? "") ?? 2)

@Suite(
    "Failover of a dqlite cluster",
    .serialized,
    .enabled(if: dqliteInstalled, "needs dqlite-demo from Debian's go-dqlite (scripts/install-test-peers)")
)
struct FailoverTests {
    @Test(.timeLimit(.minutes(5)))
    func acknowledgedTransactionsSurviveLeaderKills() throws {
        let cluster = try DqliteCluster()
        defer { cluster.stop() }
        let timeouts = ClusterDatabase.Timeouts(connect: 0.5, request: 5, leaderSearch: 20)
        let setup = try ClusterDatabase(nodes: cluster.addresses, name: "ledger.db", timeouts: timeouts)
        // No unique constraint: a transaction applied twice would show as two rows.
        try setup.execute("CREATE TABLE ledger (client INTEGER NOT NULL, seq INTEGER NOT NULL)")
        setup.close()

        let ledger = Ledger()
        let addresses = cluster.addresses
        let writers = DispatchGroup()
        for client in 0..<4 {
            DispatchQueue.global().async(group: writers) {
                var database: ClusterDatabase?
                var seq = 0
                while !ledger.isStopped {
                    do {
                        if database == nil {
                            database = try ClusterDatabase(nodes: addresses, name: "ledger.db", timeouts: timeouts)
                        }
                    } catch {
                        usleep(50_000)
                        continue
                    }
                    seq += 1
                    let outcome = Result<Void, any Error> {
                        try database?.write { db in try db.execute("INSERT INTO ledger VALUES (?, ?)", client, seq) }
                    }
                    ledger.record(client: client, seq: seq, outcome: outcome, at: now())
                }
                database?.close()
            }
        }

        var failovers: [Double] = []
        var lastKilled: Int?
        let probeTimeouts = ClusterDatabase.Timeouts(connect: 0.5, request: 5, leaderSearch: 20)
        for kill in 0..<leaderKills {
            usleep(700_000)
            if let lastKilled {
                // The node killed before comes back first, so a majority remains after this kill.
                try cluster.restart(lastKilled)
            }
            let probe = try ClusterDatabase(nodes: cluster.addresses, name: "ledger.db", timeouts: probeTimeouts)
            let leader = try #require(probe.leaderAddress)
            probe.close()
            let index = try #require(cluster.addresses.firstIndex(of: leader))
            try cluster.kill(index)
            // The script returns once the node is dead: what is acknowledged from now on, another leader committed.
            let killedAt = now()
            lastKilled = index
            var recovered: Double?
            while recovered == nil, now() - killedAt < 30 {
                usleep(20_000)
                recovered = ledger.firstAcknowledgement(after: killedAt)
            }
            let failover = try #require(recovered, "no commit acknowledged within 30 s of kill \(kill + 1)") - killedAt
            failovers.append(failover)
        }
        usleep(500_000)
        ledger.stop()
        writers.wait()

        let seen = ledger.snapshot
        #expect(seen.errors.isEmpty, "errors other than the cluster's retryable ones: \(seen.errors.prefix(5))")
        let reader = try ClusterDatabase(nodes: cluster.addresses, name: "ledger.db", timeouts: timeouts)
        defer { reader.close() }
        var stored: [Int: [Int]] = [:]
        for row in try reader.fetchAll("SELECT client, seq FROM ledger") {
            stored[try row.value(at: 0, as: Int.self), default: []].append(try row.value(at: 1, as: Int.self))
        }
        var acknowledgedCount = 0
        for client in 0..<4 {
            let rows = stored[client] ?? []
            let counts = Dictionary(rows.map { ($0, 1) }, uniquingKeysWith: +)
            let acknowledged = seen.acknowledged[client] ?? []
            acknowledgedCount += acknowledged.count
            let lost = acknowledged.filter { counts[$0] != 1 }
            #expect(lost.isEmpty, "client \(client): acknowledged transactions missing or doubled: \(lost.prefix(10))")
            #expect(counts.values.allSatisfy { $0 == 1 }, "client \(client): a transaction is stored twice")
            // A transaction refused as not committed (leader lost before its COMMIT was sent) must not be stored.
            let refusedButStored = (seen.refused[client] ?? []).filter { counts[$0] != nil }
            #expect(refusedButStored.isEmpty, "client \(client): refused transactions stored: \(refusedButStored)")
        }
        #expect(acknowledgedCount > 0)
        let unknownCount = seen.unknown.values.reduce(0) { $0 + $1.count }
        let sorted = failovers.sorted()
        // The middle value, or the mean of the two middle ones for an even count.
        let median = (sorted[(sorted.count - 1) / 2] + sorted[sorted.count / 2]) / 2
        print(
            "dqlite failover: \(leaderKills) leader kills, \(acknowledgedCount) transactions acknowledged, "
                + "\(unknownCount) of unknown outcome; failover (kill to next acknowledged commit) "
                + "median \(median) s, worst \(sorted.last ?? 0) s: \(failovers)")
    }
}
