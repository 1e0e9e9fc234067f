// The contention soak's worker process: several threads share one DatabaseQueue or DatabasePool on a file that
// other worker processes use at the same time (Tests/SQLiteToolkitTests/ContentionSoakTests.swift).

import Foundation
import SQLiteToolkit

func createSoak(_ arguments: [String]) throws {
    guard (2...3).contains(arguments.count), ["wal", "delete"].contains(arguments[1]) else {
        throw UsageError(description: "create-soak PATH (wal|delete) [KEYHEX]")
    }
    var configuration = Database.Configuration()
    if arguments.count == 3 { configuration.key = .raw(hex: arguments[2]) }
    let db = try Database(path: arguments[0], configuration: configuration)
    defer { db.close() }
    _ = try db.queryValue("PRAGMA journal_mode = \(arguments[1])", as: String.self)
    try db.executeScript(
        """
        CREATE TABLE counter (id INTEGER PRIMARY KEY, value INTEGER NOT NULL);
        INSERT INTO counter (id, value) VALUES (1, 0);
        CREATE TABLE log (worker INTEGER NOT NULL, thread INTEGER NOT NULL, n INTEGER NOT NULL, note TEXT);
        CREATE INDEX log_worker ON log (worker, thread, n);
        """)
}

/// What one thread of a worker did.
struct SoakCounts: Sendable {
    /// Rows committed: each adds 1 to the counter and one row to `log` in the same transaction.
    var commits = 0
    /// Savepoints released inside a committed transaction (each with one row, counted in `commits` too).
    var savepoints = 0
    /// Transactions and savepoints rolled back on purpose (their rows must not be there).
    var rollbacks = 0
    var reads = 0
    var busy = 0

    static func + (lhs: SoakCounts, rhs: SoakCounts) -> SoakCounts {
        SoakCounts(
            commits: lhs.commits + rhs.commits, savepoints: lhs.savepoints + rhs.savepoints,
            rollbacks: lhs.rollbacks + rhs.rollbacks, reads: lhs.reads + rhs.reads, busy: lhs.busy + rhs.busy)
    }
}

/// Thrown inside a transaction or savepoint to roll it back.
struct SoakRollback: Error {}

/// A read that saw the counter and the log disagree: a torn snapshot.
struct SoakInconsistency: Error, CustomStringConvertible {
    var description: String
}

/// The state of every thread of the worker, for the watchdog and the totals.
final class SoakBoard: @unchecked Sendable {
    // @unchecked Sendable: `operations`, `counts`, `finished` and `failure` are read and written only while holding
    // `lock`.
    private let lock = NSLock()
    private var operations: [String]
    private var counts: [SoakCounts]
    private var finished: [Bool]
    private var failure: String?

    init(threads: Int) {
        operations = Array(repeating: "starting", count: threads)
        counts = Array(repeating: SoakCounts(), count: threads)
        finished = Array(repeating: false, count: threads)
    }

    func set(_ thread: Int, operation: String) { lock.withLock { operations[thread] = operation } }
    func finish(_ thread: Int, _ threadCounts: SoakCounts, failure message: String?) {
        lock.withLock {
            counts[thread] = threadCounts
            finished[thread] = true
            if let message, failure == nil { failure = "thread \(thread): \(message)" }
        }
    }
    var total: SoakCounts { lock.withLock { counts.reduce(SoakCounts(), +) } }
    var firstFailure: String? { lock.withLock { failure } }
    /// The threads still running, with the operation each is in.
    var stuck: [String] {
        lock.withLock { finished.indices.filter { !finished[$0] }.map { "thread \($0) (\(operations[$0]))" } }
    }
}

