import Foundation
import Testing

@testable import SQLiteToolkit

/// The sweep of the key changes' commit point: `changeKey(to:)`, `encrypt(with:)` and `decrypt()`, in the rollback
/// journal and in WAL, with each read, write, sync and truncate of the database's files failing once, then for
/// good, and with the power cut at each write and sync (every unsynced write dropped, or a random part kept).
///
/// What it checks, in every case: a call that reports failure without saying the key changed left the old file
/// with the old key, and a connection that reads it; a call that succeeded, or threw
/// ``DatabaseError/Reason/keyChangedButReopenFailed`` or ``DatabaseError/Reason/keyChangedButNotDurable`` (whose
/// message says the new key is in effect), left the new file with the new key, and a connection that reads it (at
/// once, or by reopening on its next access). Never a closed connection without that word. `SQLTK_FAULT_STRIDE`
/// samples every nth call (1, every call, unless set). The replacement's own sync, rename and directory sync,
/// which bypass the fault VFS, are failed too, through `AtomicFileReplacement.failingStep`.
@Suite("Key change sweep: the commit point")
struct KeyChangeSweepTests {
    static let stride = ProcessInfo.processInfo.environment["SQLTK_FAULT_STRIDE"].flatMap(Int.init) ?? 1
    static let oldKey = DatabaseKey.raw(Array(repeating: 3, count: 32))
    static let newKey = DatabaseKey.raw(Array(repeating: 5, count: 32))
    static let rows = Array(1...40)
    static let committedReasons: Set<DatabaseError.Reason> = [.keyChangedButReopenFailed, .keyChangedButNotDurable]

    enum Operation: String, CaseIterable, Sendable, CustomStringConvertible {
        case changeKey, encrypt, decrypt
        var description: String { rawValue }
        /// The key before and after.
        var keys: (before: DatabaseKey?, after: DatabaseKey?) {
            switch self {
            case .changeKey: (KeyChangeSweepTests.oldKey, KeyChangeSweepTests.newKey)
            case .encrypt: (nil, KeyChangeSweepTests.newKey)
            case .decrypt: (KeyChangeSweepTests.oldKey, nil)
            }
        }
        func run(_ db: Database) throws {
            switch self {
            case .changeKey: try db.changeKey(to: KeyChangeSweepTests.newKey)
            case .encrypt: try db.encrypt(with: KeyChangeSweepTests.newKey)
            case .decrypt: try db.decrypt()
            }
        }
    }

    /// How one run ended.
    enum Outcome: String, CaseIterable {
        case succeeded = "succeeded"
        case failedBeforeCommit = "failed before the commit point"
        case reopenFailed = "committed, reopen failed (keyChangedButReopenFailed)"
        case notDurable = "committed, directory sync failed (keyChangedButNotDurable)"
    }

    /// What a sweep of one operation and journal mode counted.
    struct Tally {
        var cases = 0
        var powerCuts = 0
        var outcomes: [Outcome: Int] = [:]
    }

    /// Opens `path` through the default VFS with `key`, checks it and returns its rows; `nil` when the key does not
    /// open it.
    static func rowsOpening(_ path: String, with key: DatabaseKey?) throws -> [Int]? {
        var configuration = Database.Configuration()
        configuration.key = key
        guard let db = try? Database(path: path, configuration: configuration),
            (try? db.queryValue("SELECT count(*) FROM sqlite_schema", as: Int.self)) != nil
        else { return nil }
        #expect(try db.integrityCheck().isOK)
        return try db.values()
    }

