import Foundation
import Testing

@testable import SQLiteToolkit

/// The replacement's own sync, rename and directory sync failing: the calls the fault VFS cannot reach (they bypass
/// SQLite), made to fail through `AtomicFileReplacement.failingStep`.
@Suite("Key changes whose replacement fails")
struct KeyChangeDurabilityTests {
    enum Operation: String, CaseIterable, Sendable {
        case changeKey, encrypt, decrypt

        var keys: (before: DatabaseKey?, after: DatabaseKey?) {
            switch self {
            case .changeKey: (TestKeys.raw, TestKeys.otherRaw)
            case .encrypt: (nil, TestKeys.otherRaw)
            case .decrypt: (TestKeys.raw, nil)
            }
        }

        func run(_ db: Database) throws {
            switch self {
            case .changeKey: try db.changeKey(to: TestKeys.otherRaw)
            case .encrypt: try db.encrypt(with: TestKeys.otherRaw, cipher: TestKeys.fastChaCha20)
            case .decrypt: try db.decrypt()
            }
        }
    }

    /// A database at `path` with three rows in `t`, with `key` (plain when `nil`), in `journalMode`.
    static func makeDatabase(_ path: String, key: DatabaseKey?, journalMode: String) throws -> Database {
        let db = try openEncrypted(path, key: key)
        try db.execute("PRAGMA journal_mode = \(journalMode)")
        try db.execute("CREATE TABLE t(x)")
        try db.execute("INSERT INTO t VALUES (1), (2), (3)")
        return db
    }

    /// The rows of `t` in the file at `path` opened with `key`, or `nil` when that key does not open it.
    static func count(_ path: String, key: DatabaseKey?) -> Int? {
        guard let db = try? openEncrypted(path, key: key) else { return nil }
        return try? db.queryValue("SELECT count(*) FROM t", as: Int.self)
    }

    @Test(
        "a failing directory sync after the rename is .keyChangedButNotDurable: the new key in effect, the connection open",
        arguments: Operation.allCases, ["delete", "wal"])
    func directorySyncFails(operation: Operation, journalMode: String) throws {
        try TemporaryFile.withDatabasePath { path in
            let (before, after) = operation.keys
            let db = try Self.makeDatabase(path, key: before, journalMode: journalMode)
            let error = try #require(throws: DatabaseError.self) {
                try AtomicFileReplacement.$failingStep.withValue(.syncDirectory) { try operation.run(db) }
            }
            #expect(error.reason == .keyChangedButNotDurable, "\(error)")
            #expect(error.message.contains("the new key is now the database's key"), "\(error)")
            #expect(error.message.contains("a power cut may bring back the old file"), "\(error)")
            #expect(error.extendedCode == .ioerrFsync)
            #expect(db.isOpen)
            #expect(db.isEncrypted == (after != nil))
            #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 3)
            #expect(try db.queryValue("PRAGMA journal_mode", as: String.self) == journalMode)
            try db.execute("INSERT INTO t VALUES (4)")
            db.close()
            #expect(Self.count(path, key: after) == 4)
            #expect(!FileManager.default.fileExists(atPath: path + "-sqltk-rekey"))
        }
    }

    @Test(
        "a failing sync of the copy or rename is before the commit point: the old file, the old key, nothing left",
        arguments: Operation.allCases, [AtomicFileReplacement.Step.syncReplacement, .rename])
    func replacementFailsBeforeCommit(operation: Operation, step: AtomicFileReplacement.Step) throws {
        try TemporaryFile.withDatabasePath { path in
            let (before, _) = operation.keys
            let db = try Self.makeDatabase(path, key: before, journalMode: "wal")
            let error = try #require(throws: DatabaseError.self) {
                try AtomicFileReplacement.$failingStep.withValue(step) { try operation.run(db) }
            }
            #expect(error.reason != .keyChangedButNotDurable && error.reason != .keyChangedButReopenFailed)
            #expect(!error.message.contains("the new key is now"), "\(error)")
            #expect(db.isOpen)
            #expect(db.isEncrypted == (before != nil))
            try db.execute("INSERT INTO t VALUES (4)")
            #expect(try db.queryValue("PRAGMA journal_mode", as: String.self) == "wal")
            db.close()
            #expect(Self.count(path, key: before) == 4)
            #expect(!FileManager.default.fileExists(atPath: path + "-sqltk-rekey"))
        }
    }
}