/// The two ways in: both take the same closures, so one loop drives either.
enum SoakAccess {
    case queue(DatabaseQueue)
    case pool(DatabasePool)

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        switch self {
        case .queue(let queue): try queue.read(body)
        case .pool(let pool): try pool.read(body)
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws -> T {
        switch self {
        case .queue(let queue): try queue.write(body)
        case .pool(let pool): try pool.write(body)
        }
    }

    /// A savepoint as the outermost scope: the queue's own, or one inside the pool's write-free access.
    func savepoint<T>(_ body: (Database) throws -> T) throws -> T {
        switch self {
        case .queue(let queue): try queue.savepoint(body)
        case .pool(let pool): try pool.writeWithoutTransaction { db in try db.savepoint(body) }
        }
    }

    func close() {
        switch self {
        case .queue(let queue): queue.close()
        case .pool(let pool): pool.close()
        }
    }
}

func soak(_ arguments: [String]) throws {
    guard (5...6).contains(arguments.count), ["queue", "pool"].contains(arguments[1]),
        let worker = Int(arguments[2]), let threads = Int(arguments[3]), threads > 0,
        let seconds = Double(arguments[4]), seconds >= 0
    else {
        throw UsageError(description: "soak PATH (queue|pool) WORKER THREADS SECONDS [KEYHEX]")
    }
    var configuration = Database.Configuration()
    if arguments.count == 6 { configuration.key = .raw(hex: arguments[5]) }
    let access: SoakAccess =
        arguments[1] == "queue"
        ? .queue(try DatabaseQueue(path: arguments[0], configuration: configuration))
        : .pool(try DatabasePool(path: arguments[0], configuration: configuration, maximumReaderCount: threads))
    let board = SoakBoard(threads: threads)
    let deadline = Date(timeIntervalSinceNow: seconds)
    let done = DispatchGroup()
    var workers: [Thread] = []
    for thread in 0..<threads {
        done.enter()
        let worker = Thread {
            var counts = SoakCounts()
            var failure: String?
            do {
                try soakLoop(access, worker: worker, thread: thread, until: deadline, board: board, counts: &counts)
            } catch {
                failure = "\(error)"
            }
            board.finish(thread, counts, failure: failure)
            done.leave()
        }
        workers.append(worker)
        worker.start()
    }
    // The watchdog: a thread that has not finished a minute after the end is stuck (a deadlock, or a wait that
    // never times out).
    guard done.wait(timeout: .now() + seconds + 60) == .success else {
        // Written unbuffered: `exit` follows at once.
        FileHandle.standardOutput.write(Data("stuck worker \(worker): \(board.stuck.joined(separator: ", "))\n".utf8))
        exit(3)
    }
    // Each thread still holds the queue or pool until it has fully exited: wait for that, so the last reference
    // goes away here and not in a thread the process ends under (LeakSanitizer reports such objects as leaks).
    while workers.contains(where: { !$0.isFinished }) { usleep(1000) }
    workers.removeAll()
    access.close()
    if let failure = board.firstFailure { throw SoakInconsistency(description: failure) }
    let total = board.total
    print(
        "ok worker \(worker) commits \(total.commits) savepoints \(total.savepoints) rollbacks \(total.rollbacks) "
            + "reads \(total.reads) busy \(total.busy)")
}

/// One thread's mix until `deadline`: writes, writes with nested savepoints (one released, one rolled back),
/// writes rolled back, savepoints as the outermost scope, and reads that check their snapshot. Every row carries
/// the worker, the thread and the thread's running number, so the test can match the rows against the counts.
func soakLoop(
    _ access: SoakAccess, worker: Int, thread: Int, until deadline: Date, board: SoakBoard,
    counts: inout SoakCounts
) throws {
    var random = SystemRandomNumberGenerator()
    let insert = "INSERT INTO log (worker, thread, n, note) VALUES (?, ?, ?, ?)"
    let increment = "UPDATE counter SET value = value + 1 WHERE id = 1"
    while Date() < deadline {
        let choice = Int.random(in: 0..<10, using: &random)
        do {
            switch choice {
            case 0..<4:
                board.set(thread, operation: "read")
                try access.read { db in
                    let value = try db.queryValue("SELECT value FROM counter WHERE id = 1", as: Int.self)
                    let rows = try db.queryValue("SELECT count(*) FROM log", as: Int.self)
                    guard value == rows else {
                        throw SoakInconsistency(description: "a read saw counter \(value ?? -1) but \(rows ?? -1) rows")
                    }
                    let mine = try db.queryValue(
                        "SELECT count(*) FROM log WHERE worker = ? AND thread = ?", worker, thread, as: Int.self)
                    // This thread's own committed rows are all visible to its later reads, in every connection.
                    guard mine == counts.commits else {
                        throw SoakInconsistency(
                            description:
                                "a read saw \(mine ?? -1) rows of this thread, which committed \(counts.commits)"
                        )
                    }
                }
                counts.reads += 1
            case 4..<6:
                board.set(thread, operation: "write")
                let n = counts.commits + 1
                try access.write { db in
                    try db.execute(insert, worker, thread, n, "write")
                    try db.execute(increment)
                }
                counts.commits += 1
            case 6..<8:
                board.set(thread, operation: "write with savepoints")
                let n = counts.commits + 1
                try access.write { db in
                    try db.savepoint { db in
                        try db.execute(insert, worker, thread, n, "savepoint")
                        try db.execute(increment)
                    }
                    do {
                        try db.savepoint { db in
                            try db.execute(insert, worker, thread, -1, "rolled back savepoint")
                            try db.execute(increment)
                            throw SoakRollback()
                        }
                    } catch is SoakRollback {}
                }
                counts.commits += 1
                counts.savepoints += 1
                counts.rollbacks += 1
            case 8:
                board.set(thread, operation: "savepoint")
                let n = counts.commits + 1
                try access.savepoint { db in
                    try db.execute(insert, worker, thread, n, "outer savepoint")
                    try db.execute(increment)
                }
                counts.commits += 1
                counts.savepoints += 1
            default:
                board.set(thread, operation: "rolled back write")
                do {
                    try access.write { db in
                        try db.execute(insert, worker, thread, -1, "rolled back write")
                        try db.execute(increment)
                        throw SoakRollback()
                    }
                } catch is SoakRollback {
                    counts.rollbacks += 1
                }
            }
        } catch let error as DatabaseError where error.isBusy {
            // The default busy timeout should absorb every wait: a busy error here fails the soak. The operation
            // is not counted (it did not commit) and the loop goes on, so the test reports how many there were.
            counts.busy += 1
        }
    }
    board.set(thread, operation: "done")
}
