import Foundation
import Testing

@testable import SQLiteToolkit

/// Several threads and tasks on one queue and one pool doing, at random and for a bounded time, blocking and async
/// reads and writes, savepoints, cancellations, `close()` inside and outside accesses, `reopen()`, snapshots and
/// observations. A watchdog fails the run on any operation that has not finished after a generous deadline and prints
/// what each actor was doing; after each round the invariants are checked: the tables hold exactly the acknowledged
/// writes, no reader is checked out and nothing waits, and `isOpen` agrees with the last lifecycle call.
///
/// Seeded: `SQLTK_SEED` replays the actors' choices (the seed is printed on failure; the threads' timing still
/// varies). `SQLTK_LIFECYCLE_STRESS_SECONDS` is the length of a round (default 2) and `SQLTK_LIFECYCLE_STRESS_ROUNDS`
/// the number of rounds (default 2); `scripts/reliability-long` runs it for 30 minutes.
@Suite("Lifecycle stress: accesses, closes, reopens and cancellations at random", .timeLimit(.minutes(60)))
struct LifecycleStressTests {
    static let roundSeconds = Double(environmentInteger("SQLTK_LIFECYCLE_STRESS_SECONDS") ?? 2)
    static let rounds = environmentInteger("SQLTK_LIFECYCLE_STRESS_ROUNDS") ?? 2
    /// An operation running longer than this is stuck: the longest legitimate wait is a reader's time-out (2 s here)
    /// or a busy timeout (5 s), behind a few others on a loaded machine.
    static let stuckAfter = 60.0

    @Test("random accesses, closes, reopens and cancellations never hang and never lose or invent a write")
    func stress() async throws {
        let seed = SeededRandom.seed(default: 0x5EED_0038)
        var totals = StressTotals()
        for round in 0..<Self.rounds {
            let roundSeed = seed &+ UInt64(round) &* 0x9E37_79B9
            try await TemporaryFile.withDatabasePathAsync { queuePath in
                try await TemporaryFile.withDatabasePathAsync { poolPath in
                    let outcome = try await StressRound(seed: roundSeed, queuePath: queuePath, poolPath: poolPath).run()
                    totals.add(outcome)
                    #expect(outcome.failures.isEmpty, "seed \(roundSeed): \(outcome.failures.joined(separator: "\n"))")
                }
            }
        }
        if environmentInteger("SQLTK_RELIABILITY_REPORT") != nil {
            print("lifecycle stress: seed \(seed), \(Self.rounds) rounds of \(Self.roundSeconds) s, \(totals.summary)")
        }
    }
}

/// What the rounds did, for the report.
struct StressTotals {
    var operations: [String: Int] = [:]

    mutating func add(_ outcome: StressRound.Outcome) {
        operations.merge(outcome.operations) { $0 + $1 }
    }

    var summary: String {
        let total = operations.values.reduce(0, +)
        let parts = operations.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        return "\(total) operations (\(parts.joined(separator: ", ")))"
    }
}

/// One round of the stress test on a new queue and a new pool.
struct StressRound: Sendable {
    struct Outcome {
        var failures: [String]
        var operations: [String: Int]
    }

    let seed: UInt64
    let queuePath: String
    let poolPath: String

    static let threadCount = 3
    static let taskCount = 3

    func run() async throws -> Outcome {
        let queue = try DatabaseQueue(path: queuePath)
        let pool = try DatabasePool(path: poolPath, maximumReaderCount: 2, readerTimeout: 2)
        for target in [StressTarget.queue(queue), .pool(pool)] {
            try target.writeBlocking { db in try db.execute("CREATE TABLE acks(id INTEGER PRIMARY KEY)") }
        }
        let shared = StressState()
        let end = DispatchTime.now() + LifecycleStressTests.roundSeconds
        let watchdog = StressWatchdog(state: shared)
        watchdog.start()
        defer { watchdog.stop() }

        var threads: [BackgroundRun<Void>] = []
        for index in 0..<Self.threadCount {
            let actor = StressActor(
                name: "thread \(index)", seed: seed &+ UInt64(index), queue: queue, pool: pool, state: shared)
            threads.append(runOnThreadInBackground { actor.runBlocking(until: end) })
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<Self.taskCount {
                let actor = StressActor(
                    name: "task \(index)", seed: seed &+ 1000 &+ UInt64(index), queue: queue, pool: pool,
                    state: shared)
                group.addTask { await actor.runAsync(until: end) }
            }
            try await group.waitForAll()
        }
        for thread in threads {
            // Finish waiting off the cooperative pool: the blocked threads may need its threads to end.
            let finished = await withCheckedContinuation { continuation in
                Thread {
                    let deadline = DispatchTime.now() + LifecycleStressTests.stuckAfter * 2
                    continuation.resume(returning: thread.done.wait(timeout: deadline))
                }.start()
            }
            if finished == .timedOut { shared.fail("a thread never finished:\n\(shared.inFlightDescription())") }
        }
        watchdog.stop()
        checkInvariants(queue: queue, pool: pool, state: shared)
        return Outcome(failures: shared.failures, operations: shared.operationCounts)
    }

