import BenchmarkCore
import Foundation
import GRDB

// The workloads through GRDB.swift 7.10, on its fastest documented paths: a `DatabaseQueue`; prepared statements
// from `db.cachedStatement(sql:)` with `setUncheckedArguments(_:)` and `execute()` for bulk inserts (GRDB's
// documented way to skip argument validation in a hot loop); `Row.fetchCursor` with `row[index]`/`row[name]`
// reads; `Int64.fetchCursor` for one column and `Int64.fetchOne` for lookups; `write {}` and `read {}` for
// transactions.

/// GRDB.swift on the system SQLite.
public struct GRDBImplementation: BenchmarkImplementation {
    /// Makes the implementation.
    public init() {}

    /// `grdb`.
    public var name: String { "grdb" }
    /// The column title.
    public var title: String { "GRDB 7.10" }
    /// Every workload but those on files of their own (encryption, the pool's writes), the changeset ones and
    /// incremental BLOB reads: GRDB's SQLite has neither a codec nor the session extension, and its API has no
    /// incremental BLOB I/O. The pool's reads run on GRDB's `DatabasePool`.
    public var workloads: [Workload] {
        Workload.withoutSessionExtension.filter {
            (!$0.needsFile || $0 == .poolRead || $0 == .poolReadAsync) && $0 != .blobReadChunks
        }
    }

    /// The version through `SELECT sqlite_version()`.
    public func sqliteVersion() throws -> String {
        let queue = try DatabaseQueue()
        return try queue.read { db in try String.fetchOne(db, sql: "SELECT sqlite_version()") } ?? "?"
    }

    /// Opens the database and sets up `workload`.
    public func prepare(_ workload: Workload, size: WorkloadSize, location: DatabaseLocation) throws -> PreparedRun {
        var configuration = Configuration()
        // GRDB 7 passes no threading flag to sqlite3_open_v2 and keeps the setting internal, so its connections
        // use the SQLite build's default mode (serialized for Debian's libsqlite3), unlike the other
        // implementations, which open with SQLITE_OPEN_NOMUTEX. The README says so.
        let pragmas = location.storage.pragmas
        configuration.prepareDatabase { db in
            for pragma in pragmas { try db.execute(sql: pragma) }
        }
        if workload == .poolRead || workload == .poolReadAsync {
            return try preparePoolRead(
                size: size, location: location, configuration: configuration, isAsync: workload == .poolReadAsync)
        }
        let queue =
            location.storage == .memory
            ? try DatabaseQueue(configuration: configuration)
            : try DatabaseQueue(path: location.path, configuration: configuration)
        do {
            return try prepare(workload, size: size, queue: queue)
        } catch {
            try? queue.close()
            throw error
        }
    }

