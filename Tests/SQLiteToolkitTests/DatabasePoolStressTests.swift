import Foundation
import SQLiteToolkit
import Testing

/// The pool's read path under many threads: reads take their thread's last reader back without the pool's lock, so
/// these check that the documented behaviours still hold when reads race barrier writes, `close()`, the reader limit
/// and each other. Seeded: `SQLTK_STRESS_SEED` replays a run. Part of the thread sanitizer's suites
/// (scripts/test-sanitizers).
@Suite("Database pool under many threads", .timeLimit(.minutes(3)))
struct DatabasePoolStressTests {
    /// Reads in progress, and the most seen at once.
    private final class ReadGauge: @unchecked Sendable {
        // @unchecked Sendable: `inside` and `most` are read and written only while holding `lock`.
        private let lock = NSLock()
        private var inside = 0
        private var most = 0

        func enter() {
            lock.withLock {
                inside += 1
                most = max(most, inside)
            }
        }

        func leave() { lock.withLock { inside -= 1 } }

        var current: Int { lock.withLock { inside } }
        var highest: Int { lock.withLock { most } }
    }

    private static let threads = 8

    /// Runs `body(index)` on `count` threads of their own at once (not `concurrentPerform`, which runs only as many
    /// at once as there are cores), and waits for all of them.
    private static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread {
                body(index)
                group.leave()
            }.start()
        }
        group.wait()
    }

    private func makePool(_ path: String, maximumReaderCount: Int = threads) throws -> DatabasePool {
        let pool = try DatabasePool(path: path, maximumReaderCount: maximumReaderCount)
        try pool.write { db in
            try db.execute("CREATE TABLE pair (id INTEGER PRIMARY KEY, a INTEGER NOT NULL, b INTEGER NOT NULL)")
            try db.execute("INSERT INTO pair (a, b) VALUES (0, 0)")
        }
        return pool
    }

    @Test("reads on many threads beside random barrier writes: a barrier write always runs with no read in progress")
    func barrierWritesRunAlone() throws {
        let seed = SeededRandom.seed(default: 28)
        try TemporaryFile.withDatabasePath { path in
            let pool = try makePool(path)
            defer { pool.close() }
            let gauge = ReadGauge()
            let readsDuringBarrier = Locked(0)
            let inconsistentReads = Locked(0)
            let failures = Locked<[String]>([])
            let writing = Locked(true)
            let writer = Thread {
                var random = SeededRandom(seed: seed)
                for step in 0..<60 {
                    do {
                        if Bool.random(using: &random) {
                            try pool.barrierWrite { db in
                                if gauge.current != 0 { readsDuringBarrier.withLock { $0 += 1 } }
                                try db.execute("UPDATE pair SET a = a + 1, b = b + 1")
                                // Long enough for a read that ignored the barrier to be caught inside.
                                Thread.sleep(forTimeInterval: 0.001)
                                if gauge.current != 0 { readsDuringBarrier.withLock { $0 += 1 } }
                            }
                        } else {
                            try pool.write { db in try db.execute("UPDATE pair SET a = a + 1, b = b + 1") }
                        }
                    } catch {
                        failures.withLock { $0.append("write \(step): \(error)") }
                    }
                    Thread.sleep(forTimeInterval: Double(Int.random(in: 0...2000, using: &random)) / 1_000_000)
                }
                writing.withLock { $0 = false }
            }
            writer.start()
            Self.onThreads(Self.threads) { _ in
                while writing.current {
                    do {
                        try pool.read { db in
                            gauge.enter()
                            defer { gauge.leave() }
                            let a = try db.queryValue("SELECT a FROM pair", as: Int.self)
                            let b = try db.queryValue("SELECT b FROM pair", as: Int.self)
                            if a != b { inconsistentReads.withLock { $0 += 1 } }
                        }
                    } catch {
                        failures.withLock { $0.append("read: \(error)") }
                    }
                }
            }
            #expect(failures.current == [], "seed \(seed)")
            #expect(readsDuringBarrier.current == 0, "seed \(seed)")
            #expect(inconsistentReads.current == 0, "seed \(seed)")
            #expect(try pool.read { db in try db.queryValue("SELECT a FROM pair", as: Int.self) } == 60)
        }
    }

    @Test("close during reads on many threads waits for the reads in progress; later reads throw the closed error")
    func closeDuringReads() throws {
        let seed = SeededRandom.seed(default: 2028)
        var random = SeededRandom(seed: seed)
        try TemporaryFile.withDatabasePath { path in
            let pool = try makePool(path)
            defer { pool.close() }
            for round in 0..<5 {
                let gauge = ReadGauge()
                let readsAfterClose = Locked(0)
                let unexpected = Locked<[String]>([])
                let closed = Locked(false)
                let closerDone = DispatchSemaphore(value: 0)
                let delay = Double(Int.random(in: 1_000...20_000, using: &random)) / 1_000_000
                let closer = Thread {
                    Thread.sleep(forTimeInterval: delay)
                    pool.close()
                    // Once close() returned, no read may be in progress, and none may start.
                    if gauge.current != 0 { readsAfterClose.withLock { $0 += 1 } }
                    closed.withLock { $0 = true }
                    closerDone.signal()
                }
                closer.start()
                Self.onThreads(Self.threads) { _ in
                    var stop = false
                    while !stop {
                        do {
                            try pool.read { db in
                                gauge.enter()
                                defer { gauge.leave() }
                                if closed.current { readsAfterClose.withLock { $0 += 1 } }
                                _ = try db.queryValue("SELECT a FROM pair", as: Int.self)
                            }
                        } catch let error as DatabaseError where error.reason == .accessAfterClose {
                            stop = true
                        } catch {
                            unexpected.withLock { $0.append("read: \(error)") }
                            stop = true
                        }
                    }
                }
                // The readers stop at the first closed error, which comes before close() has waited for the reads.
                #expect(wait(closerDone))
                #expect(unexpected.current == [], "round \(round), seed \(seed)")
                #expect(readsAfterClose.current == 0, "round \(round), seed \(seed)")
                #expect(pool.readerCount == 0)
                try pool.reopen()
                #expect(try pool.read { db in try db.queryValue("SELECT b FROM pair", as: Int.self) } == 0)
            }
        }
    }

    @Test("more threads than readers: at most the reader limit read at once, and every read completes")
    func readerLimitHolds() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try makePool(path, maximumReaderCount: 2)
            defer { pool.close() }
            let gauge = ReadGauge()
            let completed = Locked(0)
            Self.onThreads(Self.threads) { _ in
                for _ in 0..<200 {
                    let value = try? pool.read { db in
                        gauge.enter()
                        defer { gauge.leave() }
                        return try db.queryValue("SELECT a FROM pair", as: Int.self)
                    }
                    if value == 0 { completed.withLock { $0 += 1 } }
                }
            }
            #expect(completed.current == Self.threads * 200)
            #expect(gauge.highest <= 2)
            #expect(pool.readerCount <= 2)
        }
    }

    @Test("a thread's cached reader closed by closeIdleReaders is not used again: its next read opens a new one")
    func cachedReaderClosedIdle() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try makePool(path)
            defer { pool.close() }
            // The connections themselves are kept, so that a new one cannot take a freed one's address.
            let first = try pool.read { db in db }
            pool.closeIdleReaders()
            #expect(pool.readerCount == 0)
            #expect(!first.isOpen)
            let second = try pool.read { db in db }
            #expect(second !== first)
            #expect(second.isOpen)
            #expect(try pool.read { db in try db.queryValue("SELECT a FROM pair", as: Int.self) } == 0)
            #expect(pool.readerCount == 1)
            // The same thread then keeps its new reader.
            #expect(try pool.read { db in db } === second)
        }
    }

    #if os(Linux)
        @Test("a pool freed while threads keep its readers in their caches closes those readers' connections")
        func freedPoolClosesCachedReaders() throws {
            try TemporaryFile.withDatabasePath { path in
                do {
                    let pool = try makePool(path)
                    concurrently(2) { _ in _ = try? pool.read { _ in } }
                    try pool.read { _ in }
                    pool.close()
                    try pool.reopen()
                    try pool.read { _ in }
                }
                // The pool is gone; the test thread's cache still holds its last reader object.
                #expect(Self.openDescriptors(of: path) == 0)
            }
        }

        /// The file descriptors of this process open on `path`.
        private static func openDescriptors(of path: String) -> Int {
            let folder = "/proc/self/fd"
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            return entries.filter { entry in
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(entry)")) == target
            }.count
        }
    #endif
}
