import Foundation
import Testing

@testable import SQLiteToolkit

/// Set-up hooks that close, reopen, read or write the queue or pool whose connection they set up: user code that runs
/// while a read holds its new reader, or while a reopen is under way.
extension LifecycleAdversarialTests {
    @Test("a pool closed from a reader's set-up hook does not wait for the read that opens that reader")
    func closeFromReaderSetUp() throws {
        try TemporaryFile.withDatabasePath { path in
            let box = Locked<DatabasePool?>(nil)
            // The writer's hook runs in init, before the box holds the pool: only the readers' hooks close it.
            let pool = try DatabasePool(path: path) { _ in box.current?.close() }
            box.withLock { $0 = pool }
            // The hook holds the box, and the box the pool: let go of it, or the two keep each other.
            defer { box.withLock { $0 = nil } }
            let read = runOnThreadInBackground { try pool.read { _ in 1 } }
            #expect(wait(read.done, seconds: Self.deadlock), "a read whose reader's hook closed the pool hangs")
        }
    }

    @Test("a barrier write from a reader's set-up hook throws reentrantAccess instead of waiting for itself")
    func barrierWriteFromReaderSetUp() throws {
        try TemporaryFile.withDatabasePath { path in
            let box = Locked<DatabasePool?>(nil)
            let pool = try DatabasePool(path: path) { _ in
                if let pool = box.current { try pool.barrierWrite { _ in } }
            }
            box.withLock { $0 = pool }
            // The hook holds the box, and the box the pool: let go of it, or the two keep each other.
            defer { box.withLock { $0 = nil } }
            let read = runOnThreadInBackground { try pool.read { _ in 1 } }
            #expect(wait(read.done, seconds: Self.deadlock), "the barrier write waits for its own thread's reader")
            if let result = read.result() {
                let error = try #require(throws: DatabaseError.self) { try result.get() }
                #expect(error.reason == .reentrantAccess)
            }
        }
    }

    @Test("a queue closed from its set-up hook during reopen() does not wait for that reopen")
    func closeFromSetUpDuringReopen() throws {
        let box = Locked<DatabaseQueue?>(nil)
        let queue = try DatabaseQueue { _ in box.current?.close() }
        queue.close()
        box.withLock { $0 = queue }
        // The hook holds the box, and the box the queue: let go of it, or the two keep each other.
        defer { box.withLock { $0 = nil } }
        let reopener = runOnThreadInBackground { try queue.reopen() }
        #expect(wait(reopener.done, seconds: Self.deadlock), "reopen() whose set-up hook closes the queue hangs")
    }

    @Test("a read from a reader's set-up hook throws reentrantAccess at once")
    func readFromReaderSetUp() throws {
        try TemporaryFile.withDatabasePath { path in
            let box = Locked<DatabasePool?>(nil)
            let pool = try DatabasePool(path: path, maximumReaderCount: 1, readerTimeout: 1) { _ in
                if let pool = box.current { try pool.read { _ in } }
            }
            box.withLock { $0 = pool }
            // The hook holds the box, and the box the pool: let go of it, or the two keep each other.
            defer { box.withLock { $0 = nil } }
            let error = try #require(throws: DatabaseError.self) { try pool.read { _ in 1 } }
            #expect(error.reason == .reentrantAccess)
        }
    }

    @Test("a pool closed from the writer's set-up hook during reopen() does not wait for that reopen")
    func closePoolFromSetUpDuringReopen() throws {
        try TemporaryFile.withDatabasePath { path in
            let box = Locked<DatabasePool?>(nil)
            let pool = try DatabasePool(path: path) { _ in box.current?.close() }
            pool.close()
            box.withLock { $0 = pool }
            // The hook holds the box, and the box the pool: let go of it, or the two keep each other.
            defer { box.withLock { $0 = nil } }
            let reopener = runOnThreadInBackground { try pool.reopen() }
            #expect(wait(reopener.done, seconds: Self.deadlock), "reopen() whose set-up hook closes the pool hangs")
        }
    }
}