    private func prepare(_ workload: Workload, size: WorkloadSize, queue: DatabaseQueue) throws -> PreparedRun {
        let rows = size.rows
        let close = { _ = try? queue.close() }
        let checksumIntegers = { (_: Int64) throws -> Int64 in
            try queue.read { db in try Int64.fetchOne(db, sql: BenchmarkData.checksumIntegers) } ?? 0
        }
        switch workload {
        case .insertPositional:
            try queue.write { db in try db.execute(sql: BenchmarkData.createIntegers) }
            return PreparedRun(
                body: { try insertIntegers(queue, rows: rows) },
                verify: checksumIntegers,
                close: close
            )
        case .insertObserved:
            try queue.write { db in
                try db.execute(sql: BenchmarkData.createIntegers)
                try db.execute(sql: "CREATE TABLE other (x)")
                db.add(transactionObserver: OtherTableObserver(), extent: .databaseLifetime)
            }
            return PreparedRun(
                body: { try insertIntegers(queue, rows: rows) },
                verify: checksumIntegers,
                close: close
            )
        case .insertNamed:
            try queue.write { db in try db.execute(sql: BenchmarkData.createIntegers) }
            return PreparedRun(
                body: {
                    try queue.write { db in
                        let statement = try db.cachedStatement(sql: BenchmarkData.insertNamed)
                        for row in 0..<rows {
                            statement.setUncheckedArguments([
                                "c0": BenchmarkData.integer(row: row, column: 0),
                                "c1": BenchmarkData.integer(row: row, column: 1),
                                "c2": BenchmarkData.integer(row: row, column: 2),
                                "c3": BenchmarkData.integer(row: row, column: 3),
                                "c4": BenchmarkData.integer(row: row, column: 4),
                                "c5": BenchmarkData.integer(row: row, column: 5),
                                "c6": BenchmarkData.integer(row: row, column: 6),
                                "c7": BenchmarkData.integer(row: row, column: 7),
                                "c8": BenchmarkData.integer(row: row, column: 8),
                                "c9": BenchmarkData.integer(row: row, column: 9),
                            ])
                            try statement.execute()
                        }
                    }
                    return Int64(rows)
                },
                verify: checksumIntegers,
                close: close
            )
        case .insertCachedLookup:
            try queue.write { db in try db.execute(sql: BenchmarkData.createIntegers) }
            return PreparedRun(
                body: {
                    try queue.write { db in
                        for row in 0..<rows {
                            try db.cachedStatement(sql: BenchmarkData.insertPositional).execute(arguments: [
                                BenchmarkData.integer(row: row, column: 0),
                                BenchmarkData.integer(row: row, column: 1),
                                BenchmarkData.integer(row: row, column: 2),
                                BenchmarkData.integer(row: row, column: 3),
                                BenchmarkData.integer(row: row, column: 4),
                                BenchmarkData.integer(row: row, column: 5),
                                BenchmarkData.integer(row: row, column: 6),
                                BenchmarkData.integer(row: row, column: 7),
                                BenchmarkData.integer(row: row, column: 8),
                                BenchmarkData.integer(row: row, column: 9),
                            ])
                        }
                    }
                    return Int64(rows)
                },
                verify: checksumIntegers,
                close: close
            )
        case .readByIndex:
            try populateIntegers(queue, rows: rows)
            return PreparedRun(
                body: {
                    try queue.read { db in
                        var sum: Int64 = 0
                        let cursor = try Row.fetchCursor(db, sql: BenchmarkData.selectIntegers)
                        while let row = try cursor.next() {
                            for index in 0..<10 { sum &+= row[index] as Int64 }
                        }
                        return sum
                    }
                },
                close: close
            )
        case .readByName:
            try populateIntegers(queue, rows: rows)
            return PreparedRun(
                body: {
                    try queue.read { db in
                        var sum: Int64 = 0
                        let cursor = try Row.fetchCursor(db, sql: BenchmarkData.selectIntegers)
                        // The names spelled in place, as a program spells them (and as the toolkit's case does).
                        while let row = try cursor.next() {
                            sum &+= row["c0"] as Int64
                            sum &+= row["c1"] as Int64
                            sum &+= row["c2"] as Int64
                            sum &+= row["c3"] as Int64
                            sum &+= row["c4"] as Int64
                            sum &+= row["c5"] as Int64
                            sum &+= row["c6"] as Int64
                            sum &+= row["c7"] as Int64
                            sum &+= row["c8"] as Int64
                            sum &+= row["c9"] as Int64
                        }
                        return sum
                    }
                },
                close: close
            )
        case .readOneColumn:
            try populateIntegers(queue, rows: rows)
            return PreparedRun(
                body: {
                    try queue.read { db in
                        var sum: Int64 = 0
                        let cursor = try Int64.fetchCursor(db, sql: BenchmarkData.selectOneColumn)
                        while let value = try cursor.next() { sum &+= value }
                        return sum
                    }
                },
                close: close
            )
        case .oneOffStatements:
            return try prepareOneOffStatements(queue, size: size)
        case .lookupsOneTransaction:
            try populateIntegers(queue, rows: rows)
            let lookups = size.lookups
            return PreparedRun(
                body: {
                    try queue.read { db in
                        var sum: Int64 = 0
                        for lookup in 0..<lookups {
                            let id = BenchmarkData.lookupID(lookup, rows: rows)
                            let statement = try db.cachedStatement(sql: BenchmarkData.selectByID)
                            sum &+= try Int64.fetchOne(statement, arguments: [id]) ?? 0
                        }
                        return sum
                    }
                },
                close: close
            )
        case .lookupsTransactionEach:
            try populateIntegers(queue, rows: rows)
            let lookups = size.lookups
            return PreparedRun(
                body: {
                    var sum: Int64 = 0
                    for lookup in 0..<lookups {
                        let id = BenchmarkData.lookupID(lookup, rows: rows)
                        sum &+= try queue.read { db in
                            let statement = try db.cachedStatement(sql: BenchmarkData.selectByID)
                            return try Int64.fetchOne(statement, arguments: [id]) ?? 0
                        }
                    }
                    return sum
                },
                close: close
            )
        case .insertTextBlob:
            try queue.write { db in try db.execute(sql: BenchmarkData.createTextBlob) }
            return PreparedRun(
                body: { try insertTextBlob(queue, rows: rows) },
                verify: { _ in
                    try queue.read { db in try Int64.fetchOne(db, sql: BenchmarkData.checksumTextBlob) } ?? 0
                },
                close: close
            )
        case .readTextBlob:
            try queue.write { db in try db.execute(sql: BenchmarkData.createTextBlob) }
            _ = try insertTextBlob(queue, rows: rows)
            return PreparedRun(
                body: {
                    try queue.read { db in
                        var sum: Int64 = 0
                        let cursor = try Row.fetchCursor(db, sql: BenchmarkData.selectTextBlob)
                        while let row = try cursor.next() {
                            let text = row[0] as String
                            let blob = row[1] as Data
                            sum &+= BenchmarkData.textBlobChecksum(
                                textCount: text.utf8.count, textLast: text.utf8.last ?? 0,
                                blobCount: blob.count, blobLast: blob.last ?? 0)
                        }
                        return sum
                    }
                },
                close: close
            )
        case .scalarFunction, .scalarFunctionLowLevel, .aggregateFunction, .aggregateFunctionLowLevel:
            return try prepareFunction(workload, size: size, queue: queue)
        case .queueRead, .queueReadAsync:
            try populateIntegers(queue, rows: rows)
            return prepareQueueRead(workload, size: size, queue: queue, close: close)
        case .poolRead, .poolReadAsync, .poolWrite, .poolWriteWithReads:
            throw BenchmarkError("\(workload.rawValue) is measured for SQLiteToolkit only")
        case .bindStepColumnReset:
            let iterations = size.iterations
            return PreparedRun(
                body: {
                    try queue.inDatabase { db in
                        var sum: Int64 = 0
                        let statement = try db.makeStatement(sql: BenchmarkData.selectPlusOne)
                        for iteration in 0..<Int64(iterations) {
                            statement.setUncheckedArguments([iteration])
                            sum &+= try Int64.fetchOne(statement) ?? 0
                        }
                        return sum
                    }
                },
                close: close
            )
        case .blobReadChunks, .backupRows:
            return try prepareSchemaAndMaintenance(workload, size: size, queue: queue)
        case .changesetCapture, .changesetApply:
            throw BenchmarkError("GRDB.swift has no API for the session extension")
        default:
            // GRDB needs a SQLCipher build for encryption: the encryption workloads are the toolkit's alone.
            throw BenchmarkError("\(workload.rawValue) is not implemented with GRDB")
        }
    }

