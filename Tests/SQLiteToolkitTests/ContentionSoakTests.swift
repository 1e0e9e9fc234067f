import Foundation
import SQLiteToolkit
import Testing

/// Several processes, each with several threads sharing one ``DatabaseQueue`` or ``DatabasePool``, on one file for
/// a bounded time: reads that check their snapshot, writes, writes with nested savepoints (one released, one rolled
/// back), savepoints as the outermost scope and writes rolled back on purpose (`sqltk-test-helper soak`). At the
/// end the counter and the rows in the file match the sum of what every worker says it committed, exactly; no busy
/// error reached a caller under the default busy timeout; and every worker finished before the watchdog.
///
/// Four modes, run one after another: WAL with queue and pool workers side by side, plain and encrypted (raw key,
/// no rekey), and the rollback journal with queue workers, plain and encrypted. `SQLTK_SOAK_SECONDS` is the time of
/// the whole soak, shared between the modes (default 5; `scripts/reliability-long` runs 60);
/// `SQLTK_SOAK_PROCESSES` and `SQLTK_SOAK_THREADS` set the workers (default 3 processes × 2 threads).
@Suite("Contention soak: processes × threads through queues and pools", .serialized, .timeLimit(.minutes(10)))
struct ContentionSoakTests {
    static let totalSeconds = Double(environmentInteger("SQLTK_SOAK_SECONDS") ?? 5)
    static let processes = max(1, environmentInteger("SQLTK_SOAK_PROCESSES") ?? 3)
    static let threads = max(1, environmentInteger("SQLTK_SOAK_THREADS") ?? 2)
    /// How long after its end the test waits for a worker before it names it, kills every child and fails (the
    /// worker's own watchdog names its stuck thread after 60 s).
    static let watchdogGrace = 90.0

    struct Mode: Sendable, CustomTestStringConvertible {
        var journalMode: String
        var isEncrypted: Bool
        var testDescription: String { journalMode + (isEncrypted ? ", encrypted" : ", plain") }
        /// WAL mixes queue and pool workers; the rollback journal has queue workers only (a pool needs WAL).
        func access(ofWorker worker: Int) -> String {
            journalMode == "wal" && worker % 2 == 1 ? "pool" : "queue"
        }
    }

    static let modes = [
        Mode(journalMode: "wal", isEncrypted: false), Mode(journalMode: "wal", isEncrypted: true),
        Mode(journalMode: "delete", isEncrypted: false), Mode(journalMode: "delete", isEncrypted: true),
    ]

    /// The raw key of the encrypted modes.
    static var keyHex: String { String(repeating: "c0ffee00", count: 8) }

    /// One worker's closing line: `ok worker W commits C savepoints S rollbacks R reads D busy B`.
    struct Report {
        var commits = 0
        var savepoints = 0
        var rollbacks = 0
        var reads = 0
        var busy = 0

        init?(_ line: String) {
            let words = line.split(separator: " ").map(String.init)
            guard words.count == 13, words[0] == "ok" else { return nil }
            var fields: [String: Int] = [:]
            for index in stride(from: 1, to: 13, by: 2) { fields[words[index]] = Int(words[index + 1]) }
            guard let commits = fields["commits"], let savepoints = fields["savepoints"],
                let rollbacks = fields["rollbacks"], let reads = fields["reads"], let busy = fields["busy"]
            else { return nil }
            (self.commits, self.savepoints, self.rollbacks, self.reads, self.busy) =
                (commits, savepoints, rollbacks, reads, busy)
        }
    }

    @Test(
        "the counters match every worker's commits, no busy error reaches a caller, every worker finishes",
        arguments: modes)
    func soak(mode: Mode) async throws {
        let seconds = Self.totalSeconds / Double(Self.modes.count)
        let key = mode.isEncrypted ? [Self.keyHex] : []
        try await TemporaryFile.withDatabasePathAsync { path in
            let create = try TestHelper.Child(["create-soak", path, mode.journalMode] + key)
            let created = try #require(try await create.wait(seconds: 60))
            try #require(created.status == 0, "create-soak: \(created.output)")

            let workers = try (0..<Self.processes).map { worker in
                try TestHelper.Child(
                    [
                        "soak", path, mode.access(ofWorker: worker), "\(worker)", "\(Self.threads)",
                        "\(seconds)",
                    ] + key)
            }
            // Whatever happens below, no worker outlives the test.
            defer { for worker in workers { worker.stop() } }
            var reports: [Int: Report] = [:]
            for (index, worker) in workers.enumerated() {
                let name = "worker \(index) (\(mode.access(ofWorker: index)))"
                guard let result = try await worker.wait(seconds: seconds + Self.watchdogGrace) else {
                    Issue.record("\(name) did not finish within \(Self.watchdogGrace) s of the end: killed")
                    return
                }
                let line = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
                guard result.status == 0, let report = Report(line) else {
                    Issue.record("\(name) failed (status \(result.status)): \(line)")
                    continue
                }
                #expect(report.busy == 0, "\(name): \(report.busy) busy errors reached the caller")
                reports[index] = report
            }
            try #require(reports.count == Self.processes)

            var configuration = Database.Configuration()
            if mode.isEncrypted { configuration.key = .raw(hex: Self.keyHex) }
            let db = try Database(path: path, configuration: configuration)
            defer { db.close() }
            let commits = reports.values.reduce(0) { $0 + $1.commits }
            #expect(try db.queryValue("PRAGMA integrity_check", as: String.self) == "ok")
            #expect(try db.queryValue("SELECT value FROM counter WHERE id = 1", as: Int.self) == commits)
            #expect(try db.queryValue("SELECT count(*) FROM log", as: Int.self) == commits)
            for (worker, report) in reports {
                #expect(
                    try db.queryValue("SELECT count(*) FROM log WHERE worker = ?", worker, as: Int.self)
                        == report.commits, "worker \(worker)")
            }
            // Each thread numbered its rows 1, 2, 3...: every number once, none missing, none rolled back (-1).
            let badThreads = try db.queryValue(
                """
                SELECT count(*) FROM (SELECT count(*) AS c, count(DISTINCT n) AS d, min(n) AS lo, max(n) AS hi
                FROM log GROUP BY worker, thread) WHERE c != d OR lo != 1 OR hi != c
                """, as: Int.self)
            #expect(badThreads == 0)
            if mode.isEncrypted {
                let header = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(16)
                #expect(header != Data("SQLite format 3\u{0}".utf8))
            }
            if environmentInteger("SQLTK_RELIABILITY_REPORT") != nil {
                let total = { (field: KeyPath<Report, Int>) in reports.values.reduce(0) { $0 + $1[keyPath: field] } }
                print(
                    "contention soak [\(mode.testDescription)]: \(Self.processes) processes × \(Self.threads) "
                        + "threads for \(seconds) s: \(commits) commits (\(total(\.savepoints)) savepoints released, "
                        + "\(total(\.rollbacks)) rollbacks), \(total(\.reads)) checked reads, "
                        + "\(total(\.busy)) busy errors; counters match")
            }
        }
    }
}
