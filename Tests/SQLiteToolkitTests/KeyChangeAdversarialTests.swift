import Foundation
import Testing

@testable import SQLiteToolkit

#if canImport(Glibc)
    import Glibc
#endif

/// Attacks on the atomic key change: its commit point, the metadata it keeps, the key in its errors, and the docs'
/// statements about attaching and keys. A test marked `FAILS:` shows a defect, one marked `Fixed:` a defect it
/// found that is fixed; the others are attacks that held.
@Suite("Key changes under attack")
struct KeyChangeAdversarialTests {
    /// The hex spelling of `TestKeys.raw` and of `TestKeys.otherRaw`: what an error must never show.
    static let rawHex = String(repeating: "0123456789abcdef", count: 4)
    static let otherRawHex = (0..<32).map { String(format: "%02x", $0) }.joined()

    /// Whether any text the error gives (message, description, SQL, path) holds `secret`, or a URI's `key=` or
    /// `hexkey=` parameter with a value (how the copy is given its key: a raw key is the hex of its `x'...'` text).
    static func reveals(_ error: DatabaseError, _ secret: String) -> Bool {
        let texts = [error.message, error.description, "\(error)", error.sql ?? "", error.path ?? ""]
        return texts.contains { text in
            text.lowercased().contains(secret.lowercased())
                || text.range(of: "[?&](hex)?key=[^&\\s]", options: .regularExpression) != nil
        }
    }

    /// An encrypted (TestKeys.raw) database at `path` with three rows in `t`, in `journalMode`.
    static func makeEncrypted(_ path: String, journalMode: String = "delete") throws {
        let db = try openEncrypted(path, key: TestKeys.raw)
        try db.execute("PRAGMA journal_mode = \(journalMode)")
        try db.execute("CREATE TABLE t(x)")
        try db.execute("INSERT INTO t VALUES (1), (2), (3)")
    }

    /// A path at `directory` whose length is `length` bytes: SQLite opens it, but not the same path with
    /// `-sqltk-rekey` after it (its longest path is 512 bytes; Linux takes 4096).
    static func longPath(in directory: String, length: Int) throws -> String {
        var path = directory
        while path.utf8.count + 1 + 200 + 1 < length {
            path += "/" + String(repeating: "d", count: 200)
        }
        let lastDirectoryLength = length - path.utf8.count - 1 - 1 - "x.db".utf8.count
        if lastDirectoryLength > 0 { path += "/" + String(repeating: "e", count: lastDirectoryLength) }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        path += "/x.db"
        return path
    }

    // MARK: - Keys in errors

