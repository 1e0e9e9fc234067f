import Foundation
import Testing

@testable import SQLiteToolkit

/// Set-up hooks that close, reopen, read or write the queue or pool whose connection they set up: user code that runs
/// while a read holds its new reader, or while a reopen is under way.
extension LifecycleAdversarialTests {
    // FAILS: a reader's set-up hook runs (in `connection(of:)`) before the read enters ThreadAccesses, so close()
    // there counts as outside any access and waits, in ReaderCheckout.close(waitingForReads: true), for the reader
    // its own thread holds.
    @Test("a pool closed from a reader's set-up hook does not wait for the read that opens that reader")
    func closeFromReaderSetUp() throws {
        try TemporaryFile.withDatabasePath { path in
            let box = Locked<DatabasePool?>(nil)
            // The writer's hook runs in init, before the box holds the pool: only the readers' hooks close it.
            let pool = try DatabasePool(path: path) { _ in box.current?.close() }
            box.withLock { $0 = pool }
            let read = runOnThreadInBackground { try pool.read { _ in 1 } }
            #expect(wait(read.done, seconds: Self.deadlock), "a read whose reader's hook closed the pool hangs")
        }
    }

    // FAILS: same root cause: a barrier write from a reader's set-up hook passes the re-entry check (the thread is
    // not recorded as inside an access yet) and waits forever in beginBarrier() for the reader its thread holds.
    @Test("a barrier write from a reader's set-up hook throws reentrantAccess instead of waiting for itself")
    func barrierWriteFromReaderSetUp() throws {
        try TemporaryFile.withDatabasePath { path in
            let box = Locked<DatabasePool?>(nil)
            let pool = try DatabasePool(path: path) { _ in
                if let pool = box.current { try pool.barrierWrite { _ in } }
            }
            box.withLock { $0 = pool }
            let read = runOnThreadInBackground { try pool.read { _ in 1 } }
            #expect(wait(read.done, seconds: Self.deadlock), "the barrier write waits for its own thread's reader")
            if let result = read.result() {
                let error = try #require(throws: DatabaseError.self) { try result.get() }
                #expect(error.reason == .reentrantAccess)
            }
        }
    }

    // FAILS: reopen() runs the set-up hook while the lifecycle is `reopening`, and a close() outside any access
    // waits in ConnectionLifecycle for the reopen under way, which is its own thread's.
    @Test("a queue closed from its set-up hook during reopen() does not wait for that reopen")
    func closeFromSetUpDuringReopen() throws {
        let box = Locked<DatabaseQueue?>(nil)
        let queue = try DatabaseQueue { _ in box.current?.close() }
        queue.close()
        box.withLock { $0 = queue }
        let reopener = runOnThreadInBackground { try queue.reopen() }
        #expect(wait(reopener.done, seconds: Self.deadlock), "reopen() whose set-up hook closes the queue hangs")
    }

    // FAILS: same root cause as closeFromReaderSetUp: a read from a reader's set-up hook is not seen as re-entrant,
    // and at the reader limit it waits for the reader its own thread holds until the reader timeout.
    @Test("a read from a reader's set-up hook throws reentrantAccess at once")
    func readFromReaderSetUp() throws {
        try TemporaryFile.withDatabasePath { path in
            let box = Locked<DatabasePool?>(nil)
            let pool = try DatabasePool(path: path, maximumReaderCount: 1, readerTimeout: 1) { _ in
                if let pool = box.current { try pool.read { _ in } }
            }
            box.withLock { $0 = pool }
            let error = try #require(throws: DatabaseError.self) { try pool.read { _ in 1 } }
            #expect(error.reason == .reentrantAccess)
        }
    }

    // FAILS: same root cause as closeFromSetUpDuringReopen: the pool's lifecycle is `reopening` while the writer's
    // set-up hook runs, and a close() there waits for the reopen that called the hook.
    @Test("a pool closed from the writer's set-up hook during reopen() does not wait for that reopen")
    func closePoolFromSetUpDuringReopen() throws {
        try TemporaryFile.withDatabasePath { path in
            let box = Locked<DatabasePool?>(nil)
            let pool = try DatabasePool(path: path) { _ in box.current?.close() }
            pool.close()
            box.withLock { $0 = pool }
            let reopener = runOnThreadInBackground { try pool.reopen() }
            #expect(wait(reopener.done, seconds: Self.deadlock), "reopen() whose set-up hook closes the pool hangs")
        }
    }
}