    /// The checks after every actor ended.
    private func checkInvariants(queue: DatabaseQueue, pool: DatabasePool, state: StressState) {
        // Nothing is half-way: no close or reopen under way, nobody waits, no reader is checked out.
        let queueState = queue.serialized.lifecycleState
        let poolState = pool.lifecycleState
        if queueState != .open && queueState != .closed { state.fail("the queue was left \(queueState)") }
        if poolState != .open && poolState != .closed { state.fail("the pool was left \(poolState)") }
        if queue.isOpen != (queueState == .open) { state.fail("the queue's isOpen disagrees with its state") }
        if pool.isOpen != (poolState == .open) { state.fail("the pool's isOpen disagrees with its state") }
        if queue.serialized.waitingAccessCount != 0 { state.fail("accesses still wait for the queue") }
        if pool.writer.waitingAccessCount != 0 { state.fail("accesses still wait for the pool's writer") }
        if pool.readers.inUseCount != 0 { state.fail("\(pool.readers.inUseCount) readers are still checked out") }
        if pool.readers.waitingReadCount != 0 { state.fail("reads still wait in the pool's line") }
        // The last lifecycle call, now made alone, is what isOpen says, and accesses follow it.
        for target in [StressTarget.queue(queue), .pool(pool)] {
            target.close()
            if target.isOpen { state.fail("\(target.name) reads as open after close()") }
            do {
                try target.readBlocking { _ in }
                state.fail("\(target.name) read after close()")
            } catch let error as DatabaseError where error.reason == .accessAfterClose {
            } catch {
                state.fail("\(target.name) read after close() threw \(error)")
            }
            do {
                try target.reopen()
                if !target.isOpen { state.fail("\(target.name) reads as closed after reopen()") }
                // The table holds exactly the writes that were acknowledged.
                let stored = try target.readBlocking { db in
                    Set(try db.query("SELECT id FROM acks").map { try $0.value(at: 0) as Int })
                }
                let acknowledged = state.acknowledged(target.name)
                if stored != acknowledged {
                    state.fail(
                        "\(target.name): \(acknowledged.subtracting(stored).count) acknowledged writes lost, "
                            + "\(stored.subtracting(acknowledged).count) unacknowledged ones stored")
                }
            } catch {
                state.fail("\(target.name) could not be reopened and read: \(error)")
            }
            target.close()
        }
    }
}

/// A queue or a pool, as the stress test uses either.
enum StressTarget: Sendable {
    case queue(DatabaseQueue)
    case pool(DatabasePool)

    var name: String {
        switch self {
        case .queue: "queue"
        case .pool: "pool"
        }
    }

    var isOpen: Bool {
        switch self {
        case .queue(let queue): queue.isOpen
        case .pool(let pool): pool.isOpen
        }
    }

    func close() {
        switch self {
        case .queue(let queue): queue.close()
        case .pool(let pool): pool.close()
        }
    }

    func reopen() throws {
        switch self {
        case .queue(let queue): try queue.reopen()
        case .pool(let pool): try pool.reopen()
        }
    }

    func readBlocking<T>(_ body: (Database) throws -> T) throws -> T {
        switch self {
        case .queue(let queue): try queue.read(body)
        case .pool(let pool): try pool.read(body)
        }
    }

    func writeBlocking<T>(_ body: (Database) throws -> T) throws -> T {
        switch self {
        case .queue(let queue): try queue.write(body)
        case .pool(let pool): try pool.write(body)
        }
    }

    func readAsync<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        switch self {
        case .queue(let queue): try await queue.read(body)
        case .pool(let pool): try await pool.read(body)
        }
    }

    func writeAsync<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        switch self {
        case .queue(let queue): try await queue.write(body)
        case .pool(let pool): try await pool.write(body)
        }
    }

    func observe() -> AsyncThrowingStream<Int, any Error> {
        let count: @Sendable (Database) throws -> Int = { db in
            try db.queryValue("SELECT count(*) FROM acks", as: Int.self) ?? 0
        }
        switch self {
        case .queue(let queue): return queue.observe(tables: ["acks"], count)
        case .pool(let pool): return pool.observe(tables: ["acks"], count)
        }
    }
}

