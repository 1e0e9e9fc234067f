import Foundation
import SQLiteToolkit
import Testing

/// Regression tests of the nine faults the sweep of issue 32 found in the code of the time: each injects the same
/// fault, below the codec, through the fault VFS.
@Suite("Faults found by the sweep")
struct FindingsTests {
    static let oldKey = DatabaseKey.passphrase("old secret")
    static let newKey = DatabaseKey.passphrase("new secret")
    static let rows = Array(1...40)

    /// Makes a database of `rows` in `t`, encrypted with `key` (plain when `nil`), in `journalMode`.
    static func makeDatabase(_ path: String, key: DatabaseKey?, journalMode: String = "delete") throws {
        let db = try Database(path: path, configuration: .keyed(key))
        try db.execute("PRAGMA journal_mode = \(journalMode)")
        try db.execute("CREATE TABLE t(x INTEGER, pad BLOB)")
        try db.transaction { db in
            for row in rows { try db.execute("INSERT INTO t VALUES (?, zeroblob(300))", row) }
        }
    }

    /// Opens `path` through the default VFS with `key`, checks the file and returns its rows, or `nil` when the
    /// key does not open it.
    static func rowsOpening(_ path: String, with key: DatabaseKey?) throws -> [Int]? {
        guard let db = try? Database(path: path, configuration: .keyed(key)) else { return nil }
        guard (try? db.queryValue("SELECT count(*) FROM sqlite_schema", as: Int.self)) != nil else { return nil }
        #expect(try db.integrityCheck().isOK)
        return try db.values()
    }

    /// Runs `change` with the `nth` call of `kind` failing once, for every `nth` the change makes, on a fresh
    /// database each time; `check` sees whether the change threw and the connection afterwards.
    static func sweepKeyChange(
        kinds: [FaultKind], from oldKey: DatabaseKey?, journalMode: String = "delete",
        _ change: (Database) throws -> Void, check: (_ path: String, _ error: DatabaseError?, Database) throws -> Void
    ) throws -> Int {
        var injected = 0
        for kind in kinds {
            for nth in 1...10_000 {
                let done = try FaultTestFile.withDatabasePath { path -> Bool in
                    try makeDatabase(path, key: oldKey, journalMode: journalMode)
                    let faults = try FaultScenario(pathPrefix: path)
                    let db = try Database(path: path, configuration: .faulty(key: oldKey))
                    faults.fail(kind, nth: nth)
                    var thrown: DatabaseError?
                    do {
                        try change(db)
                    } catch let error as DatabaseError {
                        thrown = error
                    }
                    let hit = faults.injected > 0
                    faults.healAll()
                    if thrown != nil { #expect(hit, "\(kind) \(nth): an error without a fault") }
                    try check(path, thrown, db)
                    db.close()
                    injected += faults.injected
                    return !hit
                }
                if done { break }
            }
        }
        return injected
    }

    @Test("finding 1: a savepoint whose ROLLBACK TO fails aborts its transaction; nothing commits on its own")
    func savepointRollbackFailure() throws {
        try FaultTestFile.withDatabasePath { path in
            let faults = try FaultScenario(pathPrefix: path)
            let db = try Database(path: path, configuration: .faulty())
            try db.execute("CREATE TABLE t(x)")
            try db.execute("CREATE TABLE u(x)")
            var savepointError: DatabaseError?
            let error = try #require(throws: DatabaseError.self) {
                try db.transaction { db in
                    try db.execute("INSERT INTO t VALUES (1)")
                    do {
                        try db.savepoint { db in
                            // A page the transaction had not touched: its rollback reads the rollback journal.
                            try db.execute("INSERT INTO u VALUES (2)")
                            faults.fail(.read, nth: 1)
                            throw CancellationError()
                        }
                    } catch let error as DatabaseError {
                        savepointError = error
                    }
                    try db.execute("INSERT INTO t VALUES (3)")
                }
            }
            faults.healAll()
            #expect(faults.injected == 1)
            #expect(savepointError?.reason == .transactionAborted)
            #expect(savepointError?.extendedCode == .ioerrRead)
            #expect(error.reason == .transactionAborted)
            #expect(!db.isInTransaction)
            #expect(try db.values().isEmpty)
            try db.execute("INSERT INTO t VALUES (4)")
            db.close()
            #expect(try Self.rowsOpening(path, with: nil) == [4])
        }
    }

