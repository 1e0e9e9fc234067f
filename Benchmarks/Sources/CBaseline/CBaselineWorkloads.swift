import BenchmarkCore
import Foundation

// The baseline: every workload written against SQLite's C API as a careful programmer would write it by hand
// (statements prepared once, SQLITE_TRANSIENT copies, no per-row allocation beyond the String and Data the text
// workload returns). Written once, generic over the C functions (SQLiteCAPI), and `@inlinable` throughout, so that
// RawCBenchmarks (SQLiteToolkit's amalgamation) and SystemCBenchmarks (the system SQLite) each get it specialised
// into direct C calls.

/// Every workload through raw C calls, on the SQLite build whose functions `API` forwards to.
///
/// A `BenchmarkImplementation` calls ``sqliteVersion()`` and ``prepare(_:size:location:)`` from the module that
/// declares its `API`, where the generic code is specialised.
public enum CBaselineWorkloads<API: SQLiteCAPI> {
    /// The version through `SELECT sqlite_version()`.
    @inlinable
    public static func sqliteVersion() throws -> String {
        let connection = try CConnection<API>(DatabaseLocation(storage: .memory, path: ":memory:"))
        defer { connection.close() }
        let statement = try connection.prepare("SELECT sqlite_version()")
        defer { API.finalize(statement) }
        guard API.step(statement) == API.row, let text = API.columnText(statement, 0) else {
            throw connection.error("SELECT sqlite_version()")
        }
        return String(cString: text)
    }

    /// Opens the database and sets up `workload`.
    @inlinable
    public static func prepare(_ workload: Workload, size: WorkloadSize, location: DatabaseLocation) throws
        -> PreparedRun
    {
        let connection = try CConnection<API>(location)
        do {
            return try prepare(workload, size: size, connection: connection)
        } catch {
            connection.close()
            throw error
        }
    }