/// What the actors share: the acknowledged writes, the next id, what each actor does now, and the failures.
final class StressState: Sendable {
    private struct Running {
        var operation: String
        var since: DispatchTime
    }

    private let acknowledgedIDs = Locked<[String: Set<Int>]>([:])
    private let nextID = Locked(0)
    private let running = Locked<[String: Running]>([:])
    private let failureList = Locked<[String]>([])
    private let counts = Locked<[String: Int]>([:])

    func newID() -> Int {
        nextID.withLock { id in
            id += 1
            return id
        }
    }

    func acknowledge(_ id: Int, on target: String) {
        acknowledgedIDs.withLock { _ = $0[target, default: []].insert(id) }
    }

    func acknowledged(_ target: String) -> Set<Int> { acknowledgedIDs.withLock { $0[target] ?? [] } }

    func fail(_ message: String) { failureList.withLock { $0.append(message) } }

    var failures: [String] { failureList.current }

    var operationCounts: [String: Int] { counts.current }

    /// Runs `body` as `operation` of `actor`, for the watchdog and the counts.
    func track<T>(_ actor: String, _ operation: String, _ body: () throws -> T) rethrows -> T {
        running.withLock { $0[actor] = Running(operation: operation, since: .now()) }
        defer { running.withLock { $0[actor] = nil } }
        counts.withLock { $0[operation, default: 0] += 1 }
        return try body()
    }

    /// ``track(_:_:_:)`` for async operations.
    func track<T>(_ actor: String, _ operation: String, _ body: () async throws -> T) async rethrows -> T {
        running.withLock { $0[actor] = Running(operation: operation, since: .now()) }
        defer { running.withLock { $0[actor] = nil } }
        counts.withLock { $0[operation, default: 0] += 1 }
        return try await body()
    }

    /// The operations running longer than `seconds`.
    func stuck(after seconds: Double) -> [String] {
        running.withLock { running in
            // Read under the lock: an operation that starts after this moment cannot be counted as running for
            // a negative time (which, unsigned, is a very long one).
            let now = DispatchTime.now().uptimeNanoseconds
            return running.filter { Double(now - min(now, $0.value.since.uptimeNanoseconds)) / 1e9 > seconds }
                .map(\.key)
        }
    }

    /// What every actor does now, and for how long, for a failure's message.
    func inFlightDescription() -> String {
        return running.withLock { running in
            let now = DispatchTime.now().uptimeNanoseconds
            return running.sorted { $0.key < $1.key }.map { actor, run in
                let seconds = Double(now - min(now, run.since.uptimeNanoseconds)) / 1e9
                return "  \(actor): \(run.operation) for \(String(format: "%.1f", seconds)) s"
            }.joined(separator: "\n")
        }
    }
}

/// Fails the round when an operation runs past ``LifecycleStressTests/stuckAfter``, naming what everyone waits for.
final class StressWatchdog: Sendable {
    private let state: StressState
    private let stopped = Locked(false)
    private let fired = Locked(false)

    init(state: StressState) {
        self.state = state
    }

    func start() {
        Thread { [self] in
            while !stopped.current {
                Thread.sleep(forTimeInterval: 0.25)
                let stuck = state.stuck(after: LifecycleStressTests.stuckAfter)
                if !stuck.isEmpty && !fired.current {
                    fired.withLock { $0 = true }
                    state.fail("stuck: \(stuck.sorted().joined(separator: ", "))\n\(state.inFlightDescription())")
                }
            }
        }.start()
    }

    func stop() { stopped.withLock { $0 = true } }
}

/// One thread or task of the stress test: picks operations at random until the round ends.
struct StressActor: Sendable {
    let name: String
    let seed: UInt64
    let queue: DatabaseQueue
    let pool: DatabasePool
    let state: StressState

    private struct Rollback: Error {}

    /// Whether `error` is one that an operation racing closes and cancellations may meet.
    private func isExpected(_ error: any Error) -> Bool {
        if error is CancellationError || error is Rollback { return true }
        guard let error = error as? DatabaseError else { return false }
        return error.reason == .accessAfterClose || error.reason == .readerTimeout || error.isInterrupted
    }

    private func check(_ operation: String, _ error: any Error) {
        if !isExpected(error) { state.fail("\(name) \(operation): unexpected \(error)") }
    }

