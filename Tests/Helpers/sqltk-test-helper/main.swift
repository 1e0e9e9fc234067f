// sqltk-test-helper: the child process of the tests that need more than one process (locks and busy handling
// between processes, crash and reliability tests). Not a product: only the package's own tests run it.
//
//   sqltk-test-helper create-counter PATH (wal|delete)
//       creates the table `counter (id, value)` with one row of value 0, in that journal mode
//   sqltk-test-helper increment PATH COUNT [BUSY [SYNCHRONOUS]] [--gate] [--hold-ms MS]
//       COUNT immediate transactions, each adding 1 to the counter; prints "ok COUNT busy B" where B is the number
//       of transactions that failed with SQLITE_BUSY (each failure is retried until COUNT succeed), followed by
//       "failed-attempt-seconds MIN-MAX" (how long the shortest and longest failed attempt took) when B > 0; exits 1
//       on any other error. BUSY: `default` (the configuration's default, when omitted), `sqlite:SECONDS` (SQLite's own
//       sqlite3_busy_timeout), `timeout:SECONDS` (the toolkit's handler), `immediate`, or
//       `jitter:MIN:MAX:SECONDS` (sleeps of MIN to MAX microseconds); SYNCHRONOUS: off, normal or full. `--gate`
//       turns on the write gate (Configuration.usesWriteGate); `--hold-ms MS` sleeps MS milliseconds inside each
//       transaction after its update, holding the write lock as work inside it or a slow fsync would
//   sqltk-test-helper spin SECONDS
//       keeps one CPU busy for SECONDS, to starve the other processes
//   sqltk-test-helper create-soak PATH (wal|delete) [KEYHEX]
//       creates the tables of the contention soak: `counter (id, value)` with one row of value 0, and `log (worker,
//       thread, n)`, in that journal mode, encrypted with the raw key KEYHEX (64 hex digits) when given
//   sqltk-test-helper soak PATH (queue|pool) WORKER THREADS SECONDS [KEYHEX]
//       the contention soak's worker (Soak.swift): THREADS threads share one DatabaseQueue or DatabasePool for
//       SECONDS; prints "ok worker W commits C savepoints S rollbacks R reads D busy B" (C counts every committed
//       row, B the busy errors that reached a caller, which makes the worker fail); exits 1 on any error and 3 when a
//       thread is still running SECONDS + 60 after the start, naming the thread and its operation
//   sqltk-test-helper key-residue PATH (raw|passphrase|unzeroed-copy)
//       uses a random raw key (or passphrase) on an encrypted database at PATH, releases it, then scans its own
//       writable memory for the key's bytes and hex text (KeyResidue.swift); prints "before N", "after N scanned
//       BYTES" and the hits. `unzeroed-copy` also drops a copy of the raw key without zeroing it: the scan's control
//   sqltk-test-helper replication-create PATH [KEYHEX]
//   sqltk-test-helper replication-write PATH THREADS PAUSE [KEYHEX]
//   sqltk-test-helper replication-verify PATH [KEYHEX]
//       the database side of scripts/litestream-check (Replication.swift): create the table of numbered
//       transactions; write them from THREADS threads through one DatabasePool until killed, printing "N SECONDS"
//       after each commit, then sleeping PAUSE microseconds; check a restored file (integrity_check, the numbers it
//       holds, its schema objects)
//   sqltk-test-helper replica-read VFS REPLICA_URL
//       reads a Litestream replica through Litestream's VFS extension (loaded from VFS) without restoring it;
//       prints "rows COUNT MIN MAX" of txn and "txid HEX"
//   sqltk-test-helper replica-load-again VFS REPLICA_URL (load-extension|configuration)
//       loads the VFS and opens the replica, then loads the same library again through the toolkit's own extension
//       loading (Database.loadExtension, or Configuration.extensions of a second replica); prints "again: ok" or
//       "again: refused REASON", then "other: opened" when a plain connection still opens afterwards
//   sqltk-test-helper replica-bench PRIMARY VFS REPLICA_URL SECONDS RATE POLL_MS
//       the measurement of scripts/litestream-replica-bench (ReplicaBench.swift): a replica's staleness behind a
//       primary written at RATE transactions a second, and point reads a second on the replica and on a local file
//   sqltk-test-helper cipher-first-use PATH CIPHER PASSPHRASE THREADS
//       THREADS threads, released together, open the database at PATH encrypted with CIPHER and count its rows: the
//       process's
//       first encrypted reads happen on several threads at once (CipherFirstUse.swift); prints "ok THREADS ROWS"
//   sqltk-test-helper commit-rows PATH N [--pause-ms MS | --on-request]
//       commits the rows 1 to N into `item (n)`, one transaction each, after a pause (100 ms by default) or, with
//       `--on-request`, after reading a line from standard input; prints "committed I" after each
//       (ExternalCommits.swift)
//   sqltk-test-helper apply-changeset PATH FILE
//       applies the changeset stored in FILE to the database at PATH; prints "ok"
//   sqltk-test-helper locks PATH
//       the POSIX locks other processes hold on PATH, PATH-wal and PATH-shm, seen through fcntl(F_GETLK) (Locks.swift):
//       prints "lock FILE TYPE START LENGTH PID" for each, then "done"
//
// Later tests add their subcommands to `commands`.