    @inlinable
    static func prepare(_ workload: Workload, size: WorkloadSize, connection: CConnection<API>) throws -> PreparedRun {
        let rows = size.rows
        switch workload {
        case .insertPositional, .insertCachedLookup, .insertNamed, .insertObserved:
            try connection.execute(BenchmarkData.createIntegers)
            let sql = workload == .insertNamed ? BenchmarkData.insertNamed : BenchmarkData.insertPositional
            let insert = try connection.prepare(sql)
            return PreparedRun(
                body: { try connection.insertIntegers(insert, rows: rows) },
                verify: { _ in try connection.integer(BenchmarkData.checksumIntegers) },
                close: { connection.close(finalizing: [insert]) }
            )
        case .readByIndex, .readByName:
            try connection.populateIntegers(rows: rows)
            let select = try connection.prepare(BenchmarkData.selectIntegers)
            // Column names resolved once, as a careful C programmer reading by name would.
            let indexes =
                workload == .readByIndex
                ? Array(0..<Int32(10)) : try BenchmarkData.columnNames.map { try connection.columnIndex(select, $0) }
            return PreparedRun(
                body: {
                    var sum: Int64 = 0
                    var code = API.step(select)
                    while code == API.row {
                        for index in indexes { sum &+= API.columnInt64(select, index) }
                        code = API.step(select)
                    }
                    API.reset(select)
                    guard code == API.done else { throw connection.error(BenchmarkData.selectIntegers) }
                    return sum
                },
                close: { connection.close(finalizing: [select]) }
            )
        case .readOneColumn:
            try connection.populateIntegers(rows: rows)
            let select = try connection.prepare(BenchmarkData.selectOneColumn)
            return PreparedRun(
                body: {
                    var sum: Int64 = 0
                    var code = API.step(select)
                    while code == API.row {
                        sum &+= API.columnInt64(select, 0)
                        code = API.step(select)
                    }
                    API.reset(select)
                    guard code == API.done else { throw connection.error(BenchmarkData.selectOneColumn) }
                    return sum
                },
                close: { connection.close(finalizing: [select]) }
            )
        case .lookupsOneTransaction, .lookupsTransactionEach, .queueRead, .queueReadAsync:
            try connection.populateIntegers(rows: rows)
            let select = try connection.prepare(BenchmarkData.selectByID)
            let begin = try connection.prepare("BEGIN DEFERRED TRANSACTION")
            let commit = try connection.prepare("COMMIT TRANSACTION")
            let lookups = size.lookups
            // A queue read is 4b for raw C: one transaction per lookup, with nothing to serialize.
            let eachInTransaction = workload != .lookupsOneTransaction
            return PreparedRun(
                body: {
                    var sum: Int64 = 0
                    if !eachInTransaction { try connection.run(begin) }
                    for lookup in 0..<lookups {
                        if eachInTransaction { try connection.run(begin) }
                        API.bindInt64(select, 1, BenchmarkData.lookupID(lookup, rows: rows))
                        guard API.step(select) == API.row else { throw connection.error(BenchmarkData.selectByID) }
                        sum &+= API.columnInt64(select, 0)
                        API.reset(select)
                        if eachInTransaction { try connection.run(commit) }
                    }
                    if !eachInTransaction { try connection.run(commit) }
                    return sum
                },
                close: { connection.close(finalizing: [select, begin, commit]) }
            )
        case .insertTextBlob:
            try connection.execute(BenchmarkData.createTextBlob)
            let insert = try connection.prepare(BenchmarkData.insertTextBlob)
            return PreparedRun(
                body: { try connection.insertTextBlob(insert, rows: rows) },
                verify: { _ in try connection.integer(BenchmarkData.checksumTextBlob) },
                close: { connection.close(finalizing: [insert]) }
            )
        case .readTextBlob:
            try connection.execute(BenchmarkData.createTextBlob)
            let insert = try connection.prepare(BenchmarkData.insertTextBlob)
            _ = try connection.insertTextBlob(insert, rows: rows)
            let select = try connection.prepare(BenchmarkData.selectTextBlob)
            return PreparedRun(
                body: {
                    var sum: Int64 = 0
                    var code = API.step(select)
                    while code == API.row {
                        let textBytes = Int(API.columnBytes(select, 0))
                        let text = API.columnText(select, 0).map {
                            String(decoding: UnsafeBufferPointer(start: $0, count: textBytes), as: UTF8.self)
                        }
                        let blob = API.columnBlob(select, 1).map {
                            Data(bytes: $0, count: Int(API.columnBytes(select, 1)))
                        }
                        guard let text, let blob else { throw BenchmarkError("NULL text or blob") }
                        sum &+= BenchmarkData.textBlobChecksum(
                            textCount: text.utf8.count, textLast: text.utf8.last ?? 0,
                            blobCount: blob.count, blobLast: blob.last ?? 0)
                        code = API.step(select)
                    }
                    API.reset(select)
                    guard code == API.done else { throw connection.error(BenchmarkData.selectTextBlob) }
                    return sum
                },
                close: { connection.close(finalizing: [insert, select]) }
            )
        case .scalarFunction, .scalarFunctionLowLevel, .aggregateFunction, .aggregateFunctionLowLevel:
            // Registering a function takes C types this generic baseline does not have: RawCBenchmarks does it.
            throw BenchmarkError("\(workload.rawValue) is implemented per SQLite build, not by the generic baseline")
        case .bindStepColumnReset:
            let select = try connection.prepare(BenchmarkData.selectPlusOne)
            let iterations = size.iterations
            return PreparedRun(
                body: { try directBindStepColumnReset(select, iterations: iterations) },
                close: { connection.close(finalizing: [select]) }
            )
        case .poolRead, .poolReadAsync:
            // The async form has no C counterpart: C runs the one-thread accesses (`size.threads` is 1).
            try connection.populateIntegers(rows: rows)
            let readers = try CReaders<API>(count: size.threads, location: connection.location)
            let accesses = size.lookups
            return PreparedRun(
                body: { try readers.run(accesses: accesses, rows: rows) },
                close: {
                    readers.close()
                    connection.close()
                }
            )
        case .poolWrite, .poolWriteWithReads:
            throw BenchmarkError("\(workload.rawValue) measures a library's pool; raw C has none")
        case .oneOffStatements:
            for sql in BenchmarkData.oneOffSetup { try connection.execute(sql) }
            let statements = BenchmarkData.oneOffStatements(size.lookups)
            return PreparedRun(
                body: {
                    // Each statement prepared (without SQLITE_PREPARE_PERSISTENT: it is used once), run, finalized.
                    var sum: Int64 = 0
                    for statement in statements {
                        var prepared: OpaquePointer?
                        guard API.prepare(connection.handle, statement.sql, -1, 0, &prepared, nil) == API.ok,
                            let handle = prepared
                        else { throw connection.error(statement.sql) }
                        defer { API.finalize(handle) }
                        for _ in 0..<statement.runs {
                            let code = API.step(handle)
                            if statement.returnsValue {
                                guard code == API.row else { throw connection.error(statement.sql) }
                                sum &+= API.columnInt64(handle, 0)
                            } else {
                                guard code == API.done else { throw connection.error(statement.sql) }
                            }
                            API.reset(handle)
                        }
                    }
                    return sum
                },
                verify: { sum in sum &+ (try connection.integer(BenchmarkData.checksumOneOff)) },
                close: { connection.close() }
            )
        case .blobReadChunks, .backupRows:
            return try prepareSchemaAndMaintenance(workload, size: size, connection: connection)
        case .changesetCapture, .changesetApply:
            // The session extension is not part of SQLiteCAPI: RawCBenchmarks implements these workloads itself.
            throw BenchmarkError("\(workload.rawValue) needs the session extension")
        default:
            // The encryption workloads run through SQLiteToolkit's key API only.
            throw BenchmarkError("\(workload.rawValue) is not implemented in C")
        }
    }

