import Foundation
import Testing

@testable import SQLiteToolkit

/// Forwards a closure its caller does not let escape to an async read: this compiles because the async accesses
/// take their closure without `@escaping`, as the blocking ones do.
private func forwardedRead(
    _ reader: some DatabaseReader,
    _ body: @Sendable (Database) throws -> Int
) async throws -> Int {
    try await reader.read(body)
}

/// ``forwardedRead(_:_:)`` for a write.
private func forwardedWrite(
    _ writer: some DatabaseWriter,
    _ body: @Sendable (Database) throws -> Int
) async throws -> Int {
    try await writer.write(body)
}

@Suite("Async accesses take closures that do not escape", .timeLimit(.minutes(2)))
struct AsyncAccessClosureTests {
    private func makeCounted(_ writer: some DatabaseWriter) throws {
        try writer.writeWithoutTransaction { db in
            try db.executeScript("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2), (3)")
        }
    }

    private static func count(_ db: Database) throws -> Int {
        try db.queryRequiredValue("SELECT count(*) FROM t", as: Int.self)
    }

    @Test("a queue's async read runs a forwarded closure in place, and after waiting for the connection")
    func queueInPlaceAndWaiting() async throws {
        let queue = try DatabaseQueue(path: nil)
        try makeCounted(queue)
        #expect(try await forwardedRead(queue) { db in try Self.count(db) } == 3)

        // The connection held by a blocking access on another thread: the async read waits on the queue's dispatch
        // queue (where the task starts before the release; on Linux a plain task may start after it, and run in
        // place).
        let release = try await holdAccess { inside in try queue.inDatabase { _ in inside() } }
        let waiting = startImmediately { try await forwardedRead(queue) { db in try Self.count(db) } }
        release.signal()
        #expect(try await waiting.value == 3)
    }

    @Test("a pool's async write, which always runs on the writer's queue, runs a forwarded closure")
    func poolWriteElsewhere() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path)
            try makeCounted(pool)
            let inserted = try await forwardedWrite(pool) { db in
                try db.execute("INSERT INTO t VALUES (4)")
                return try Self.count(db)
            }
            #expect(inserted == 4)
            #expect(try await forwardedRead(pool) { db in try Self.count(db) } == 4)
            pool.close()
        }
    }

    @Test("an async read that waits for a reader, then times out, lets go of its closure before it throws")
    func waitingReadTimesOut() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path, maximumReaderCount: 1, readerTimeout: 0.2)
            try makeCounted(pool)
            let release = try await holdReader(of: pool)
            defer { release.signal() }
            let ran = Locked(false)
            // The read lends its closure to the dispatch queue where it waits, and takes it back before it resumes:
            // in a debug build, `withoutActuallyEscaping` stops the process ("closure argument was escaped") when
            // anything still holds the closure at that point.
            let error = await #expect(throws: DatabaseError.self) {
                try await forwardedRead(pool) { db in
                    ran.withLock { $0 = true }
                    return try Self.count(db)
                }
            }
            #expect(error?.reason == .readerTimeout)
            #expect(!ran.current)
        }
    }

    @Test("an async read cancelled while it waits for a reader does not run, and the pool stays usable")
    func waitingReadCancelled() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path, maximumReaderCount: 1)
            try makeCounted(pool)
            let release = try await holdReader(of: pool)
            let ran = Locked(false)
            let waiting = startImmediately {
                try await pool.read { db in
                    ran.withLock { $0 = true }
                    return try Self.count(db)
                }
            }
            waiting.cancel()
            release.signal()
            await #expect(throws: CancellationError.self) { try await waiting.value }
            #expect(!ran.current)
            #expect(try await forwardedRead(pool) { db in try Self.count(db) } == 3)
            pool.close()
        }
    }
}
