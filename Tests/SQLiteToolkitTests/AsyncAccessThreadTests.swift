import Foundation
import Testing

@testable import SQLiteToolkit

@Suite("Async accesses never hold every thread of Swift's cooperative pool", .timeLimit(.minutes(3)))
struct AsyncAccessThreadTests {
    /// Swift's cooperative pool has one thread per active core. More long async accesses than that, all run in
    /// place on the tasks' threads or on concurrent dispatch queues (which share those threads on Linux), would hold
    /// every thread of the pool: this test's own task could not run, and neither could the tasks that cancel them.
    /// A watchdog on a thread of its own cancels them after a minute, so that case fails here instead of hanging.
    @Test("long async accesses, more than the cooperative pool has threads, leave its threads free to cancel them")
    func longAccessesLeaveCooperativeThreadsFree() async throws {
        let width = max(2, ProcessInfo.processInfo.activeProcessorCount)
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path, maximumReaderCount: width)
            let queues = try (0..<width).map { _ in try DatabaseQueue(path: nil) }
            var flags: [Locked<Bool>] = []
            var tasks: [Task<Int?, any Error>] = []
            for queue in queues {
                let started = Locked(false)
                flags.append(started)
                tasks.append(Task { try await queue.read { db in try countToABillion(db, signalling: started) } })
            }
            for _ in 0..<width {
                let started = Locked(false)
                flags.append(started)
                tasks.append(Task { try await pool.read { db in try countToABillion(db, signalling: started) } })
            }
            let writeStarted = Locked(false)
            flags.append(writeStarted)
            tasks.append(
                Task {
                    try await pool.writeWithoutTransaction { db in try countToABillion(db, signalling: writeStarted) }
                }
            )

            let watchdogFired = Locked(false)
            let testEnded = DispatchSemaphore(value: 0)
            Thread { [tasks] in
                guard testEnded.wait(timeout: .now() + 60) == .timedOut else { return }
                watchdogFired.withLock { $0 = true }
                for task in tasks { task.cancel() }
            }.start()
            defer { testEnded.signal() }

            // This loop runs on a cooperative thread while every access runs.
            while !flags.allSatisfy(\.current) && !watchdogFired.current {
                try await Task.sleep(nanoseconds: 5_000_000)
            }
            #expect(!watchdogFired.current, "the accesses held every cooperative thread until the watchdog fired")
            let startedCount = flags.filter(\.current).count
            #expect(startedCount == flags.count)
            for task in tasks { task.cancel() }
            for task in tasks {
                let result = await task.result
                let error = try #require(throws: DatabaseError.self) { try result.get() }
                #expect(error.isInterrupted)
            }
            #expect(try await pool.read { db in try db.queryValue("SELECT 1", as: Int.self) } == 1)
            #expect(try await queues[0].read { db in try db.queryValue("SELECT 1", as: Int.self) } == 1)
            pool.close()
        }
    }

    @Test("the in-place gate admits up to its limit, one fewer than the cores, and none with one core")
    func gateLimit() {
        let gate = InPlaceAccessGate(limit: 2)
        #expect(gate.tryEnter())
        #expect(gate.tryEnter())
        #expect(!gate.tryEnter())
        gate.leave()
        #expect(gate.tryEnter())
        #expect(!InPlaceAccessGate(limit: 0).tryEnter())
        #expect(!InPlaceAccessGate(limit: -1).tryEnter())
        #expect(InPlaceAccessGate.shared.limit == ProcessInfo.processInfo.activeProcessorCount - 1)
    }

    @Test("in an async function an awaited access is the async overload: a task cancelled first never runs it")
    func awaitedAccessIsAsyncOverload() async throws {
        let queue = try DatabaseQueue()
        let task = Task { () async throws -> Int in
            withUnsafeCurrentTask { $0?.cancel() }
            // The blocking overload would run the closure and return 1; the async one refuses a cancelled task.
            return try await queue.write { _ in 1 }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