    private func insert(_ db: Database) throws -> Int {
        let id = state.newID()
        try db.execute("INSERT INTO acks(id) VALUES (?)", id)
        return id
    }

    func runBlocking(until end: DispatchTime) {
        var random = SeededRandom(seed: seed)
        while DispatchTime.now() < end {
            let target: StressTarget = Bool.random(using: &random) ? .queue(queue) : .pool(pool)
            let choice = Int.random(in: 0..<100, using: &random)
            let operation: String
            switch choice {
            case 0..<30: operation = "read"
            case 30..<55: operation = "write"
            case 55..<65: operation = "savepoint"
            case 65..<72: operation = "close inside"
            case 72..<78: operation = "close"
            case 78..<90: operation = "reopen"
            case 90..<95: operation = "snapshot"
            default: operation = "barrier write"
            }
            state.track(name, "\(target.name) \(operation)") {
                do {
                    try runBlocking(operation, on: target)
                } catch {
                    check("\(target.name) \(operation)", error)
                }
            }
        }
    }

    private func runBlocking(_ operation: String, on target: StressTarget) throws {
        switch operation {
        case "read":
            _ = try target.readBlocking { db in try db.queryValue("SELECT count(*) FROM acks", as: Int.self) }
        case "write":
            let id = try target.writeBlocking { db in try insert(db) }
            state.acknowledge(id, on: target.name)
        case "savepoint":
            // The outer write commits its row; the savepoint's row is rolled back with it.
            let id = try target.writeBlocking { db in
                let kept = try insert(db)
                do {
                    try db.savepoint { db in
                        _ = try insert(db)
                        throw Rollback()
                    }
                } catch is Rollback {}
                return kept
            }
            state.acknowledge(id, on: target.name)
        case "close inside":
            try target.readBlocking { _ in target.close() }
        case "close":
            target.close()
        case "reopen":
            try target.reopen()
        case "snapshot":
            guard case .pool(let pool) = target else { return }
            let snapshot = try pool.makeSnapshot()
            _ = try snapshot.read { db in try db.queryValue("SELECT count(*) FROM acks", as: Int.self) }
            // Left open half the time, for the pool's close (or its release) to close.
            if Bool.random() { snapshot.close() }
        default:
            guard case .pool(let pool) = target else { return }
            let id = try pool.barrierWrite { db in try db.transaction { db in try insert(db) } }
            state.acknowledge(id, on: target.name)
        }
    }

    func runAsync(until end: DispatchTime) async {
        var random = SeededRandom(seed: seed)
        while DispatchTime.now() < end {
            let target: StressTarget = Bool.random(using: &random) ? .queue(queue) : .pool(pool)
            let choice = Int.random(in: 0..<100, using: &random)
            let operation: String
            switch choice {
            case 0..<30: operation = "async read"
            case 30..<55: operation = "async write"
            case 55..<75: operation = "cancelled read"
            case 75..<90: operation = "cancelled write"
            default: operation = "observation"
            }
            let delay = UInt64.random(in: 0..<2_000_000, using: &random)
            await state.track(name, "\(target.name) \(operation)") {
                do {
                    try await runAsync(operation, on: target, cancellingAfter: delay)
                } catch {
                    check("\(target.name) \(operation)", error)
                }
            }
        }
    }

    private func runAsync(_ operation: String, on target: StressTarget, cancellingAfter delay: UInt64) async throws {
        let state = self.state
        switch operation {
        case "async read":
            _ = try await target.readAsync { db in try db.queryValue("SELECT count(*) FROM acks", as: Int.self) }
        case "async write":
            let id = try await target.writeAsync { db in try insert(db) }
            state.acknowledge(id, on: target.name)
        case "cancelled read":
            let task = Task {
                try await target.readAsync { db in try db.queryValue("SELECT count(*) FROM acks", as: Int.self) }
            }
            try await Task.sleep(nanoseconds: delay)
            task.cancel()
            _ = try await task.value
        case "cancelled write":
            // Acknowledged only when the write reports success: a cancelled one never ran or was rolled back.
            let task = Task { try await target.writeAsync { db in try insert(db) } }
            try await Task.sleep(nanoseconds: delay)
            task.cancel()
            let id = try await task.value
            state.acknowledge(id, on: target.name)
        default:
            let stream = target.observe()
            let task = Task {
                var values = 0
                for try await _ in stream {
                    values += 1
                    if values == 3 { break }
                }
            }
            try await Task.sleep(nanoseconds: delay)
            task.cancel()
            try await task.value
        }
    }
}