    // Fixed: VACUUM INTO attaches the URI `file:...?hexkey=<key>`, and SQLite's ATTACH error is "unable to open
    //  database: <that URI>": the key's hex was in the message (export and every key change share writeCopy).
    @Test("export(to:key:) into a missing directory: the error does not show the key")
    func exportErrorHidesKey() throws {
        try TemporaryFile.withDatabasePath { path in
            let db = try Database(path: path)
            try db.execute("CREATE TABLE t(x)")
            let target = path + ".missing/copy.db"
            let error = try #require(throws: DatabaseError.self) { try db.export(to: target, key: TestKeys.raw) }
            #expect(!Self.reveals(error, Self.rawHex), "\(error)")
            let passphraseError = try #require(throws: DatabaseError.self) {
                try db.export(to: target, key: .passphrase("hunter2"))
            }
            let passphraseHex = Array("hunter2".utf8).map { String(format: "%02x", $0) }.joined()
            #expect(!Self.reveals(passphraseError, passphraseHex), "\(passphraseError)")
        }
    }

    @Test("a key change whose copy SQLite cannot open: the error does not show the new key, and nothing changed")
    func keyChangeErrorHidesKeyAndChangesNothing() throws {
        try TemporaryFile.withDatabasePath { base in
            let path = try Self.longPath(in: base + ".dir", length: 502)
            defer { try? FileManager.default.removeItem(atPath: base + ".dir") }
            try Self.makeEncrypted(path)
            let db = try openEncrypted(path, key: TestKeys.raw)
            let error = try #require(throws: DatabaseError.self) { try db.changeKey(to: TestKeys.otherRaw) }
            #expect(!Self.reveals(error, Self.otherRawHex), "\(error)")
            #expect(error.reason != .keyChangedButReopenFailed && error.reason != .keyChangedButNotDurable)
            // Before the commit point: old key, usable connection, no leftover.
            #expect(db.isOpen)
            #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 3)
            try db.execute("INSERT INTO t VALUES (4)")
            #expect(!FileManager.default.fileExists(atPath: path + "-sqltk-rekey"))
            db.close()
            let reopened = try openEncrypted(path, key: TestKeys.raw)
            #expect(try reopened.queryValue("SELECT count(*) FROM t", as: Int.self) == 4)
        }
    }

    @Test("after the commit point the errors say the new key is in effect and never show it")
    func commitPointErrorsHideKey() throws {
        try TemporaryFile.withDatabasePath { path in
            try Self.makeEncrypted(path)
            let db = try openEncrypted(path, key: TestKeys.raw)
            struct HookFailure: Error {}
            let error = try #require(throws: DatabaseError.self) {
                try db.changeKey(to: TestKeys.otherRaw, cipher: nil) { _ in throw HookFailure() }
            }
            #expect(error.reason == .keyChangedButReopenFailed)
            #expect(error.message.contains("the new key is now the database's key"))
            #expect(!Self.reveals(error, Self.otherRawHex))
            #expect(!Self.reveals(error, Self.rawHex))
            #expect(!db.isOpen)
            #expect(db.isEncrypted)
        }
    }

    // MARK: - The commit point

    @Test("a reopen that keeps failing throws the typed reason each time, then recovers; no leftover copy")
    func reopenFailsThenRecovers() throws {
        try TemporaryFile.withDatabasePath { path in
            try Self.makeEncrypted(path, journalMode: "wal")
            let db = try openEncrypted(path, key: TestKeys.raw)
            let failures = Countdown(2)
            struct HookFailure: Error {}
            let first = try #require(throws: DatabaseError.self) {
                try db.decrypt(reopeningWith: { _ in
                    if failures.next() { throw HookFailure() }
                })
            }
            #expect(first.reason == .keyChangedButReopenFailed)
            #expect(first.message.contains("none, the file is plain"))
            #expect(!db.isEncrypted)
            let second = try #require(throws: DatabaseError.self) { try db.execute("SELECT 1") }
            #expect(second.reason == .keyChangedButReopenFailed)
            #expect(!db.isOpen)
            #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 3)
            #expect(db.isOpen)
            #expect(try db.queryValue("PRAGMA journal_mode", as: String.self) == "wal")
            #expect(!FileManager.default.fileExists(atPath: path + "-sqltk-rekey"))
            #expect(try Database.isPlainDatabase(atPath: path))
            // The next change works from there.
            try db.encrypt(with: TestKeys.otherRaw)
            db.close()
            let reopened = try openEncrypted(path, key: TestKeys.otherRaw, cipher: .default)
            #expect(try reopened.queryValue("SELECT count(*) FROM t", as: Int.self) == 3)
        }
    }

    @Test("a leftover copy, its WAL and its journal from another database do not leak into the next change")
    func leftoversOfAnotherDatabase() throws {
        try TemporaryFile.withDatabasePath { path in
            try Self.makeEncrypted(path, journalMode: "wal")
            let leftover = path + "-sqltk-rekey"
            // A WAL with committed frames of another database encrypted with the same new key.
            do {
                let other = try openEncrypted(leftover, key: TestKeys.otherRaw, cipher: .default)
                try other.execute("PRAGMA journal_mode = wal")
                try other.execute("PRAGMA wal_autocheckpoint = 0")
                try other.execute("CREATE TABLE t(x)")
                try other.execute("INSERT INTO t VALUES ('stale')")
                try other.execute("CREATE TABLE stale(y)")
                let wal = try Data(contentsOf: URL(fileURLWithPath: leftover + "-wal"))
                other.close()
                try wal.write(to: URL(fileURLWithPath: leftover + "-wal"))
                try wal.write(to: URL(fileURLWithPath: leftover + "-journal"))
            }
            let db = try openEncrypted(path, key: TestKeys.raw)
            try db.changeKey(to: TestKeys.otherRaw, cipher: .default)
            #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 3)
            #expect(try !db.tableExists("stale"))
            #expect(try db.queryValue("PRAGMA integrity_check", as: String.self) == "ok")
            db.close()
            for suffix in ["", "-wal", "-shm"] {
                #expect(!FileManager.default.fileExists(atPath: leftover + suffix), "\(suffix)")
            }
            // The leftover journal of the copy's name stays: a later key change must not roll it into a copy.
            let reopened = try openEncrypted(path, key: TestKeys.otherRaw, cipher: .default)
            try reopened.changeKey(to: TestKeys.raw, cipher: TestKeys.fastChaCha20)
            #expect(try reopened.queryValue("SELECT count(*) FROM t", as: Int.self) == 3)
            #expect(try !reopened.tableExists("stale"))
        }
    }

    // Fixed: AtomicFileReplacement.discard() was FileManager.removeItem, which removes a directory recursively.
    @Test("a directory named like the copy is not deleted with its contents")
    func directoryNamedLikeCopySurvives() throws {
        try TemporaryFile.withDatabasePath { path in
            try Self.makeEncrypted(path)
            let directory = path + "-sqltk-rekey"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            let precious = directory + "/precious.txt"
            #expect(FileManager.default.createFile(atPath: precious, contents: Data("keep me".utf8)))
            let db = try openEncrypted(path, key: TestKeys.raw)
            _ = try? db.changeKey(to: TestKeys.otherRaw)
            #expect(FileManager.default.fileExists(atPath: precious))
            #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 3)
        }
    }

    // Fixed: checkReopenable looks at cursors, sessions, attachments, temp tables, functions and hooks but not at
    //  per-connection pragmas: secure_delete, foreign_keys set by hand, locking_mode, synchronous were silently back
    //  to their defaults after the reopen; the key change reads them before and sets them again after now.
    @Test("what the connection set with a PRAGMA survives the reopen, or the change is refused")
    func connectionPragmasSurviveOrRefuse() throws {
        try TemporaryFile.withDatabasePath { path in
            try Self.makeEncrypted(path)
            let db = try openEncrypted(path, key: TestKeys.raw)
            let foreignKeys = try #require(try db.queryValue("PRAGMA foreign_keys", as: Int.self))
            try db.execute("PRAGMA foreign_keys = \(1 - foreignKeys)")
            try db.execute("PRAGMA busy_timeout = 4321")
            try db.execute("PRAGMA synchronous = EXTRA")
            do {
                try db.changeKey(to: TestKeys.otherRaw)
            } catch let error as DatabaseError where error.reason == .keyChangeLosesConnectionState {
                return
            }
            let foreignKeysAfter = try db.queryValue("PRAGMA foreign_keys", as: Int.self)
            let synchronous = try db.queryValue("PRAGMA synchronous", as: Int.self)
            let busyTimeout = try db.queryValue("PRAGMA busy_timeout", as: Int.self)
            #expect(foreignKeysAfter == 1 - foreignKeys)
            #expect(synchronous == 3)
            #expect(busyTimeout == 4321)
        }
    }

    // Held: VACUUM INTO writes nothing under query_only, so the change fails before the commit point.
    @Test("a query_only connection: the key change is refused, or the connection stays query_only")
    func queryOnlyConnection() throws {
        try TemporaryFile.withDatabasePath { path in
            try Self.makeEncrypted(path)
            let db = try openEncrypted(path, key: TestKeys.raw)
            try db.execute("PRAGMA query_only = ON")
            var refused = false
            do {
                try db.changeKey(to: TestKeys.otherRaw)
            } catch let error as DatabaseError {
                refused = true
                #expect(error.reason != .keyChangedButReopenFailed && error.reason != .keyChangedButNotDurable)
            }
            let queryOnly = try db.queryValue("PRAGMA query_only", as: Int.self)
            #expect(refused || queryOnly == 1)
            #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (4)") }
        }
    }

    // Fixed: a connection opened with isReadOnly (SQLITE_OPEN_READONLY) changed the file's key: nothing checked
    //  sqlite3_db_readonly.
    @Test("a read-only connection cannot change the key: refused before the commit point, the file unchanged")
    func readOnlyConnection() throws {
        try TemporaryFile.withDatabasePath { path in
            try Self.makeEncrypted(path)
            var configuration = Database.Configuration()
            configuration.key = TestKeys.raw
            configuration.cipher = TestKeys.fastChaCha20
            configuration.isReadOnly = true
            let db = try Database(path: path, configuration: configuration)
            var refusal: DatabaseError?
            do {
                try db.decrypt()
            } catch let error as DatabaseError {
                refusal = error
            }
            #expect(refusal?.reason != .keyChangedButReopenFailed && refusal?.reason != .keyChangedButNotDurable)
            #expect(db.isOpen)
            #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 3)
            db.close()
            #expect(!FileManager.default.fileExists(atPath: path + "-sqltk-rekey"))
            let fileIsPlain = try Database.isPlainDatabase(atPath: path)
            #expect(refusal?.reason == .keyChangeOnReadOnlyConnection)
            #expect(!fileIsPlain)
        }
    }

    // Fixed: releaseExclusiveAccess set locking_mode = NORMAL whatever the connection had.
    @Test("a failed key change leaves the connection's own locking_mode = EXCLUSIVE")
    func failedChangeKeepsExclusiveLocking() throws {
        try TemporaryFile.withDatabasePath { base in
            let path = try Self.longPath(in: base + ".dir", length: 502)
            defer { try? FileManager.default.removeItem(atPath: base + ".dir") }
            try Self.makeEncrypted(path)
            let db = try openEncrypted(path, key: TestKeys.raw)
            try db.execute("PRAGMA locking_mode = EXCLUSIVE")
            #expect(throws: DatabaseError.self) { try db.changeKey(to: TestKeys.otherRaw) }
            let lockingMode = try db.queryValue("PRAGMA locking_mode", as: String.self)
            #expect(lockingMode == "exclusive")
        }
    }

    // Fixed: matchPageSize ran PRAGMA page_size + VACUUM on the original before the atomic copy, so a failure of
    //  the copy (or Windows' refusal) left a file rewritten with 1024-byte pages; the copy alone gets them now.
    @Test("encrypt with a legacy scheme that fails before the commit point changes nothing, page size included")
    func failedLegacyEncryptKeepsPageSize() throws {
        try TemporaryFile.withDatabasePath { base in
            let path = try Self.longPath(in: base + ".dir", length: 502)
            defer { try? FileManager.default.removeItem(atPath: base + ".dir") }
            do {
                let db = try Database(path: path)
                try db.execute("CREATE TABLE t(x)")
                try db.execute("INSERT INTO t VALUES (1)")
            }
            let db = try Database(path: path)
            let before = try db.queryValue("PRAGMA page_size", as: Int.self)
            #expect(throws: DatabaseError.self) { try db.encrypt(with: TestKeys.raw, cipher: .sqlcipher(version: 3)) }
            #expect(!db.isEncrypted)
            let after = try db.queryValue("PRAGMA page_size", as: Int.self)
            #expect(after == before)
        }
    }

    // Fixed (VACUUM INTO gives the copy the requested page size, WAL or not): in WAL mode matchPageSize's
    //  PRAGMA page_size + VACUUM could not change the page size (SQLite keeps a WAL
    //  database's page size), so the copy kept 4096-byte pages, which SQLCipher 3 cannot read: encrypt(with:
    //  .sqlcipher(version: 3)) of any WAL database failed, before the commit point, with .wrongKeyOrNotADatabase,
    //  "wrong key or cipher" where no key was wrong. Encryption.md says key changes work in WAL mode and that
    //  encrypt gives the file the page size the scheme needs.
    @Test("encrypt with a legacy scheme in WAL mode works and keeps WAL")
    func legacyEncryptInWAL() throws {
        try TemporaryFile.withDatabasePath { path in
            do {
                let db = try Database(path: path)
                try db.execute("PRAGMA journal_mode = wal")
                try db.execute("CREATE TABLE t(x)")
                try db.execute("INSERT INTO t VALUES (1)")
            }
            let db = try Database(path: path)
            var failure: DatabaseError?
            do {
                try db.encrypt(with: TestKeys.raw, cipher: .sqlcipher(version: 3))
            } catch let error as DatabaseError {
                failure = error
            }
            // Whatever happened, it happened before the commit point: plain file, usable connection.
            #expect(failure?.reason != .keyChangedButReopenFailed)
            if failure != nil {
                #expect(try Database.isPlainDatabase(atPath: path))
                #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 1)
            }
            if let failure { throw failure }
            #expect(try db.queryValue("PRAGMA journal_mode", as: String.self) == "wal")
            db.close()
            let reopened = try openEncrypted(path, key: TestKeys.raw, cipher: .sqlcipher(version: 3))
            #expect(try reopened.queryValue("SELECT count(*) FROM t", as: Int.self) == 1)
        }
    }
}

