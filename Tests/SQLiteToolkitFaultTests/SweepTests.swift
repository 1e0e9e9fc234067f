import Foundation
import SQLiteToolkit
import Testing

/// The fault sweep: each workload runs once per I/O call it makes, with that call failing (once, or for good),
/// through the fault VFS below the codec. After the failure the toolkit must have thrown a typed error, hold no
/// transaction SQLite closed, and answer the next access or throw a typed error; reopened through the default
/// VFS, the database must pass `integrity_check` and hold exactly the acknowledged transactions (the one whose
/// `COMMIT` failed may be there or not: its outcome is what SQLite could not tell). `SQLTK_FAULT_STRIDE` samples
/// every nth call (1, every call, unless set).
@Suite("Fault sweep")
struct SweepTests {
    static let stride = ProcessInfo.processInfo.environment["SQLTK_FAULT_STRIDE"].flatMap(Int.init) ?? 1
    static let key = DatabaseKey.raw(Array(repeating: 7, count: 32))
    static let otherKey = DatabaseKey.raw(Array(repeating: 9, count: 32))

    struct Workload: CustomStringConvertible, Sendable {
        var name: String
        var key: DatabaseKey?
        var journalMode = "delete"
        /// Runs numbered transactions, calling `acknowledge` after each one that returned.
        var body: @Sendable (Database, (Int) -> Void) throws -> Void
        var description: String { name }
    }

    static func inserts(_ db: Database, from first: Int, count: Int, _ acknowledge: (Int) -> Void) throws {
        for number in first..<(first + count) {
            try db.transaction { db in
                try db.execute("INSERT INTO t(n, pad) VALUES (?, randomblob(900))", number)
            }
            acknowledge(number)
        }
    }

    static let workloads: [Workload] = [
        Workload(name: "inserts in transactions") { db, ack in try inserts(db, from: 1, count: 6, ack) },
        Workload(name: "inserts in transactions, WAL", journalMode: "wal") { db, ack in
            try inserts(db, from: 1, count: 6, ack)
        },
        Workload(name: "a savepoint rolled back inside a transaction") { db, ack in
            for number in 1...4 {
                try db.transaction { db in
                    try db.execute("INSERT INTO t(n, pad) VALUES (?, randomblob(900))", number)
                    do {
                        try db.savepoint { db in
                            try db.execute("INSERT INTO u VALUES (randomblob(900))")
                            throw CancellationError()
                        }
                    } catch is CancellationError {}
                }
                ack(number)
            }
        },
        Workload(name: "a schema change") { db, ack in
            try db.transaction { db in
                try db.execute("CREATE TABLE v(a, b)")
                try db.execute("CREATE INDEX v_a ON v(a)")
                try db.execute("INSERT INTO t(n) VALUES (1)")
            }
            ack(1)
            try db.transaction { db in
                try db.execute("ALTER TABLE v ADD COLUMN c")
                try db.execute("INSERT INTO t(n) VALUES (2)")
            }
            ack(2)
        },
        Workload(name: "an encrypted database", key: key) { db, ack in try inserts(db, from: 1, count: 5, ack) },
        Workload(name: "a rekey", key: key) { db, ack in
            try inserts(db, from: 1, count: 2, ack)
            try db.changeKey(to: otherKey)
            try inserts(db, from: 3, count: 2, ack)
        },
        Workload(name: "a backup into the database") { db, ack in
            let source = try Database()
            try source.execute("CREATE TABLE t(n INTEGER PRIMARY KEY, pad BLOB)")
            try source.execute("CREATE TABLE u(pad BLOB)")
            try inserts(source, from: 1, count: 3, { _ in })
            try source.backup(to: db)
            for number in 1...3 { ack(number) }
            try inserts(db, from: 4, count: 2, ack)
        },
        Workload(name: "a changeset applied") { db, ack in
            let source = try Database()
            try source.execute("CREATE TABLE t(n INTEGER PRIMARY KEY, pad BLOB)")
            let session = try Session(database: source)
            try session.attach("t")
            try inserts(source, from: 1, count: 3, { _ in })
            let changeset = try session.changeset()
            session.delete()
            _ = try db.apply(changeset) { _ in .omit }
            for number in 1...3 { ack(number) }
            try inserts(db, from: 4, count: 2, ack)
        },
    ]

    static func makeDatabase(_ path: String, _ workload: Workload) throws {
        let db = try Database(path: path, configuration: .keyed(workload.key))
        try db.execute("PRAGMA journal_mode = \(workload.journalMode)")
        try db.execute("CREATE TABLE t(n INTEGER PRIMARY KEY, pad BLOB)")
        try db.execute("CREATE TABLE u(pad BLOB)")
    }