    /// The micro-benchmark loop, calling the C functions directly; BindingsBenchmarks runs the same loop through the
    /// generated wrappers. Never inlined, so it stands out in a profile.
    @inlinable @inline(never)
    public static func directBindStepColumnReset(_ statement: OpaquePointer, iterations: Int) throws -> Int64 {
        var sum: Int64 = 0
        for iteration in 0..<Int64(iterations) {
            guard API.bindInt64(statement, 1, iteration) == API.ok else { throw BenchmarkError("bind failed") }
            guard API.step(statement) == API.row else { throw BenchmarkError("step failed") }
            sum &+= API.columnInt64(statement, 0)
            guard API.reset(statement) == API.ok else { throw BenchmarkError("reset failed") }
        }
        return sum
    }
}

/// A connection opened with the flags and pragmas every implementation uses.
@usableFromInline
final class CConnection<API: SQLiteCAPI> {
    @usableFromInline var handle: OpaquePointer?
    @usableFromInline let location: DatabaseLocation

    @inlinable
    init(_ location: DatabaseLocation) throws {
        self.location = location
        let flags = API.openReadWrite | API.openCreate | API.openNoMutex
        var connection: OpaquePointer?
        let code = API.open(location.path, &connection, flags, nil)
        handle = connection
        guard code == API.ok, connection != nil else {
            let message = self.message
            close()
            throw BenchmarkError("open \(location.path): \(code) \(message)")
        }
        for pragma in location.storage.pragmas { try execute(pragma) }
    }

    @inlinable
    var message: String {
        handle.flatMap { API.errorMessage($0) }.map { String(cString: $0) } ?? "out of memory"
    }

    @inlinable
    func error(_ sql: String) -> BenchmarkError {
        BenchmarkError("\(sql): \(message)")
    }

    @inlinable
    func close(finalizing statements: [OpaquePointer] = []) {
        for statement in statements { API.finalize(statement) }
        API.close(handle)
        handle = nil
    }

    @inlinable
    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        let code = API.prepare(handle, sql, -1, API.preparePersistent, &statement, nil)
        guard code == API.ok, let statement else { throw error(sql) }
        return statement
    }

    @inlinable
    func execute(_ sql: String) throws {
        guard API.exec(handle, sql) == API.ok else { throw error(sql) }
    }

    /// Steps a statement that returns no row, and resets it.
    @inlinable
    func run(_ statement: OpaquePointer) throws {
        let code = API.step(statement)
        API.reset(statement)
        guard code == API.done else { throw error("step") }
    }

    @inlinable
    func integer(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        defer { API.finalize(statement) }
        guard API.step(statement) == API.row else { throw error(sql) }
        return API.columnInt64(statement, 0)
    }

    @inlinable
    func columnIndex(_ statement: OpaquePointer, _ name: String) throws -> Int32 {
        for index in 0..<API.columnCount(statement) {
            if let columnName = API.columnName(statement, index), String(cString: columnName) == name {
                return index
            }
        }
        throw BenchmarkError("no column \(name)")
    }

    @inlinable
    func populateIntegers(rows: Int) throws {
        try execute(BenchmarkData.createIntegers)
        let insert = try prepare(BenchmarkData.insertPositional)
        defer { API.finalize(insert) }
        _ = try insertIntegers(insert, rows: rows)
    }

    /// Inserts `rows` rows of 10 integers in one transaction; named and positional parameters bind alike, since
    /// `:c0` ... `:c9` are numbered 1 ... 10 in order.
    @inlinable
    func insertIntegers(_ insert: OpaquePointer, rows: Int) throws -> Int64 {
        try execute("BEGIN IMMEDIATE TRANSACTION")
        for row in 0..<rows {
            for column in 0..<10 {
                API.bindInt64(insert, Int32(column + 1), BenchmarkData.integer(row: row, column: column))
            }
            let code = API.step(insert)
            API.reset(insert)
            guard code == API.done else { throw error(BenchmarkData.insertPositional) }
        }
        try execute("COMMIT TRANSACTION")
        return Int64(rows)
    }

    @inlinable
    func insertTextBlob(_ insert: OpaquePointer, rows: Int) throws -> Int64 {
        let texts = BenchmarkData.texts
        let blobs = BenchmarkData.blobs
        let transient = API.transient
        try execute("BEGIN IMMEDIATE TRANSACTION")
        for row in 0..<rows {
            let text = texts[row % BenchmarkData.poolSize]
            let blob = blobs[row % BenchmarkData.poolSize]
            let textCode = text.withCString { API.bindText(insert, 1, $0, Int32(text.utf8.count), transient) }
            let blobCode = blob.withUnsafeBytes { API.bindBlob(insert, 2, $0.baseAddress, Int32($0.count), transient) }
            guard textCode == API.ok, blobCode == API.ok else { throw error("bind") }
            let code = API.step(insert)
            API.reset(insert)
            guard code == API.done else { throw error(BenchmarkData.insertTextBlob) }
        }
        try execute("COMMIT TRANSACTION")
        return Int64(rows)
    }
}