    func populateIntegers(_ queue: some DatabaseWriter, rows: Int) throws {
        try queue.write { db in try db.execute(sql: BenchmarkData.createIntegers) }
        _ = try insertIntegers(queue, rows: rows)
    }

    private func insertIntegers(_ queue: some DatabaseWriter, rows: Int) throws -> Int64 {
        try queue.write { db in
            let statement = try db.cachedStatement(sql: BenchmarkData.insertPositional)
            for row in 0..<rows {
                statement.setUncheckedArguments([
                    BenchmarkData.integer(row: row, column: 0),
                    BenchmarkData.integer(row: row, column: 1),
                    BenchmarkData.integer(row: row, column: 2),
                    BenchmarkData.integer(row: row, column: 3),
                    BenchmarkData.integer(row: row, column: 4),
                    BenchmarkData.integer(row: row, column: 5),
                    BenchmarkData.integer(row: row, column: 6),
                    BenchmarkData.integer(row: row, column: 7),
                    BenchmarkData.integer(row: row, column: 8),
                    BenchmarkData.integer(row: row, column: 9),
                ])
                try statement.execute()
            }
        }
        return Int64(rows)
    }

    private func insertTextBlob(_ queue: DatabaseQueue, rows: Int) throws -> Int64 {
        let texts = BenchmarkData.texts
        let blobs = BenchmarkData.blobs.map { Data($0) }
        try queue.write { db in
            let statement = try db.cachedStatement(sql: BenchmarkData.insertTextBlob)
            for row in 0..<rows {
                statement.setUncheckedArguments([
                    texts[row % BenchmarkData.poolSize], blobs[row % BenchmarkData.poolSize],
                ])
                try statement.execute()
            }
        }
        return Int64(rows)
    }
}

/// A transaction observer of a table the workload never writes: GRDB's counterpart of the toolkit's observer in
/// `insert-observed`.
private final class OtherTableObserver: TransactionObserver {
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { eventKind.tableName == "other" }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) {}
    func databaseDidRollback(_ db: Database) {}
}
