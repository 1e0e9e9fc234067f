import Foundation
import Testing

@testable import SQLiteToolkit

/// Key changes on a queue and a pool: on the one writing connection, alone, with the set-up hook run again, and the
/// new key given to every connection opened later.
@Suite("Key changes of queues and pools")
struct QueuePoolKeyChangeTests {
    static let oldKey = DatabaseKey.passphrase("old passphrase")
    static let newKey = DatabaseKey.passphrase("new passphrase")

    static func configuration(key: DatabaseKey?) -> Database.Configuration {
        var configuration = Database.Configuration()
        configuration.key = key
        return configuration
    }

    /// Registers the function the tests call, as apps register theirs.
    static let setUp: @Sendable (Database) throws -> Void = { db in
        try db.createFunction("greet") { (name: String) in "Hello, \(name)" }
    }

    /// Whether a plain connection opens the file with `key` and reads it.
    static func opens(_ path: String, key: DatabaseKey?) -> Bool {
        guard let db = try? Database(path: path, configuration: configuration(key: key)) else { return false }
        defer { db.close() }
        return (try? db.queryValue("SELECT count(*) FROM t", as: Int.self)) != nil
    }

    @Test("a queue whose set-up hook registers a function changes its key; the function and the data survive")
    func queueChangesKey() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let queue = try DatabaseQueue(
                path: path, configuration: Self.configuration(key: Self.oldKey), setUp: Self.setUp)
            try await queue.write { db in try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('Ada')") }
            try await queue.changeKey(to: Self.newKey)
            #expect(
                try await queue.read { db in try db.queryValue("SELECT greet(x) FROM t", as: String.self) }
                    == "Hello, Ada")
            #expect(queue.configuration.key == Self.newKey)
            // A reopen uses the new key; the file opens with it and not with the old one.
            queue.close()
            try queue.reopen()
            #expect(
                try await queue.read { db in try db.queryValue("SELECT greet(x) FROM t", as: String.self) }
                    == "Hello, Ada")
            queue.close()
            #expect(Self.opens(path, key: Self.newKey))
            #expect(!Self.opens(path, key: Self.oldKey))
        }
    }

    @Test("a queue encrypts and decrypts its database, async, and keeps working in between")
    func queueEncryptsAndDecrypts() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let queue = try DatabaseQueue(path: path, setUp: Self.setUp)
            try await queue.write { db in try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('Bo')") }
            try await queue.encrypt(with: Self.newKey)
            #expect(try Database.isPlainDatabase(atPath: path) == false)
            #expect(
                try await queue.read { db in try db.queryValue("SELECT greet(x) FROM t", as: String.self) }
                    == "Hello, Bo")
            try await queue.decrypt()
            #expect(try Database.isPlainDatabase(atPath: path))
            queue.close()
            try queue.reopen()
            #expect(try await queue.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 1)
        }
    }

    @Test("a queue whose set-up hook sets the key refuses a key change, and nothing changes")
    func hookKeyRefused() throws {
        try TemporaryFile.withDatabasePath { path in
            var configuration = Database.Configuration()
            configuration.checksHeaderAtOpen = false
            let queue = try DatabaseQueue(path: path, configuration: configuration) { db in try db.setKey(Self.oldKey) }
            try queue.write { db in try db.execute("CREATE TABLE t(x)") }
            let error = try #require(throws: DatabaseError.self) { try queue.changeKey(to: Self.newKey) }
            #expect(error.reason == .keyChangeLosesConnectionState)
            #expect(error.message.contains("Configuration.key"))
            #expect(try queue.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 0)
            queue.close()
            #expect(Self.opens(path, key: Self.oldKey))
        }
    }

    @Test("a pool changes its key: readers reopen with it, the hook's function works on them, observers carry on")
    func poolChangesKey() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(
                path: path, configuration: Self.configuration(key: Self.oldKey), setUp: Self.setUp)
            try await pool.write { db in try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('Cy')") }
            // Readers open before the change, and a snapshot.
            #expect(
                try await pool.read { db in try db.queryValue("SELECT greet(x) FROM t", as: String.self) }
                    == "Hello, Cy")
            let snapshot = try pool.makeSnapshot()
            let values = pool.observe(tables: ["t"]) { db in
                try db.queryValue("SELECT count(*) FROM t", as: Int.self) ?? 0
            }
            var iterator = values.makeAsyncIterator()
            #expect(try await iterator.next() == 1)

            try await pool.changeKey(to: Self.newKey)
            #expect(!snapshot.isOpen)
            #expect(
                try await pool.read { db in try db.queryValue("SELECT greet(x) FROM t", as: String.self) }
                    == "Hello, Cy")
            try await pool.write { db in try db.execute("INSERT INTO t VALUES ('Di')") }
            #expect(try await iterator.next() == 2)
            #expect(
                try await pool.makeSnapshot().read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) }
                    == 2)
            pool.close()
            #expect(Self.opens(path, key: Self.newKey))
            #expect(!Self.opens(path, key: Self.oldKey))
            try pool.reopen()
            #expect(try await pool.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 2)
        }
    }

    @Test("a pool's key change waits for the read in progress, then runs")
    func poolKeyChangeWaitsForReads() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path, configuration: Self.configuration(key: Self.oldKey))
            try await pool.write { db in try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
            let release = try await holdReader(of: pool)
            let change = runOnThreadInBackground { try pool.changeKey(to: Self.newKey) }
            // The change waits: it stands as a barrier, and the read keeps its reader.
            #expect(await waitUntil { pool.readers.inUseCount > 0 })
            try await Task.sleep(nanoseconds: 20_000_000)
            #expect(change.result() == nil)
            release.signal()
            #expect(wait(change.done))
            #expect(throws: Never.self) { try change.result()?.get() }
            #expect(try await pool.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 1)
        }
    }

    @Test("a pool encrypts a plain database and decrypts it again")
    func poolEncryptsAndDecrypts() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path, setUp: Self.setUp)
            try pool.write { db in try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('Ed')") }
            try pool.encrypt(with: Self.newKey)
            #expect(try pool.read { db in try db.queryValue("SELECT greet(x) FROM t", as: String.self) } == "Hello, Ed")
            #expect(try Database.isPlainDatabase(atPath: path) == false)
            try pool.decrypt()
            #expect(try pool.read { db in try db.queryValue("SELECT greet(x) FROM t", as: String.self) } == "Hello, Ed")
            pool.close()
            #expect(try Database.isPlainDatabase(atPath: path))
        }
    }

    @Test("a key change inside an access to the same pool or queue throws the re-entry error")
    func keyChangeInsideAccess() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path, configuration: Self.configuration(key: Self.oldKey))
            let error = try #require(throws: DatabaseError.self) {
                try pool.read { _ in try pool.changeKey(to: Self.newKey) }
            }
            #expect(error.reason == .reentrantAccess)
            let queue = try DatabaseQueue()
            let queueError = try #require(throws: DatabaseError.self) {
                try queue.inDatabase { _ in try queue.encrypt(with: Self.newKey) }
            }
            #expect(queueError.reason == .reentrantAccess)
        }
    }
}