    /// Runs `workload` with the `nth` call of `kind` failing; `nil` when the workload made fewer calls.
    static func runOnce(_ workload: Workload, kind: FaultKind, nth: Int, lasting: Bool) throws -> (
        faults: Int, uncertain: Int
    )? {
        try FaultTestFile.withDatabasePath { path in
            try makeDatabase(path, workload)
            let faults = try FaultScenario(pathPrefix: path)
            var acknowledged: [Int] = []
            let db = try Database(path: path, configuration: .faulty(key: workload.key))
            faults.fail(kind, nth: nth, lasting: lasting)
            var failure: Error?
            do {
                try workload.body(db) { acknowledged.append($0) }
            } catch {
                failure = error
            }
            let injected = faults.injected
            faults.healAll()
            guard injected > 0 else {
                #expect(failure == nil, "\(workload) \(kind) \(nth): \(String(describing: failure))")
                return nil
            }
            let context = "\(workload), \(kind) \(nth)\(lasting ? " and after" : "")"
            if let failure {
                #expect(failure is DatabaseError, "\(context): \(failure)")
            }
            // The toolkit's own state: no transaction SQLite closed, and the next access works or throws typed.
            #expect(!db.isInTransaction, "\(context)")
            do {
                _ = try db.queryValue("SELECT count(*) FROM t", as: Int.self)
            } catch {
                #expect(error is DatabaseError, "\(context): \(error)")
            }
            db.close()
            var reopened: Database?
            for key in [workload.key, otherKey] where reopened == nil {
                if let db = try? Database(path: path, configuration: .keyed(key)),
                    (try? db.queryValue("SELECT count(*) FROM sqlite_schema", as: Int.self)) != nil
                {
                    reopened = db
                }
            }
            let check = try #require(reopened, "\(context): the database opens with no key")
            #expect(try check.integrityCheck().isOK, "\(context)")
            let kept = try check.query("SELECT n FROM t ORDER BY n").map { try $0.value(at: 0) as Int }
            // Exactly the acknowledged transactions, and perhaps the one whose commit reported the failure.
            let uncertain = kept.count - acknowledged.count
            #expect(Array(kept.prefix(acknowledged.count)) == acknowledged, "\(context): kept \(kept)")
            #expect(uncertain == 0 || (uncertain == 1 && failure != nil), "\(context): kept \(kept)")
            return (injected, uncertain)
        }
    }

    @Test(
        "every failing read, write, sync and truncate of a workload leaves a typed error and a whole database",
        arguments: workloads)
    func sweep(workload: Workload) throws {
        var cases = 0
        var faults = 0
        var uncertain = 0
        for kind in FaultKind.allCases {
            for lasting in [false, true] {
                var nth = 1
                while let outcome = try Self.runOnce(workload, kind: kind, nth: nth, lasting: lasting) {
                    cases += 1
                    faults += outcome.faults
                    uncertain += outcome.uncertain
                    nth += lasting ? Self.stride * 2 : Self.stride
                }
            }
        }
        print(
            "fault sweep | \(workload) | cases \(cases) | faults injected \(faults) | commits kept though they failed \(uncertain)"
        )
        #expect(cases > 0)
    }

    @Test("every failing read, write, sync and truncate of a pool writing beside reads leaves a whole database")
    func poolSweep() throws {
        var cases = 0
        var injected = 0
        for kind in FaultKind.allCases {
            var nth = 1
            while true {
                let hit = try FaultTestFile.withDatabasePath { path -> Bool in
                    try Self.makeDatabase(path, Self.workloads[0])
                    let faults = try FaultScenario(pathPrefix: path)
                    var acknowledged: [Int] = []
                    let pool = try DatabasePool(path: path, configuration: .faulty())
                    faults.fail(kind, nth: nth)
                    var failure: Error?
                    do {
                        for number in 1...5 {
                            try pool.write { db in
                                try db.execute("INSERT INTO t(n, pad) VALUES (?, randomblob(900))", number)
                            }
                            acknowledged.append(number)
                            let count = try pool.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self)
                            }
                            #expect(count == acknowledged.count)
                        }
                    } catch {
                        failure = error
                    }
                    let hit = faults.injected > 0
                    faults.healAll()
                    let context = "pool, \(kind) \(nth)"
                    if let failure { #expect(failure is DatabaseError, "\(context): \(failure)") }
                    #expect(try pool.writeWithoutTransaction { db in db.isInTransaction } == false, "\(context)")
                    _ = try? pool.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) }
                    pool.close()
                    let check = try Database(path: path)
                    #expect(try check.integrityCheck().isOK, "\(context)")
                    let kept = try check.query("SELECT n FROM t ORDER BY n").map { try $0.value(at: 0) as Int }
                    #expect(kept == acknowledged, "\(context)")
                    injected += faults.injected
                    return hit
                }
                guard hit else { break }
                cases += 1
                nth += Self.stride
            }
        }
        print("fault sweep | a pool writing beside reads | cases \(cases) | faults injected \(injected)")
        #expect(cases > 0)
    }

    @Test("a full disk at every point of a workload leaves a typed error and a whole database")
    func fullDisk() throws {
        let workload = Self.workloads[0]
        var cases = 0
        for limit in Swift.stride(from: 0, through: 40_000, by: 1_000 * Self.stride) {
            try FaultTestFile.withDatabasePath { path in
                try Self.makeDatabase(path, workload)
                let faults = try FaultScenario(pathPrefix: path)
                var acknowledged: [Int] = []
                let db = try Database(path: path, configuration: .faulty())
                faults.limitDisk(toBytes: limit)
                var failure: Error?
                do { try workload.body(db) { acknowledged.append($0) } } catch { failure = error }
                faults.healAll()
                if let failure {
                    cases += 1
                    let error = try #require(failure as? DatabaseError)
                    #expect(error.code == .full || error.code == .ioerr, "\(error)")
                }
                #expect(!db.isInTransaction)
                db.close()
                let check = try Database(path: path)
                #expect(try check.integrityCheck().isOK)
                let kept = try check.query("SELECT n FROM t ORDER BY n").map { try $0.value(at: 0) as Int }
                #expect(kept == acknowledged, "limit \(limit)")
            }
        }
        #expect(cases > 0)
    }
}
