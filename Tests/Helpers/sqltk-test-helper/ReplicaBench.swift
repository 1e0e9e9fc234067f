// The measurement of scripts/litestream-replica-bench: how far a replica read through Litestream's VFS lags the
// primary, and how fast it reads beside a local file.

import Foundation
import SQLiteToolkit

/// `replica-bench PRIMARY VFS REPLICA_URL SECONDS RATE POLL_MS`: one thread commits numbered transactions on the
/// primary (a `DatabasePool` on PRIMARY, made by `replication-create` and replicated by Litestream) at RATE a
/// second for SECONDS, noting when each commit returned; another reads `max(n)` from a `LitestreamReplica` (VFS
/// poll interval POLL_MS) every millisecond, and for each number that becomes visible notes the staleness: the
/// time from its commit to the first read that saw it. Prints `staleness COUNT MEDIAN P99 MAX` in milliseconds. Then
/// point reads of random rows for two seconds each, on the replica and on a read-only connection to the primary's
/// own file: `reads replica PER_SECOND` and `reads local PER_SECOND`.
func replicaBench(_ arguments: [String]) throws {
    guard arguments.count == 6, let seconds = Double(arguments[3]), let rate = Double(arguments[4]), rate > 0,
        let poll = Double(arguments[5])
    else {
        throw UsageError(description: "replica-bench PRIMARY VFS REPLICA_URL SECONDS RATE POLL_MS")
    }
    try LitestreamReplica.loadVFS(atPath: arguments[1])
    let pool = try DatabasePool(path: arguments[0])
    defer { pool.close() }
    let replica = try LitestreamReplica(replicaURL: arguments[2], pollInterval: poll / 1000)
    defer { replica.close() }
    let start = try pool.read { db in try db.queryRequiredValue("SELECT coalesce(max(n), 0) FROM txn", as: Int.self) }

    let commits = Commits()
    let writer = Thread {
        let interval = 1 / rate
        let began = Date()
        var n = start
        while Date().timeIntervalSince(began) < seconds {
            n += 1
            do {
                try pool.write { db in
                    try db.execute("INSERT INTO txn (n, thread, payload) VALUES (?, 0, randomblob(100))", n)
                }
            } catch {
                FileHandle.standardError.write(Data("replica-bench: the writer failed: \(error)\n".utf8))
                exit(1)
            }
            commits.record(n, at: Date())
            let next = began.addingTimeInterval(Double(n - start) * interval)
            let wait = next.timeIntervalSinceNow
            if wait > 0 { usleep(UInt32(wait * 1e6)) }
        }
        commits.finish()
    }
    writer.start()

    var seen = start
    var staleness: [Double] = []
    while !commits.isFinished || seen < commits.last {
        let high = try replica.read { db in
            try db.queryRequiredValue("SELECT coalesce(max(n), 0) FROM txn", as: Int.self)
        }
        let now = Date()
        if high > seen {
            for n in (seen + 1)...high {
                if let committed = commits.time(of: n) { staleness.append(now.timeIntervalSince(committed) * 1000) }
            }
            seen = high
        }
        if commits.isFinished, let finished = commits.finishedAt, now.timeIntervalSince(finished) > 30 { break }
        usleep(1_000)
    }
    staleness.sort()
    func percentile(_ p: Double) -> Double {
        staleness.isEmpty ? 0 : staleness[min(staleness.count - 1, Int((Double(staleness.count) * p).rounded(.down)))]
    }
    print(
        String(
            format: "staleness %d %.0f %.0f %.0f", staleness.count, percentile(0.5), percentile(0.99),
            staleness.last ?? 0))

    var local = Database.Configuration()
    local.isReadOnly = true
    let copy = try DatabaseQueue(path: arguments[0], configuration: local)
    defer { copy.close() }
    for (name, reader) in [("replica", replica as any DatabaseReader), ("local", copy as any DatabaseReader)] {
        var reads = 0
        let began = Date()
        while Date().timeIntervalSince(began) < 2 {
            let n = Int.random(in: 1...max(1, seen))
            _ = try reader.read { db in
                try db.queryValue("SELECT length(payload) FROM txn WHERE n = ?", n, as: Int.self)
            }
            reads += 1
        }
        print(String(format: "reads %@ %.0f", name, Double(reads) / Date().timeIntervalSince(began)))
    }
}

/// The commit times of the writer, shared with the reader.
private final class Commits: @unchecked Sendable {
    // @unchecked Sendable: every property is read and written under `lock`.
    private let lock = NSLock()
    private var times: [Int: Date] = [:]
    private var highest = 0
    private var finished: Date?

    func record(_ n: Int, at time: Date) {
        lock.withLock {
            times[n] = time
            highest = n
        }
    }

    func finish() { lock.withLock { finished = Date() } }
    func time(of n: Int) -> Date? { lock.withLock { times[n] } }
    var last: Int { lock.withLock { highest } }
    var isFinished: Bool { lock.withLock { finished != nil } }
    var finishedAt: Date? { lock.withLock { finished } }
}