    /// Runs `operation` once with a fault armed by `arm`; returns the outcome, or `nil` when no fault was injected.
    /// `step`, when given, is a step of the file replacement that fails (below the fault VFS), with no fault armed.
    static func runOnce(
        _ operation: Operation, journalMode: String, context: String, failing step: AtomicFileReplacement.Step? = nil,
        arm: (FaultScenario) -> Void
    ) throws -> Outcome? {
        try FaultTestFile.withDatabasePath { path -> Outcome? in
            let (before, after) = operation.keys
            try FindingsTests.makeDatabase(path, key: before, journalMode: journalMode)
            var outcome: Outcome?
            var injected = false
            do {
                let faults = try FaultScenario(pathPrefix: path)
                let db = try Database(path: path, configuration: .faulty(key: before))
                arm(faults)
                var thrown: DatabaseError?
                do {
                    try AtomicFileReplacement.$failingStep.withValue(step) { try operation.run(db) }
                } catch let error as DatabaseError {
                    thrown = error
                }
                injected = faults.injected > 0 || step != nil
                let poweredOff = faults.isPoweredOff
                faults.healAll()
                guard injected else {
                    #expect(thrown == nil, "\(context): \(String(describing: thrown))")
                    return nil
                }
                let committed = thrown.map { $0.reason.map(committedReasons.contains) ?? false } ?? true
                switch thrown?.reason {
                case nil where thrown == nil: outcome = .succeeded
                case .keyChangedButReopenFailed?: outcome = .reopenFailed
                case .keyChangedButNotDurable?: outcome = .notDurable
                default: outcome = .failedBeforeCommit
                }
                if let thrown, committed {
                    #expect(thrown.message.contains("the new key is now the database's key"), "\(context): \(thrown)")
                }
                // Never a closed connection without saying the new key is in effect.
                #expect(db.isOpen || outcome == .reopenFailed, "\(context): closed after \(String(describing: thrown))")
                if !poweredOff {
                    // The connection reads the database, with the key the file has (reopening if it must).
                    #expect(try db.values() == rows, "\(context): \(String(describing: thrown))")
                    #expect(db.isOpen, "\(context)")
                    #expect(db.isEncrypted == ((committed ? after : before) != nil), "\(context)")
                }
                db.close()
            }
            // The file: the old one with the old key after a reported failure, the new one with the new key after a
            // success or a failure that said the key changed.
            let expected = outcome == .failedBeforeCommit ? before : after
            #expect(
                try rowsOpening(path, with: expected) == rows,
                "\(context): \(String(describing: outcome)), the file does not open with the key the call reported")
            return outcome
        }
    }

    static func sweep(_ operation: Operation, journalMode: String) throws -> Tally {
        var tally = Tally()
        func count(_ outcome: Outcome) {
            tally.cases += 1
            tally.outcomes[outcome, default: 0] += 1
        }
        for kind in FaultKind.allCases {
            for lasting in [false, true] {
                var nth = 1
                while true {
                    let context = "\(operation), \(journalMode), \(kind) \(nth)\(lasting ? " and after" : "")"
                    guard
                        let outcome = try runOnce(
                            operation, journalMode: journalMode, context: context,
                            arm: { $0.fail(kind, nth: nth, lasting: lasting) })
                    else { break }
                    count(outcome)
                    nth += stride
                }
            }
        }
        for step in [AtomicFileReplacement.Step.syncReplacement, .rename, .syncDirectory] {
            let context = "\(operation), \(journalMode), the replacement's \(step) failing"
            let outcome = try runOnce(operation, journalMode: journalMode, context: context, failing: step) { _ in }
            if let outcome { count(outcome) }
            // The directory sync is the only step after the commit point.
            #expect((outcome == .notDurable) == (step == .syncDirectory), "\(context): \(String(describing: outcome))")
        }
        for seed: UInt64 in [0, 1] {
            var nth = 1
            while true {
                let context = "\(operation), \(journalMode), power cut at write or sync \(nth), seed \(seed)"
                guard
                    let outcome = try runOnce(
                        operation, journalMode: journalMode, context: context,
                        arm: { faults in
                            faults.keepUnsyncedWritesInMemory()
                            faults.cutPower(atWriteOrSync: nth, seed: seed == 0 ? 0 : UInt64(nth))
                        })
                else { break }
                count(outcome)
                tally.powerCuts += 1
                nth += stride
            }
        }
        return tally
    }

    @Test(
        "no key change reports failure after its commit point, or leaves a closed connection without saying so",
        arguments: Operation.allCases, ["delete", "wal"])
    func commitPoint(operation: Operation, journalMode: String) throws {
        let tally = try Self.sweep(operation, journalMode: journalMode)
        let outcomes = Outcome.allCases.map { "\($0.rawValue) \(tally.outcomes[$0, default: 0])" }
        print(
            "key change sweep | \(operation) | \(journalMode) | cases \(tally.cases) (power cuts \(tally.powerCuts)) | "
                + outcomes.joined(separator: " | "))
        #expect(tally.cases > 0)
    }
}

@Suite("Key change: recovery after the commit point")
struct KeyChangeRecoveryTests {
    /// Runs `changeKey` with the `nth` read failing, lasting when asked, until a run fails after the commit point;
    /// `body` gets that run's database, error and fault scenario.
    static func withReopenFailure(
        lasting: Bool, _ body: (String, Database, DatabaseError, FaultScenario) throws -> Void
    ) throws {
        for nth in 1...200 {
            let found = try FaultTestFile.withDatabasePath { path -> Bool in
                try FindingsTests.makeDatabase(path, key: KeyChangeSweepTests.oldKey)
                let faults = try FaultScenario(pathPrefix: path)
                let db = try Database(path: path, configuration: .faulty(key: KeyChangeSweepTests.oldKey))
                faults.fail(.read, nth: nth, lasting: lasting)
                do {
                    try db.changeKey(to: KeyChangeSweepTests.newKey)
                } catch let error as DatabaseError where error.reason == .keyChangedButReopenFailed {
                    try body(path, db, error, faults)
                    return true
                } catch {}
                return false
            }
            if found { return }
        }
        Issue.record("no read failure made the reopen fail")
    }

    @Test("a reopen that fails after the rename says the new key is in effect, and the next access reopens with it")
    func nextAccessReopens() throws {
        try Self.withReopenFailure(lasting: false) { path, db, error, faults in
            faults.healAll()
            #expect(error.message.contains("changeKey(to:cipher:) committed: the new key is now the database's key"))
            #expect(!db.isOpen)
            #expect(db.isEncrypted)
            #expect(try db.values() == FindingsTests.rows)
            #expect(db.isOpen)
            try db.execute("INSERT INTO t VALUES (41, NULL)")
            db.close()
            #expect(
                try KeyChangeSweepTests.rowsOpening(path, with: KeyChangeSweepTests.newKey) == FindingsTests.rows + [41]
            )
        }
    }

    @Test("while the reopen keeps failing each access says the key changed; once it works the connection is back")
    func reopenRetried() throws {
        try Self.withReopenFailure(lasting: true) { _, db, _, faults in
            let again = try #require(throws: DatabaseError.self) { try db.values() }
            #expect(again.reason == .keyChangedButReopenFailed)
            #expect(again.message.contains("the new key is now the database's key"))
            faults.healAll()
            #expect(try db.values() == FindingsTests.rows)
        }
    }

    @Test("close() after a failed reopen closes for good: the next access says the database is closed")
    func closeForgetsReopen() throws {
        try Self.withReopenFailure(lasting: false) { path, db, _, faults in
            faults.healAll()
            db.close()
            let closed = try #require(throws: DatabaseError.self) { try db.values() }
            #expect(closed.reason == .connectionClosed)
            #expect(try KeyChangeSweepTests.rowsOpening(path, with: KeyChangeSweepTests.newKey) == FindingsTests.rows)
        }
    }
}