import Foundation
import SQLiteToolkit

/// Thrown for a command line this program does not understand; exits with status 2.
struct UsageError: Error, CustomStringConvertible {
    var description: String
}

let commands: [String: ([String]) throws -> Void] = [
    "create-counter": createCounter,
    "increment": increment,
    "spin": spin,
    "create-soak": createSoak,
    "soak": soak,
    "key-residue": keyResidue,
    "replication-create": replicationCreate,
    "replication-write": replicationWrite,
    "replication-verify": replicationVerify,
    "replica-read": replicaRead,
    "replica-load-again": replicaLoadAgain,
    "replica-bench": replicaBench,
    "cipher-first-use": cipherFirstUse,
    "commit-rows": commitRows,
    "apply-changeset": applyChangeset,
    "locks": locks,
]

func createCounter(_ arguments: [String]) throws {
    guard arguments.count == 2, ["wal", "delete"].contains(arguments[1]) else {
        throw UsageError(description: "create-counter PATH (wal|delete)")
    }
    let db = try Database(path: arguments[0])
    defer { db.close() }
    _ = try db.queryValue("PRAGMA journal_mode = \(arguments[1])", as: String.self)
    try db.execute("CREATE TABLE counter (id INTEGER PRIMARY KEY, value INTEGER NOT NULL)")
    try db.execute("INSERT INTO counter (id, value) VALUES (1, 0)")
}

func busyMode(_ text: String) throws -> Database.BusyMode? {
    if text == "default" { return nil }
    if text == "immediate" { return .immediateError }
    let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
    guard parts.count == 2, let seconds = Double(parts[1]) else { throw UsageError(description: "busy mode \(text)") }
    switch parts[0] {
    case "sqlite": return .sqliteTimeout(seconds)
    case "timeout": return .timeout(seconds)
    default: throw UsageError(description: "busy mode \(text)")
    }
}

/// `jitter:MIN:MAX:SECONDS`: retries with sleeps drawn between MIN and MAX microseconds for up to SECONDS, the shape
/// of handler measured against SQLite's own before choosing the default.
func jitterMode(_ text: String) -> Database.BusyMode? {
    let parts = text.split(separator: ":").map(String.init)
    guard parts.count == 4, parts[0] == "jitter", let low = UInt32(parts[1]), let high = UInt32(parts[2]),
        low <= high, let seconds = Double(parts[3])
    else { return nil }
    let start = EpisodeStart()
    return .handler { retries in
        let now = Date()
        if retries == 0 { start.set(now) }
        guard now.timeIntervalSince(start.get()) < seconds else { return false }
        usleep(UInt32.random(in: low...high))
        return true
    }
}

