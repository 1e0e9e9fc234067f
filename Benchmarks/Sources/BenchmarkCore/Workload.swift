/// One workload of the benchmark: what every implementation does, and how its result is checked.
///
/// Every implementation computes a checksum from what it wrote or read; the harness fails when two implementations
/// of the same workload disagree, so a broken implementation cannot look fast, and the compiler cannot drop the
/// work.
public enum Workload: String, CaseIterable, Sendable, Codable {
    /// 1a. Insert `rows` rows of 10 integers in one transaction through one prepared statement, positional `?`.
    case insertPositional = "insert-positional"
    /// 1b. The same with named parameters (`:c0` ... `:c9`).
    case insertNamed = "insert-named"
    /// 1c. The same as 1a through the library's statement cache, looked up by SQL text for every row.
    case insertCachedLookup = "insert-cache-lookup"
    /// 2a. Read `rows` rows of 10 integers, by column index, summing them.
    case readByIndex = "read-by-index"
    /// 2b. The same, by column name.
    case readByName = "read-by-name"
    /// 3. Read one integer column of `rows` rows.
    case readOneColumn = "read-one-column"
    /// 4a. `lookups` point lookups by rowid through a cached statement, all in one transaction.
    case lookupsOneTransaction = "lookups-one-transaction"
    /// 4b. The same with one transaction per lookup: the difference from 4a is the cost of a transaction.
    case lookupsTransactionEach = "lookups-transaction-each"
    /// 5a. Insert `rows` rows of a 100-byte string and a 256-byte blob.
    case insertTextBlob = "insert-text-blob"
    /// 5b. Read them back into `String` and `Data`.
    case readTextBlob = "read-text-blob"
    /// The bindings micro-benchmark: `SELECT ?1 + 1`, bind, step, read, reset, `iterations` times.
    case bindStepColumnReset = "bind-step-column-reset"

    // Concurrency: the database queue and the database pool.
    /// 6a. `lookups` point lookups, each in its own read access of a queue (its own deferred transaction); raw C runs
    /// 4b's loop, so the difference is the cost of an access.
    case queueRead = "queue-read"
    /// 6b. The same through the `async` access, awaited one after another from one task.
    case queueReadAsync = "queue-read-async"
    /// 7a. `lookups` read accesses of a pool, each summing 20 point lookups, from one thread.
    case poolReadOneThread = "pool-read-1-thread"
    /// 7b. The same accesses shared between two threads: the ratio to 7a is the pool's read scaling.
    case poolReadTwoThreads = "pool-read-2-threads"
    /// 8a. `lookups` write accesses of a pool, each inserting one row in its own transaction.
    case poolWrite = "pool-write"
    /// 8b. The same while two threads keep reading: the ratio to 8a is what concurrent reads cost the writer.
    case poolWriteWithReads = "pool-write-with-reads"

    /// What the workload measures, for the report.
    public var summary: String {
        switch self {
        case .insertPositional: "insert rows × 10 integers, one transaction, one prepared statement, `?` arguments"
        case .insertNamed: "the same with `:name` arguments"
        case .insertCachedLookup: "the same, statement taken from the library's cache by SQL for every row"
        case .readByIndex: "read rows × 10 integers by column index, summing"
        case .readByName: "read rows × 10 integers by column name, summing"
        case .readOneColumn: "read one integer column"
        case .lookupsOneTransaction: "point lookups by rowid, cached statement, one transaction"
        case .lookupsTransactionEach: "point lookups by rowid, one (deferred) transaction per lookup"
        case .insertTextBlob: "insert rows of a 100-byte string and a 256-byte blob"
        case .readTextBlob: "read them back as String and Data"
        case .bindStepColumnReset: "`SELECT ?1 + 1`: bind, step, read column 0, reset"
        case .queueRead: "point lookups, one queue read access (deferred transaction) each"
        case .queueReadAsync: "the same through the async access, awaited in turn from one task"
        case .poolReadOneThread: "pool read accesses of 20 point lookups each, one thread"
        case .poolReadTwoThreads: "the same accesses shared between two threads"
        case .poolWrite: "pool write accesses inserting one row each"
        case .poolWriteWithReads: "the same while two threads keep reading"
        }
    }

    /// The number of units (rows, lookups or iterations) the workload processes at a given size.
    public func units(_ size: WorkloadSize) -> Int {
        switch self {
        case .lookupsOneTransaction, .lookupsTransactionEach: size.lookups
        case .bindStepColumnReset: size.iterations
        case .queueRead, .queueReadAsync, .poolReadOneThread, .poolReadTwoThreads, .poolWrite, .poolWriteWithReads:
            size.lookups
        default: size.rows
        }
    }

    /// Whether the workload measures a pool, which needs a database file (WAL does not work in memory).
    public var usesPool: Bool {
        switch self {
        case .poolReadOneThread, .poolReadTwoThreads, .poolWrite, .poolWriteWithReads: true
        default: false
        }
    }

    /// The name of a unit, for "instructions per ...".
    public var unitName: String {
        switch self {
        case .lookupsOneTransaction, .lookupsTransactionEach, .queueRead, .queueReadAsync: "lookup"
        case .poolReadOneThread, .poolReadTwoThreads, .poolWrite, .poolWriteWithReads: "access"
        case .bindStepColumnReset: "iteration"
        default: "row"
        }
    }
}

/// Where the database of one repetition lives.
public enum Storage: String, CaseIterable, Sendable, Codable {
    /// `:memory:`.
    case memory
    /// A new file in a temporary folder, `PRAGMA journal_mode = WAL` and `PRAGMA synchronous = NORMAL`.
    case wal