    @Test("finding 2: changeKey failing on any one write or sync keeps the old key and a working connection")
    func changeKeyFailure() throws {
        let injected = try Self.sweepKeyChange(kinds: [.write, .sync], from: Self.oldKey) { db in
            try db.changeKey(to: Self.newKey)
        } check: { path, error, db throws in
            if let error {
                #expect(db.isEncrypted)
                #expect(try db.values() == Self.rows, "\(error)")
                db.close()
                #expect(try Self.rowsOpening(path, with: Self.oldKey) == Self.rows)
            } else {
                db.close()
                #expect(try Self.rowsOpening(path, with: Self.newKey) == Self.rows)
            }
        }
        #expect(injected > 0)
    }

    @Test("finding 3: encrypt failing on any one write or sync leaves the file plain and whole")
    func encryptFailure() throws {
        let injected = try Self.sweepKeyChange(kinds: [.write, .sync], from: nil) { db in
            try db.encrypt(with: Self.newKey)
        } check: { path, error, db throws in
            db.close()
            let expected = error == nil ? Self.newKey : nil
            #expect(try Self.rowsOpening(path, with: expected) == Self.rows)
            #expect(try Database.isPlainDatabase(atPath: path) == (error != nil))
        }
        #expect(injected > 0)
    }

    @Test("finding 4: decrypt failing before it commits leaves the connection encrypted, and its next writes too")
    func decryptFailureKeepsKey() throws {
        let injected = try Self.sweepKeyChange(kinds: [.read, .write, .sync], from: Self.oldKey) { db in
            try db.decrypt()
        } check: { path, error, db throws in
            guard db.isOpen else {
                // Failed once the rewritten file was renamed into place, while reopening: the file is the new one,
                // and the error says so.
                #expect(error?.reason == .keyChangedButReopenFailed)
                #expect(try Self.rowsOpening(path, with: nil) == Self.rows)
                return
            }
            let expectedKey: DatabaseKey? = error == nil ? nil : Self.oldKey
            #expect(db.isEncrypted == (error != nil))
            try db.execute("INSERT INTO t VALUES (41, NULL)")
            db.close()
            #expect(try Self.rowsOpening(path, with: expectedKey) == Self.rows + [41])
        }
        #expect(injected > 0)
    }

    @Test(
        "finding 5: decrypt interrupted anywhere (lasting I/O error, crash, power cut) leaves a file that opens",
        arguments: [false, true])
    func interruptedDecryption(powerCut: Bool) throws {
        var interrupted = 0
        for nth in 1...10_000 {
            let stop = try FaultTestFile.withDatabasePath { path -> Bool in
                try Self.makeDatabase(path, key: Self.oldKey)
                let faults = try FaultScenario(pathPrefix: path)
                do {
                    let db = try Database(path: path, configuration: .faulty(key: Self.oldKey))
                    if powerCut {
                        faults.keepUnsyncedWritesInMemory()
                        faults.cutPower(atWriteOrSync: nth, seed: UInt64(nth))
                    } else {
                        faults.fail(.write, nth: nth, lasting: true)
                    }
                    _ = try? db.decrypt()
                    db.close()
                }
                let hit = faults.injected > 0
                if hit { interrupted += 1 }
                // The old file with the old key, or the new plain one; never neither.
                let rows = try Self.rowsOpening(path, with: Self.oldKey) ?? Self.rowsOpening(path, with: nil)
                #expect(rows == Self.rows, "\(powerCut ? "power cut" : "lasting write error") at \(nth)")
                return !hit
            }
            if stop { break }
        }
        #expect(interrupted > 0)
    }