extension KeyChangeAdversarialTests {
    @Test("export of a plain WAL database with a legacy scheme: the copy has 1024-byte pages, the source is unchanged")
    func legacyExportFromWAL() throws {
        try TemporaryFile.withDatabasePath { path in
            let db = try Database(path: path)
            try db.execute("PRAGMA journal_mode = wal")
            try db.execute("CREATE TABLE t(x)")
            try db.execute("INSERT INTO t VALUES (1)")
            try db.export(to: path + ".v3", key: TestKeys.raw, cipher: .sqlcipher(version: 3))
            #expect(try db.queryValue("PRAGMA page_size", as: Int.self) == 4096)
            // The requested size is put back: a later VACUUM keeps the source's pages.
            try db.execute("PRAGMA journal_mode = delete")
            try db.execute("VACUUM")
            #expect(try db.queryValue("PRAGMA page_size", as: Int.self) == 4096)
            let copy = try openEncrypted(path + ".v3", key: TestKeys.raw, cipher: .sqlcipher(version: 3))
            #expect(try copy.queryValue("PRAGMA page_size", as: Int.self) == 1024)
            #expect(try copy.queryValue("SELECT count(*) FROM t", as: Int.self) == 1)
        }
    }
}

/// Counts down: `next()` is `true` the first `count` times.
final class Countdown: @unchecked Sendable {
    private let lock = NSLock()
    private var remaining: Int