    /// The pragmas every implementation runs right after opening, in this order.
    public var pragmas: [String] {
        switch self {
        case .memory: ["PRAGMA foreign_keys = ON"]
        case .wal: ["PRAGMA foreign_keys = ON", "PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL"]
        }
    }
}

/// How much work one repetition does.
public struct WorkloadSize: Sendable, Codable, Equatable {
    /// Rows inserted or read.
    public var rows: Int
    /// Point lookups (into a table of `rows` rows).
    public var lookups: Int
    /// Iterations of the bindings micro-benchmark.
    public var iterations: Int

    /// A size.
    public init(rows: Int, lookups: Int, iterations: Int) {
        self.rows = rows
        self.lookups = lookups
        self.iterations = iterations
    }

    /// The sizes the issue asks for: 100k rows, 10k lookups, 1M micro-benchmark iterations.
    public static let full = WorkloadSize(rows: 100_000, lookups: 10_000, iterations: 1_000_000)
    /// A tenth, for development.
    public static let quick = WorkloadSize(rows: 10_000, lookups: 1_000, iterations: 100_000)

    /// The same size with every count replaced by `count` (0 measures the fixed cost of a run).
    public func scaled(to count: Int, for workload: Workload) -> WorkloadSize {
        var size = self
        switch workload {
        case .lookupsOneTransaction, .lookupsTransactionEach: size.lookups = count
        case .queueRead, .queueReadAsync, .poolReadOneThread, .poolReadTwoThreads, .poolWrite, .poolWriteWithReads:
            size.lookups = count
        case .bindStepColumnReset: size.iterations = count
        default: size.rows = count
        }
        return size
    }
}

/// The data every implementation writes, so that every implementation's checksum is the same.
public enum BenchmarkData {
    /// The SQL that creates the table of integers.
    public static let createIntegers =
        "CREATE TABLE t (id INTEGER PRIMARY KEY, c0 INTEGER, c1 INTEGER, c2 INTEGER, c3 INTEGER, c4 INTEGER, "
        + "c5 INTEGER, c6 INTEGER, c7 INTEGER, c8 INTEGER, c9 INTEGER)"
    /// Insert 10 integers, positional arguments.
    public static let insertPositional =
        "INSERT INTO t (c0, c1, c2, c3, c4, c5, c6, c7, c8, c9) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    /// Insert 10 integers, named arguments.
    public static let insertNamed =
        "INSERT INTO t (c0, c1, c2, c3, c4, c5, c6, c7, c8, c9) VALUES (:c0, :c1, :c2, :c3, :c4, :c5, :c6, :c7, :c8, :c9)"
    /// The names of the integer columns, which are also the names of the named parameters without their `:`.
    public static let columnNames = ["c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9"]
    /// Read the 10 integers of every row.
    public static let selectIntegers = "SELECT c0, c1, c2, c3, c4, c5, c6, c7, c8, c9 FROM t"
    /// Read one integer column.
    public static let selectOneColumn = "SELECT c7 FROM t"
    /// The point lookup.
    public static let selectByID = "SELECT c9 FROM t WHERE id = ?"
    /// The checksum of a table of integers, after an insert workload.
    public static let checksumIntegers =
        "SELECT count(*) + total(c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7 + c8 + c9) FROM t"

    /// The table of text and blobs.
    public static let createTextBlob = "CREATE TABLE tb (id INTEGER PRIMARY KEY, t TEXT NOT NULL, b BLOB NOT NULL)"
    /// Insert one string and one blob.
    public static let insertTextBlob = "INSERT INTO tb (t, b) VALUES (?, ?)"
    /// Read them back.
    public static let selectTextBlob = "SELECT t, b FROM tb"
    /// The checksum of the table of text and blobs, after the insert workload.
    public static let checksumTextBlob =
        "SELECT count(*) + total(length(t) + length(b) + unicode(substr(t, -1)) + unicode(substr(t, 1, 1))) FROM tb"

    /// The micro-benchmark's statement.
    public static let selectPlusOne = "SELECT ?1 + 1"

    /// The value of integer column `column` (0...9) of row `row` (0-based).
    @inlinable
    public static func integer(row: Int, column: Int) -> Int64 {
        Int64(row &* 10 &+ column)
    }

    /// The rowid looked up by lookup number `lookup` in a table of `rows` rows: a fixed pseudo-random walk.
    @inlinable
    public static func lookupID(_ lookup: Int, rows: Int) -> Int64 {
        Int64((lookup &* 7919) % max(rows, 1) + 1)
    }

    /// The number of distinct strings and blobs; row `i` uses number `i % poolSize`.
    public static let poolSize = 64

    /// String number `index`: 100 ASCII bytes.
    public static func text(_ index: Int) -> String {
        var bytes: [UInt8] = Array("text \(index) ".utf8)
        while bytes.count < 100 { bytes.append(UInt8(97 + (index + bytes.count) % 26)) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Blob number `index`: 256 bytes.
    public static func blob(_ index: Int) -> [UInt8] {
        (0..<256).map { UInt8(truncatingIfNeeded: index &* 7 &+ $0 &* 13) }
    }

    /// The strings of the pool.
    public static let texts: [String] = (0..<poolSize).map(text)
    /// The blobs of the pool.
    public static let blobs: [[UInt8]] = (0..<poolSize).map(blob)

    /// What a read of one text-and-blob row adds to the checksum: the byte counts and the last byte of each.
    @inlinable
    public static func textBlobChecksum(textCount: Int, textLast: UInt8, blobCount: Int, blobLast: UInt8) -> Int64 {
        Int64(textCount &+ blobCount &+ Int(textLast) &+ Int(blobLast))
    }
}