/// The raw C side of `pool-read-N-threads`: a connection per thread, each with its `BEGIN`, lookup and `COMMIT`
/// statements prepared once, running one read transaction of 20 point lookups per access. No lock, no shared state:
/// the limit a pool's read path can approach.
@usableFromInline
final class CReaders<API: SQLiteCAPI>: @unchecked Sendable {
    // @unchecked Sendable: reader `i` (its connection and statements) is used only by thread `i` of `run`, and the
    // threads are joined before `run` returns; `close` runs after.
    @usableFromInline let connections: [CConnection<API>]
    /// `BEGIN DEFERRED TRANSACTION`, the lookup and `COMMIT TRANSACTION` of each connection.
    @usableFromInline let statements: [(begin: OpaquePointer, select: OpaquePointer, commit: OpaquePointer)]

    @inlinable
    init(count: Int, location: DatabaseLocation) throws {
        var connections: [CConnection<API>] = []
        var statements: [(begin: OpaquePointer, select: OpaquePointer, commit: OpaquePointer)] = []
        do {
            for _ in 0..<count {
                let connection = try CConnection<API>(location)
                connections.append(connection)
                try connection.execute(BenchmarkData.poolReaderMemoryMap)
                statements.append(
                    (
                        try connection.prepare("BEGIN DEFERRED TRANSACTION"),
                        try connection.prepare(BenchmarkData.selectByID),
                        try connection.prepare("COMMIT TRANSACTION")
                    ))
            }
        } catch {
            for (index, connection) in connections.enumerated() {
                connection.close(finalizing: index < statements.count ? Self.list(statements[index]) : [])
            }
            throw error
        }
        self.connections = connections
        self.statements = statements
        // Every connection reads the table once before timing, as the pools' warm-up opens their readers.
        for index in connections.indices { _ = try access(0, on: index, rows: 1) }
    }

    @inlinable
    static func list(_ statements: (begin: OpaquePointer, select: OpaquePointer, commit: OpaquePointer))
        -> [OpaquePointer]
    { [statements.begin, statements.select, statements.commit] }

    /// Access `access` on connection `index`: `BEGIN`, 20 point lookups summed, `COMMIT`.
    @inlinable
    func access(_ access: Int, on index: Int, rows: Int) throws -> Int64 {
        let connection = connections[index]
        let (begin, select, commit) = statements[index]
        try connection.run(begin)
        var sum: Int64 = 0
        for lookup in 0..<BenchmarkData.lookupsPerPoolAccess {
            API.bindInt64(select, 1, BenchmarkData.poolLookupID(access: access, index: lookup, rows: rows))
            guard API.step(select) == API.row else {
                API.reset(select)
                try? connection.run(commit)
                throw connection.error(BenchmarkData.selectByID)
            }
            sum &+= API.columnInt64(select, 0)
            API.reset(select)
        }
        try connection.run(commit)
        return sum
    }

    /// The accesses shared by one thread per connection, started together.
    @inlinable
    func run(accesses: Int, rows: Int) throws -> Int64 {
        try sumOnThreads(connections.count, accesses: accesses) { access, thread in
            try self.access(access, on: thread, rows: rows)
        }
    }

    @inlinable
    func close() {
        for (index, connection) in connections.enumerated() {
            connection.close(finalizing: Self.list(statements[index]))
        }
    }
}
