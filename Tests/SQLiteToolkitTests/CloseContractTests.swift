import Foundation
import SQLiteToolkit
import Testing

/// One contract for `close()` on a connection, a queue and a pool: it cannot fail, so it does not throw; closing
/// twice does nothing; called from inside the thing it closes, it closes when that ends.
@Suite("close(): one contract for Database, DatabaseQueue and DatabasePool")
struct CloseContractTests {
    @Test("close() needs no try on any of the three, and closing twice does nothing")
    func closeDoesNotThrow() throws {
        try TemporaryFile.withDatabasePath { path in
            let db = try Database(path: path)
            db.close()
            db.close()
            #expect(!db.isOpen)
            let queue = try DatabaseQueue(path: path)
            queue.close()
            queue.close()
            #expect(!queue.isOpen)
            let pool = try DatabasePool(path: path)
            pool.close()
            pool.close()
            #expect(!pool.isOpen)
        }
    }

    @Test("close() inside a queue's access closes the queue when the access ends, instead of throwing")
    func queueCloseInsideAccess() throws {
        let queue = try DatabaseQueue()
        let count = try queue.write { db in
            try db.execute("CREATE TABLE t (x)")
            queue.close()
            #expect(!queue.isOpen)
            // The access goes on with its connection until it returns, and its transaction commits.
            try db.execute("INSERT INTO t VALUES (1)")
            return try db.queryValue("SELECT count(*) FROM t", as: Int.self)
        }
        #expect(count == 1)
        #expect(!queue.isOpen)
        let error = try #require(throws: DatabaseError.self) { try queue.read { _ in } }
        #expect(error.reason == .accessAfterClose)
        try queue.reopen()
        #expect(queue.isOpen)
    }

    @Test("close() inside a pool's read or write closes the pool when the access ends, instead of throwing")
    func poolCloseInsideAccess() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path)
            try pool.write { db in
                try db.execute("CREATE TABLE t (x)")
                pool.close()
                #expect(!pool.isOpen)
                try db.execute("INSERT INTO t VALUES (1)")
            }
            #expect(throws: DatabaseError.self) { try pool.write { _ in } }
            try pool.reopen()
            let count = try pool.read { db in
                pool.close()
                return try db.queryValue("SELECT count(*) FROM t", as: Int.self)
            }
            #expect(count == 1)
            #expect(pool.readerCount == 0)
            let error = try #require(throws: DatabaseError.self) { try pool.read { _ in } }
            #expect(error.reason == .accessAfterClose)
        }
    }
}

@Suite("Opening a file that is not a database")
struct NotADatabaseOpenTests {
    @Test("a queue or pool on a text file throws notADatabase naming the path; a key set by the hook still works")
    func queueAndPool() throws {
        try TemporaryFile.withDatabasePath { path in
            try Data("just some text\n".utf8).write(to: URL(fileURLWithPath: path))
            let queueError = try #require(throws: DatabaseError.self) { try DatabaseQueue(path: path) }
            #expect(queueError.reason == .notADatabase)
            #expect(queueError.path == path)
            let hookError = try #require(throws: DatabaseError.self) {
                try DatabaseQueue(path: path) { db in try db.execute("PRAGMA user_version = 1") }
            }
            #expect(hookError.reason == .notADatabase)
            let poolError = try #require(throws: DatabaseError.self) { try DatabasePool(path: path) }
            #expect(poolError.reason == .notADatabase)
            #expect(poolError.path == path)
        }
        try TemporaryFile.withDatabasePath { path in
            let key = DatabaseKey.passphrase("hook key")
            do {
                let queue = try DatabaseQueue(path: path) { db in try db.setKey(key) }
                try queue.write { db in try db.execute("CREATE TABLE t (x)") }
                queue.close()
            }
            // The existing encrypted file reopens with the key set by the hook, not refused by the header check.
            let queue = try DatabaseQueue(path: path) { db in try db.setKey(key) }
            #expect(try queue.read { db in try db.tableExists("t") })
            queue.close()
        }
    }
}
