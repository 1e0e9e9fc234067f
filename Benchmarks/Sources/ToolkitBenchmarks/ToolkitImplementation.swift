import BenchmarkCore
import Foundation
import SQLiteToolkit

// The workloads through SQLiteToolkit's public API, written the way its README and doc comments suggest: a
// prepared `Statement` with parameter-pack arguments for bulk inserts, `StatementArguments` for named arguments,
// `db.execute`/`db.query`/`db.queryValue` (statement cache) elsewhere, typed `row.value(at:)`/`row.value(named:)`
// reads, and `db.transaction` closures.

/// SQLiteToolkit.
public struct ToolkitImplementation: BenchmarkImplementation {
    /// Makes the implementation.
    public init() {}

    /// `toolkit`.
    public var name: String { "toolkit" }
    /// The column title.
    public var title: String { "SQLiteToolkit" }
    /// Every workload.
    public var workloads: [Workload] { Workload.allCases }

    /// The version through `SELECT sqlite_version()`.
    public func sqliteVersion() throws -> String {
        let db = try Database()
        defer { db.close() }
        return try db.queryValue("SELECT sqlite_version()", as: String.self) ?? "?"
    }

    /// Opens the database and sets up `workload`.
    public func prepare(_ workload: Workload, size: WorkloadSize, location: DatabaseLocation) throws -> PreparedRun {
        // The concurrency workloads first: the pool's need a file too, and must not fall through to the encryption
        // workloads (they did, so every pool case timed an unencrypted scan).
        if let run = try prepareConcurrency(workload, size: size, location: location) { return run }
        if workload.needsFile { return try prepareEncryption(workload, size: size, location: location) }
        // The default configuration opens with SQLITE_OPEN_NOMUTEX, like the other implementations.
        let db = try Database(path: location.path)
        do {
            for pragma in location.storage.pragmas { try db.execute(pragma) }
            return try prepare(workload, size: size, db: db)
        } catch {
            db.close()
            throw error
        }
    }