/// When the current busy episode started.
final class EpisodeStart: @unchecked Sendable {
    // @unchecked Sendable: `date` is read and written only while holding `lock`.
    private let lock = NSLock()
    private var date = Date()
    func set(_ value: Date) { lock.withLock { date = value } }
    func get() -> Date { lock.withLock { date } }
}

func increment(_ allArguments: [String]) throws {
    let usage = UsageError(description: "increment PATH COUNT [BUSY [SYNCHRONOUS]] [--gate] [--hold-ms MS]")
    var arguments: [String] = []
    var usesWriteGate = false
    var holdMicroseconds: UInt32 = 0
    var remaining = allArguments[...]
    while let argument = remaining.popFirst() {
        switch argument {
        case "--gate":
            usesWriteGate = true
        case "--hold-ms":
            guard let text = remaining.popFirst(), let milliseconds = UInt32(text), milliseconds <= 60_000 else {
                throw usage
            }
            holdMicroseconds = milliseconds * 1000
        default:
            arguments.append(argument)
        }
    }
    guard (2...4).contains(arguments.count), let count = Int(arguments[1]), count >= 0 else { throw usage }
    var configuration = Database.Configuration()
    configuration.usesWriteGate = usesWriteGate
    if arguments.count >= 3 {
        if let mode = jitterMode(arguments[2]) {
            configuration.busyMode = mode
        } else if let mode = try busyMode(arguments[2]) {
            configuration.busyMode = mode
        }
    }
    let db = try Database(path: arguments[0], configuration: configuration)
    defer { db.close() }
    if arguments.count == 4 {
        guard ["off", "normal", "full"].contains(arguments[3]) else { throw UsageError(description: "synchronous") }
        try db.execute("PRAGMA synchronous = \(arguments[3])")
    }
    var busyErrors = 0
    var done = 0
    // How long the shortest and the longest failed attempt took: whether each busy error came only after the busy
    // mode's whole wait.
    var busyAttemptSeconds: ClosedRange<Double>?
    while done < count {
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            try db.transaction(.immediate) { db in
                try db.execute("UPDATE counter SET value = value + 1 WHERE id = 1")
                if holdMicroseconds > 0 { usleep(holdMicroseconds) }
            }
            done += 1
        } catch let error as DatabaseError where error.isBusy {
            busyErrors += 1
            let seconds = Double(DispatchTime.now().uptimeNanoseconds &- start) / 1e9
            busyAttemptSeconds =
                busyAttemptSeconds.map {
                    min($0.lowerBound, seconds)...max($0.upperBound, seconds)
                } ?? seconds...seconds
        }
    }
    if let busyAttemptSeconds {
        let range = String(format: "%.2f-%.2f", busyAttemptSeconds.lowerBound, busyAttemptSeconds.upperBound)
        print("ok \(done) busy \(busyErrors) failed-attempt-seconds \(range)")
    } else {
        print("ok \(done) busy \(busyErrors)")
    }
}

func spin(_ arguments: [String]) throws {
    guard arguments.count == 1, let seconds = Double(arguments[0]) else {
        throw UsageError(description: "spin SECONDS")
    }
    let end = Date(timeIntervalSinceNow: seconds)
    var value: UInt64 = 1
    while Date() < end {
        for _ in 0..<100_000 { value = value &* 6_364_136_223_846_793_005 &+ 1 }
    }
    if value == 0 { print(value) }  // keeps the loop from being optimized away
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, let command = commands[name] else {
    FileHandle.standardError.write(
        Data("usage: sqltk-test-helper (\(commands.keys.sorted().joined(separator: "|"))) ...\n".utf8))
    exit(2)
}
do {
    try command(Array(arguments.dropFirst()))
} catch let error as UsageError {
    FileHandle.standardError.write(Data("usage: sqltk-test-helper \(error)\n".utf8))
    exit(2)
} catch {
    FileHandle.standardError.write(Data("sqltk-test-helper \(name): \(error)\n".utf8))
    exit(1)
}
