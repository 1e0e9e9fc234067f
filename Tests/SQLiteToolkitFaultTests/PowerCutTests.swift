import Foundation
import SQLiteToolkit
import Testing

/// Power cuts at writes and syncs spread over a run, for each journal mode and `synchronous` level: what survives.
///
/// Each run opens a fresh database through the fault VFS with unsynced writes kept in memory, commits numbered
/// transactions, and cuts the power at one write or sync, dropping the unsynced writes (all, or a random part in
/// whole sectors). The database is then reopened through the default VFS and checked: integrity, and which
/// acknowledged transactions it kept. `SQLTK_POWER_CUTS` sets the runs per mode (the long run in
/// scripts/reliability-long uses 200).
@Suite("Power cuts")
struct PowerCutTests {
    static let runsPerMode = ProcessInfo.processInfo.environment["SQLTK_POWER_CUTS"].flatMap(Int.init) ?? 40
    static let transactions = 12

    struct Mode: CustomStringConvertible, Sendable {
        var journalMode: String
        var synchronous: String
        var description: String { "journal_mode=\(journalMode), synchronous=\(synchronous)" }
    }

    static let modes: [Mode] = ["delete", "truncate", "persist", "wal"].flatMap { journal in
        ["off", "normal", "full", "extra"].map { Mode(journalMode: journal, synchronous: $0) }
    }

    /// What one mode's runs kept.
    struct Tally {
        var runs = 0
        var acknowledged = 0
        var kept = 0
        var runsLosingAcknowledged = 0
        var mostLost = 0
        var lossNotAtTheEnd = 0
        var corrupt = 0
        var unacknowledgedKept = 0
    }

    /// Commits `transactions` transactions through the faulty VFS, cutting the power at the `cutAt`th write or
    /// sync; returns the acknowledged transaction numbers.
    static func run(_ mode: Mode, path: String, cutAt: Int?, seed: UInt64, faults: FaultScenario) -> [Int] {
        var acknowledged: [Int] = []
        faults.keepUnsyncedWritesInMemory()
        if let cutAt { faults.cutPower(atWriteOrSync: cutAt, seed: seed) }
        do {
            let db = try Database(path: path, configuration: .faulty())
            defer { db.close() }
            try db.execute("PRAGMA journal_mode = \(mode.journalMode)")
            try db.execute("PRAGMA synchronous = \(mode.synchronous)")
            for number in 1...transactions {
                try db.transaction { db in
                    try db.execute("INSERT INTO t(n, pad) VALUES (?, randomblob(700))", number)
                    try db.execute("UPDATE counter SET value = value + 1")
                }
                acknowledged.append(number)
            }
        } catch {
            // The power cut: every call fails from then on.
        }
        return acknowledged
    }

    static func measure(_ mode: Mode) throws -> Tally {
        var tally = Tally()
        // Cut points spread over the run by a stride prime to most run lengths; the same in every process.
        let offset = mode.description.utf8.reduce(0) { ($0 &* 31 &+ Int($1)) & 0xFFFF }
        // The writes and syncs of a whole run without a cut, to pick cut points among.
        let total = try FaultTestFile.withDatabasePath { path -> Int in
            try makeDatabase(path)
            let faults = try FaultScenario(pathPrefix: path)
            _ = run(mode, path: path, cutAt: nil, seed: 0, faults: faults)
            return faults.writesAndSyncs
        }
        for index in 0..<runsPerMode {
            let cutAt = (offset + index * 7919) % max(total, 1) + 1
            // Even runs drop every unsynced write; odd ones keep a random part (the fault VFS's seeded generator).
            let seed: UInt64 = index % 2 == 0 ? 0 : UInt64(index)
            try FaultTestFile.withDatabasePath { path in
                try makeDatabase(path)
                let faults = try FaultScenario(pathPrefix: path)
                let acknowledged = run(mode, path: path, cutAt: cutAt, seed: seed, faults: faults)
                tally.runs += 1
                tally.acknowledged += acknowledged.count
                guard let db = try? Database(path: path),
                    let report = try? db.integrityCheck(), report.isOK,
                    let kept = try? db.query("SELECT n FROM t ORDER BY n").map({ try $0.value(at: 0) as Int }),
                    let counter = try? db.queryValue("SELECT value FROM counter", as: Int.self), counter == kept.count
                else {
                    tally.corrupt += 1
                    return
                }
                let keptAcknowledged = acknowledged.filter(kept.contains)
                tally.kept += keptAcknowledged.count
                let lost = acknowledged.count - keptAcknowledged.count
                if lost > 0 {
                    tally.runsLosingAcknowledged += 1
                    tally.mostLost = max(tally.mostLost, lost)
                    // Lost commits must be the last ones: what is kept is a prefix of what was committed.
                    if kept != Array(1..<(kept.count + 1)) { tally.lossNotAtTheEnd += 1 }
                }
                if kept.count > acknowledged.count { tally.unacknowledgedKept += 1 }
            }
        }
        return tally
    }

    static func makeDatabase(_ path: String) throws {
        let db = try Database(path: path)
        try db.execute("CREATE TABLE t(n INTEGER PRIMARY KEY, pad BLOB)")
        try db.execute("CREATE TABLE counter(value INTEGER)")
        try db.execute("INSERT INTO counter VALUES (0)")
    }

    @Test(
        "a power cut keeps every acknowledged commit, or all but the last ones, as each mode promises", arguments: modes
    )
    func powerCuts(mode: Mode) throws {
        let tally = try Self.measure(mode)
        print(
            "power cut | \(mode.journalMode) | \(mode.synchronous) | runs \(tally.runs) | acknowledged "
                + "\(tally.acknowledged) | kept \(tally.kept) | runs losing commits \(tally.runsLosingAcknowledged) "
                + "| most lost \(tally.mostLost) | corrupt \(tally.corrupt)")
        #expect(tally.lossNotAtTheEnd == 0)
        switch mode.synchronous {
        case "full", "extra":
            // SQLite's promise: durable and consistent.
            #expect(tally.corrupt == 0)
            #expect(tally.kept == tally.acknowledged)
        case "normal" where mode.journalMode == "wal":
            // Consistent; the last commits may be lost.
            #expect(tally.corrupt == 0)
        default:
            // synchronous=OFF (and NORMAL in rollback modes) promise neither; measured, not asserted.
            break
        }
    }
}