    private func prepare(_ workload: Workload, size: WorkloadSize, db: Database) throws -> PreparedRun {
        let rows = size.rows
        let close = { db.close() }
        let checksumIntegers = { (_: Int64) throws -> Int64 in
            try db.queryValue(BenchmarkData.checksumIntegers, as: Int64.self) ?? 0
        }
        switch workload {
        case .insertPositional:
            try db.execute(BenchmarkData.createIntegers)
            let insert = try db.prepare(BenchmarkData.insertPositional)
            return PreparedRun(
                body: { try insertIntegers(db, insert, rows: rows) },
                verify: checksumIntegers,
                close: close
            )
        case .insertObserved:
            try db.execute(BenchmarkData.createIntegers)
            try db.execute("CREATE TABLE other (x)")
            try db.addTransactionObserver(tables: ["other"]) { _ in }
            let insert = try db.prepare(BenchmarkData.insertPositional)
            return PreparedRun(
                body: { try insertIntegers(db, insert, rows: rows) },
                verify: checksumIntegers,
                close: close
            )
        case .insertNamed:
            try db.execute(BenchmarkData.createIntegers)
            let insert = try db.prepare(BenchmarkData.insertNamed)
            let namedDictionary = ProcessInfo.processInfo.environment["TOOLKIT_NAMED_DICTIONARY"] == "1"
            return PreparedRun(
                body: {
                    // Named pairs, not a dictionary: the names are checked against the parameters by position,
                    // with no hashing. TOOLKIT_NAMED_DICTIONARY=1 measures FMDB's dictionary habit instead.
                    try db.transaction { _ in
                        for row in 0..<rows {
                            if namedDictionary {
                                try insert.execute(arguments: [
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
                                continue
                            }
                            try insert.execute(
                                named: ("c0", BenchmarkData.integer(row: row, column: 0)),
                                ("c1", BenchmarkData.integer(row: row, column: 1)),
                                ("c2", BenchmarkData.integer(row: row, column: 2)),
                                ("c3", BenchmarkData.integer(row: row, column: 3)),
                                ("c4", BenchmarkData.integer(row: row, column: 4)),
                                ("c5", BenchmarkData.integer(row: row, column: 5)),
                                ("c6", BenchmarkData.integer(row: row, column: 6)),
                                ("c7", BenchmarkData.integer(row: row, column: 7)),
                                ("c8", BenchmarkData.integer(row: row, column: 8)),
                                ("c9", BenchmarkData.integer(row: row, column: 9))
                            )
                        }
                    }
                    return Int64(rows)
                },
                verify: checksumIntegers,
                close: close
            )
        case .insertCachedLookup:
            try db.execute(BenchmarkData.createIntegers)
            return PreparedRun(
                body: {
                    try db.transaction { db in
                        for row in 0..<rows {
                            try db.execute(
                                BenchmarkData.insertPositional,
                                BenchmarkData.integer(row: row, column: 0),
                                BenchmarkData.integer(row: row, column: 1),
                                BenchmarkData.integer(row: row, column: 2),
                                BenchmarkData.integer(row: row, column: 3),
                                BenchmarkData.integer(row: row, column: 4),
                                BenchmarkData.integer(row: row, column: 5),
                                BenchmarkData.integer(row: row, column: 6),
                                BenchmarkData.integer(row: row, column: 7),
                                BenchmarkData.integer(row: row, column: 8),
                                BenchmarkData.integer(row: row, column: 9)
                            )
                        }
                    }
                    return Int64(rows)
                },
                verify: checksumIntegers,
                close: close
            )
        case .readByIndex, .readByName, .readOneColumn:
            try populateIntegers(db, rows: rows)
            let sql = workload == .readOneColumn ? BenchmarkData.selectOneColumn : BenchmarkData.selectIntegers
            let select = try db.prepare(sql)
            // Through a prepared statement, as the inserts: `step()`, then the current row. With
            // TOOLKIT_READ_CURSOR=1, through a `db.query` cursor instead, whose every row retains the statement.
            let cursorSQL = ProcessInfo.processInfo.environment["TOOLKIT_READ_CURSOR"] == "1" ? sql : nil
            return PreparedRun(
                body: {
                    switch workload {
                    case .readByIndex: try sumRows(db, select, cursorSQL, sumByIndex)
                    case .readByName: try sumRows(db, select, cursorSQL, sumByName)
                    default: try sumRows(db, select, cursorSQL) { row in try row.value(at: 0, as: Int64.self) }
                    }
                },
                close: close
            )
        case .lookupsOneTransaction:
            try populateIntegers(db, rows: rows)
            let lookups = size.lookups
            return PreparedRun(
                body: {
                    try db.transaction(.deferred) { db in
                        var sum: Int64 = 0
                        for lookup in 0..<lookups {
                            let id = BenchmarkData.lookupID(lookup, rows: rows)
                            sum &+= try db.queryValue(BenchmarkData.selectByID, id, as: Int64.self) ?? 0
                        }
                        return sum
                    }
                },
                close: close
            )
        case .lookupsTransactionEach:
            try populateIntegers(db, rows: rows)
            let lookups = size.lookups
            return PreparedRun(
                body: {
                    var sum: Int64 = 0
                    for lookup in 0..<lookups {
                        let id = BenchmarkData.lookupID(lookup, rows: rows)
                        sum &+= try db.transaction(.deferred) { db in
                            try db.queryValue(BenchmarkData.selectByID, id, as: Int64.self) ?? 0
                        }
                    }
                    return sum
                },
                close: close
            )
        case .insertTextBlob:
            try db.execute(BenchmarkData.createTextBlob)
            let insert = try db.prepare(BenchmarkData.insertTextBlob)
            return PreparedRun(
                body: { try insertTextBlob(db, insert, rows: rows) },
                verify: { _ in try db.queryValue(BenchmarkData.checksumTextBlob, as: Int64.self) ?? 0 },
                close: close
            )
        case .readTextBlob:
            try db.execute(BenchmarkData.createTextBlob)
            _ = try insertTextBlob(db, try db.prepare(BenchmarkData.insertTextBlob), rows: rows)
            return PreparedRun(
                body: {
                    var sum: Int64 = 0
                    let cursor = try db.query(BenchmarkData.selectTextBlob)
                    while let row = try cursor.next() {
                        let text = try row.value(at: 0, as: String.self)
                        let blob = try row.value(at: 1, as: Data.self)
                        sum &+= BenchmarkData.textBlobChecksum(
                            textCount: text.utf8.count, textLast: text.utf8.last ?? 0,
                            blobCount: blob.count, blobLast: blob.last ?? 0)
                    }
                    return sum
                },
                close: close
            )
        case .scalarFunction, .scalarFunctionLowLevel, .aggregateFunction, .aggregateFunctionLowLevel:
            return try prepareFunction(workload, size: size, db: db)
        case .oneOffStatements:
            return try prepareOneOffStatements(db, size: size)
        case .queueRead, .queueReadAsync, .poolRead, .poolReadAsync, .poolWrite, .poolWriteWithReads:
            throw BenchmarkError("\(workload.rawValue) runs on a queue or pool, not on a Database")
        case .bindStepColumnReset:
            let select = try db.prepare(BenchmarkData.selectPlusOne)
            let iterations = size.iterations
            // Through the statement itself: bind, step, read the current row, reset. TOOLKIT_BIND_STEP_CURSOR=1
            // measures a cursor per iteration instead (`query`, `next`, `close`), which allocates one.
            let throughCursor = ProcessInfo.processInfo.environment["TOOLKIT_BIND_STEP_CURSOR"] == "1"
            return PreparedRun(
                body: {
                    var sum: Int64 = 0
                    if throughCursor {
                        for iteration in 0..<Int64(iterations) {
                            let cursor = try select.query(iteration)
                            guard let row = try cursor.next() else { throw BenchmarkError("no row") }
                            sum &+= try row.value(at: 0, as: Int64.self)
                            cursor.close()
                        }
                        return sum
                    }
                    for iteration in 0..<Int64(iterations) {
                        try select.bind(iteration)
                        guard try select.step() else { throw BenchmarkError("no row") }
                        sum &+= try select.currentRow.value(at: 0, as: Int64.self)
                        try select.reset()
                    }
                    return sum
                },
                close: close
            )
        case .blobReadChunks, .backupRows:
            return try prepareSchemaAndMaintenance(workload, size: size, db: db)
        case .changesetCapture, .changesetApply:
            return try prepareChangesetWorkload(workload, size: size, db: db)
        default:
            throw BenchmarkError("\(workload.rawValue) is prepared by prepareEncryption")
        }
    }

    func populateIntegers(_ db: Database, rows: Int) throws {
        try db.execute(BenchmarkData.createIntegers)
        _ = try insertIntegers(db, try db.prepare(BenchmarkData.insertPositional), rows: rows)
    }

    func insertIntegers(_ db: Database, _ insert: Statement, rows: Int) throws -> Int64 {
        try db.transaction { _ in
            for row in 0..<rows {
                try insert.execute(
                    BenchmarkData.integer(row: row, column: 0),
                    BenchmarkData.integer(row: row, column: 1),
                    BenchmarkData.integer(row: row, column: 2),
                    BenchmarkData.integer(row: row, column: 3),
                    BenchmarkData.integer(row: row, column: 4),
                    BenchmarkData.integer(row: row, column: 5),
                    BenchmarkData.integer(row: row, column: 6),
                    BenchmarkData.integer(row: row, column: 7),
                    BenchmarkData.integer(row: row, column: 8),
                    BenchmarkData.integer(row: row, column: 9)
                )
            }
        }
        return Int64(rows)
    }

    private func insertTextBlob(_ db: Database, _ insert: Statement, rows: Int) throws -> Int64 {
        let texts = BenchmarkData.texts
        let blobs = BenchmarkData.blobs.map { Data($0) }
        try db.transaction { _ in
            for row in 0..<rows {
                try insert.execute(texts[row % BenchmarkData.poolSize], blobs[row % BenchmarkData.poolSize])
            }
        }
        return Int64(rows)
    }
}

/// The sum of `read` over every row of `select`, or of a cursor over `cursorSQL` when it is given.
@inline(__always)
private func sumRows(
    _ db: Database, _ select: Statement, _ cursorSQL: String?, _ read: (Row) throws -> Int64
) throws -> Int64 {
    var sum: Int64 = 0
    if let cursorSQL {
        let cursor = try db.query(cursorSQL)
        while let row = try cursor.next() { sum &+= try read(row) }
        return sum
    }
    while try select.step() { sum &+= try read(select.currentRow) }
    try select.reset()
    return sum
}

/// The ten integer columns of a row of `BenchmarkData.selectIntegers`, read by index, summed.
@inline(__always)
private func sumByIndex(_ row: Row) throws -> Int64 {
    var sum: Int64 = 0
    for index in 0..<10 { sum &+= try row.value(at: index, as: Int64.self) }
    return sum
}

/// The same columns read by name, spelled as a program spells them.
@inline(__always)
private func sumByName(_ row: Row) throws -> Int64 {
    var sum: Int64 = try row.value(named: "c0", as: Int64.self)
    sum &+= try row.value(named: "c1", as: Int64.self)
    sum &+= try row.value(named: "c2", as: Int64.self)
    sum &+= try row.value(named: "c3", as: Int64.self)
    sum &+= try row.value(named: "c4", as: Int64.self)
    sum &+= try row.value(named: "c5", as: Int64.self)
    sum &+= try row.value(named: "c6", as: Int64.self)
    sum &+= try row.value(named: "c7", as: Int64.self)
    sum &+= try row.value(named: "c8", as: Int64.self)
    sum &+= try row.value(named: "c9", as: Int64.self)
    return sum
}
