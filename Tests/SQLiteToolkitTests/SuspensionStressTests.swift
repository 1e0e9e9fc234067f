import Foundation
import Testing

@testable import SQLiteToolkit

/// Suspensions and resumes, in both modes, while threads read, write and make snapshots: after every `suspend()`
/// a second process sees no lock, no access hangs, and every write that returned is committed once, every write
/// that threw is not.
@Suite("Suspension under load", .serialized, .timeLimit(.minutes(3)))
struct SuspensionStressTests {
    /// A small generator of our own, so a seed replays the same choices.
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    /// The errors an access may meet during the test: refused or interrupted by a suspension, or a snapshot that a
    /// suspension closed.
    static func isExpected(_ error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.reason == .suspended || error.reason == .accessAfterClose
    }

    /// Polls `condition` until it holds or `seconds` pass; whether it held.
    static func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while !condition() {
            if Date() >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return true
    }

    @Test("a pool", arguments: [1, 2, 3])
    func pool(seed: UInt64) throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path)
            defer { pool.close() }
            try pool.write { db in try db.execute("CREATE TABLE t (x)") }
            let stop = Locked(false)
            let committed = Locked(0)
            let unexpected = Locked<[String]>([])
            let workers = (0..<3).map { worker in
                runOnThreadInBackground {
                    var random = Generator(state: seed &* 31 &+ UInt64(worker))
                    while !stop.current {
                        do {
                            switch random.next(3) {
                            case 0:
                                try pool.write { db in try db.execute("INSERT INTO t VALUES (1)") }
                                committed.withLock { $0 += 1 }
                            case 1:
                                _ = try pool.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) }
                            default:
                                let snapshot = try pool.makeSnapshot(label: "worker \(worker)")
                                _ = try snapshot.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self)
                                }
                                snapshot.close()
                            }
                        } catch  where Self.isExpected(error) {
                            // Refused or interrupted by a suspension: what the test provokes.
                        } catch {
                            unexpected.withLock { $0.append("\(error)") }
                        }
                    }
                }
            }
            // The suspensions start once a worker has committed, so that at least one write ran between them
            // whatever the scheduling (they once all ended before any worker wrote).
            #expect(Self.waitUntil(seconds: 30) { committed.current > 0 }, "no worker committed within 30 s")
            let finished = runOnThread(timeout: 120) {
                var random = Generator(state: seed)
                for _ in 0..<15 {
                    try pool.suspend(accesses: random.next(2) == 0 ? .fail : .wait)
                    let locks = try LockProbe.locks(on: path)
                    if !locks.isEmpty { unexpected.withLock { $0.append("locks after suspend(): \(locks)") } }
                    try pool.resume()
                }
            }
            stop.withLock { $0 = true }
            #expect(finished != nil, "the suspensions did not end within 120 s")
            #expect(throws: Never.self) { try finished?.get() }
            for worker in workers { #expect(wait(worker.done, seconds: 60), "a worker did not end") }
            #expect(unexpected.current == [])
            let count = try pool.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) }
            #expect(count == committed.current)
            #expect(committed.current > 0, "no write ran")
        }
    }

    @Test("a queue", arguments: [1, 2, 3])
    func queue(seed: UInt64) throws {
        try TemporaryFile.withDatabasePath { path in
            let queue = try DatabaseQueue(path: path) { db in
                _ = try db.queryValue("PRAGMA journal_mode = WAL", as: String.self)
            }
            defer { queue.close() }
            try queue.write { db in try db.execute("CREATE TABLE t (x)") }
            let stop = Locked(false)
            let committed = Locked(0)
            let unexpected = Locked<[String]>([])
            let workers = (0..<3).map { worker in
                runOnThreadInBackground {
                    var random = Generator(state: seed &* 31 &+ UInt64(worker))
                    while !stop.current {
                        do {
                            if random.next(2) == 0 {
                                try queue.write { db in try db.execute("INSERT INTO t VALUES (1)") }
                                committed.withLock { $0 += 1 }
                            } else {
                                _ = try queue.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) }
                            }
                        } catch  where Self.isExpected(error) {
                            // Refused or interrupted by a suspension: what the test provokes.
                        } catch {
                            unexpected.withLock { $0.append("\(error)") }
                        }
                    }
                }
            }
            // The suspensions start once a worker has committed, so that at least one write ran between them
            // whatever the scheduling (they once all ended before any worker wrote).
            #expect(Self.waitUntil(seconds: 30) { committed.current > 0 }, "no worker committed within 30 s")
            let finished = runOnThread(timeout: 120) {
                var random = Generator(state: seed)
                for _ in 0..<15 {
                    try queue.suspend(accesses: random.next(2) == 0 ? .fail : .wait)
                    let locks = try LockProbe.locks(on: path)
                    if !locks.isEmpty { unexpected.withLock { $0.append("locks after suspend(): \(locks)") } }
                    try queue.resume()
                }
            }
            stop.withLock { $0 = true }
            #expect(finished != nil, "the suspensions did not end within 120 s")
            #expect(throws: Never.self) { try finished?.get() }
            for worker in workers { #expect(wait(worker.done, seconds: 60), "a worker did not end") }
            #expect(unexpected.current == [])
            let count = try queue.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) }
            #expect(count == committed.current)
            #expect(committed.current > 0, "no write ran")
        }
    }
}