    init(_ count: Int) { remaining = count }

    func next() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        remaining -= 1
        return remaining >= 0
    }
}

// MARK: - Databases that are not the file their name says

extension KeyChangeAdversarialTests {
    @Test("an in-memory database of the memdb VFS named like a file on disk: the key change leaves that file alone")
    func memdbNamedLikeFile() throws {
        try TemporaryFile.withDatabasePath { path in
            do {
                let disk = try Database(path: path)
                try disk.execute("CREATE TABLE disk(x)")
                try disk.execute("INSERT INTO disk VALUES ('on disk')")
            }
            let memory: Database
            do {
                memory = try Database(path: "file:\(path)?vfs=memdb")
            } catch {
                // No memdb VFS through the codec: nothing to attack.
                return
            }
            try memory.execute("CREATE TABLE mem(x)")
            try memory.execute("INSERT INTO mem VALUES ('in memory')")
            // The memdb database has no file name (sqlite3_db_filename is empty): re-keyed in place, or refused.
            _ = try? memory.encrypt(with: TestKeys.raw)
            memory.close()
            let disk = try Database(path: path)
            #expect(try disk.tableExists("disk"))
            #expect(try !disk.tableExists("mem"))
        }
    }
}

extension KeyChangeAdversarialTests {
    // Fixed (the reopen opens the file replaced): the copy is renamed over the file SQLite resolved at open
    //  (sqlite3_db_filename: links followed, made absolute), but the connection reopened `path` as given, resolved
    //  again then. When the name leads elsewhere
    //  since the open (a directory link switched, as a deployment switches `current`; the working directory of a
    //  relative path changed), the reopen opened, or created empty, another database with the new key, and the
    //  call returned as if all went well.
    @Test("a key change reopens the file it replaced, even when the name given at open now leads elsewhere")
    func reopensTheFileItReplaced() throws {
        try TemporaryFile.withDatabasePath { base in
            let first = base + ".first"
            let second = base + ".second"
            let current = base + ".current"
            try FileManager.default.createDirectory(atPath: first, withIntermediateDirectories: false)
            try FileManager.default.createDirectory(atPath: second, withIntermediateDirectories: false)
            defer {
                for directory in [first, second, current] { try? FileManager.default.removeItem(atPath: directory) }
            }
            try FileManager.default.createSymbolicLink(atPath: current, withDestinationPath: first)
            try Self.makeEncrypted(first + "/db.sqlite")
            let db = try openEncrypted(current + "/db.sqlite", key: TestKeys.raw)
            #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 3)
            // The link now leads to the other directory, which has no database.
            try FileManager.default.removeItem(atPath: current)
            try FileManager.default.createSymbolicLink(atPath: current, withDestinationPath: second)
            var thrown: DatabaseError?
            do {
                try db.changeKey(to: TestKeys.otherRaw)
            } catch let error as DatabaseError {
                thrown = error
            }
            let rows = try? db.queryValue("SELECT count(*) FROM t", as: Int.self)
            let createdElsewhere = FileManager.default.fileExists(atPath: second + "/db.sqlite")
            #expect(rows == 3 || thrown != nil, "\(String(describing: thrown))")
            #expect(!createdElsewhere)
            // The file replaced is the one opened, with the new key.
            db.close()
            let replaced = try openEncrypted(first + "/db.sqlite", key: TestKeys.otherRaw)
            #expect(try replaced.queryValue("SELECT count(*) FROM t", as: Int.self) == 3)
        }
    }
}