    @Test("finding 6: decrypt failing on any one write, sync or truncate leaves a whole file and a working connection")
    func decryptFailureInCommit() throws {
        let injected = try Self.sweepKeyChange(kinds: [.write, .sync, .truncate], from: Self.oldKey) { db in
            try db.decrypt()
        } check: { path, error, db throws in
            #expect(try db.values() == Self.rows)
            db.close()
            #expect(try Self.rowsOpening(path, with: error == nil ? nil : Self.oldKey) == Self.rows)
        }
        #expect(injected > 0)
    }

    @Test("finding 7: encrypt on a WAL database throws only when it changed nothing, and stays in WAL")
    func encryptWALFailure() throws {
        let injected = try Self.sweepKeyChange(kinds: [.write, .sync], from: nil, journalMode: "wal") { db in
            try db.encrypt(with: Self.newKey)
        } check: { path, error, db throws in
            #expect(db.isEncrypted == (error == nil))
            #expect(try db.queryValue("PRAGMA journal_mode", as: String.self) == "wal")
            db.close()
            #expect(try Database.isPlainDatabase(atPath: path) == (error != nil))
            let reopened = try Database(path: path, configuration: .keyed(error == nil ? Self.newKey : nil))
            #expect(try reopened.queryValue("PRAGMA journal_mode", as: String.self) == "wal")
            #expect(try reopened.values() == Self.rows)
        }
        #expect(injected > 0)
    }

    @Test("finding 8: a read error while an encrypted database opens is an I/O error or nothing, never a wrong key")
    func readErrorAtOpen() throws {
        try FaultTestFile.withDatabasePath { path in
            try Self.makeDatabase(path, key: Self.oldKey)
            let faults = try FaultScenario(pathPrefix: path)
            for nth in 1...8 {
                faults.fail(.read, nth: nth)
                do {
                    let db = try Database(path: path, configuration: .faulty(key: Self.oldKey))
                    faults.healAll()
                    #expect(try db.values() == Self.rows)
                } catch let error as DatabaseError {
                    #expect(error.reason != .wrongKeyOrNotADatabase, "read \(nth): \(error)")
                    #expect(error.code == .ioerr, "read \(nth): \(error)")
                }
                faults.healAll()
            }
            #expect(faults.injected >= 2)
        }
    }

    @Test("finding 8, after open: a read error in a partial read of page 1 is reported by the codec as not a database")
    func readErrorAfterOpen() throws {
        try FaultTestFile.withDatabasePath { path in
            try Self.makeDatabase(path, key: Self.oldKey)
            let faults = try FaultScenario(pathPrefix: path)
            let db = try Database(path: path, configuration: .faulty(key: Self.oldKey))
            var codes: [ResultCode] = []
            for nth in 1...6 {
                db.clearStatementCache()
                faults.fail(.read, nth: nth)
                do {
                    _ = try db.values()
                } catch let error as DatabaseError {
                    codes.append(error.code)
                }
                faults.healAll()
            }
            #expect(!codes.isEmpty)
            // The codec reads the whole of page 1 for the pager's 16-byte read of its header and ignores that
            // read's result: the bytes it then decrypts are not the page.
            withKnownIssue("the bundled codec replaces the storage's read error by SQLITE_NOTADB") {
                #expect(codes.allSatisfy { $0 == .ioerr }, "\(codes)")
            }
            #expect(try db.values() == Self.rows)
        }
    }

    @Test("finding 9: a failed key change names the operation and the failure, never \"not an error\"")
    func keyChangeErrorMessages() throws {
        var messages: [String] = []
        _ = try Self.sweepKeyChange(kinds: [.write, .sync], from: Self.oldKey) { db in
            try db.changeKey(to: Self.newKey)
        } check: { _, error, _ throws in
            if let error { messages.append(error.message) }
        }
        #expect(!messages.isEmpty)
        for message in messages {
            #expect(!message.contains("not an error"), "\(message)")
            #expect(message.contains("I/O error") || message.contains("failed"), "\(message)")
        }
    }
}
