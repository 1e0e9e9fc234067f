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
    /// 1d. The inserts of 1a while a transaction observer that wants row changes watches another table: what an
    /// observer costs the writes it does not watch (raw C runs 1a's code: it has no observers).
    case insertObserved = "insert-observed"
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

    // Encryption (the Encryption article): the cost of a key at open, of key derivation per cipher, and of reading and
    // writing through each cipher against no key. Encrypted databases are files: these run on `wal` storage only.
    /// Open a file database, read its schema, close it; no key.
    case encryptionOpenNoKey = "encryption-open-no-key"
    /// The same with a raw 256-bit key (ChaCha20): no key derivation.
    case encryptionOpenRawKey = "encryption-open-raw-key"
    /// Open and read the schema with a passphrase and ChaCha20's default key derivation (PBKDF2-SHA256, 64,007).
    case encryptionKDFChaCha20 = "encryption-kdf-chacha20"
    /// The same with AES-256-CBC (4,001 SHA-256 rounds).
    case encryptionKDFAES256 = "encryption-kdf-aes256cbc"
    /// The same with AEGIS (Argon2id, 2 passes over 19 MiB).
    case encryptionKDFAEGIS = "encryption-kdf-aegis"
    /// The same with Ascon-128 (Ascon PBKDF2, 64,007).
    case encryptionKDFAscon = "encryption-kdf-ascon128"
    /// The same with SQLCipher 4 (PBKDF2-HMAC-SHA512, 256,000).
    case encryptionKDFSQLCipher4 = "encryption-kdf-sqlcipher4"
    /// The same with SQLCipher 3 (PBKDF2-HMAC-SHA1, 64,000).
    case encryptionKDFSQLCipher3 = "encryption-kdf-sqlcipher3"
    /// 1a on a file with no key, for the ciphers below.
    case encryptionInsertNone = "encryption-insert-none"
    /// 1a through ChaCha20-Poly1305 (raw key).
    case encryptionInsertChaCha20 = "encryption-insert-chacha20"
    /// 1a through AES-256-CBC.
    case encryptionInsertAES256 = "encryption-insert-aes256cbc"
    /// 1a through AEGIS-256 (raw key).
    case encryptionInsertAEGIS = "encryption-insert-aegis"
    /// 1a through Ascon-128 (raw key).
    case encryptionInsertAscon = "encryption-insert-ascon128"
    /// 1a through SQLCipher 4 (raw key).
    case encryptionInsertSQLCipher4 = "encryption-insert-sqlcipher4"
    /// 2a on a file with no key, read after reopening (so pages come from the file, through the codec).
    case encryptionScanNone = "encryption-scan-none"
    /// 2a through ChaCha20-Poly1305.
    case encryptionScanChaCha20 = "encryption-scan-chacha20"
    /// 2a through AES-256-CBC.
    case encryptionScanAES256 = "encryption-scan-aes256cbc"
    /// 2a through AEGIS-256.
    case encryptionScanAEGIS = "encryption-scan-aegis"
    /// 2a through Ascon-128.
    case encryptionScanAscon = "encryption-scan-ascon128"
    /// 2a through SQLCipher 4.
    case encryptionScanSQLCipher4 = "encryption-scan-sqlcipher4"

    /// Whether the workload needs a database file (an in-memory database cannot be encrypted).
    public var needsFile: Bool { rawValue.hasPrefix("encryption-") || usesPool }

    /// Whether the workload opens databases (its unit is one open).
    var isEncryptionOpen: Bool { rawValue.hasPrefix("encryption-open-") || rawValue.hasPrefix("encryption-kdf-") }
    // Changesets (the session extension): only the implementations on SQLiteToolkit's amalgamation run them.
    /// 12a. Insert `rows` rows of 10 integers as 1a, with a session recording the table: the cost of capture is the
    /// ratio to 1a.
    case changesetCapture = "changeset-capture"
    /// 12b. Apply a changeset of `rows` inserted rows to a table that already holds every 100th row with other
    /// values; the conflict handler answers "replace" for each of those.
    case changesetApply = "changeset-apply"
    // Custom SQL functions: `iterations` rows (1M; 100k with --quick), each implementation's own registration.
    /// 6a. `SELECT f(x) FROM fx`, `f(x) = 2x + 1` an integer function: typed closure (toolkit), C, DatabaseFunction.
    case scalarFunction = "function-scalar"
    /// 6b. The same with the toolkit's low-level form (function context and raw values).
    case scalarFunctionLowLevel = "function-scalar-low-level"
    /// 6c. `SELECT sumsq(x) FROM fx`, an aggregate: `DatabaseAggregate` type (toolkit), C, GRDB's aggregate.
    case aggregateFunction = "function-sumsq"
    /// 6d. The same with the toolkit's low-level aggregate (state closure over raw values).
    case aggregateFunctionLowLevel = "function-sumsq-low-level"
    // Schema, several databases and maintenance.
    /// Read a 64 MiB blob (a tenth with `--quick`) in 64 KiB chunks through incremental BLOB I/O.
    case blobReadChunks = "blob-read-chunks"
    /// An online backup of a database of `rows` rows of 10 integers into a new in-memory database, 100 pages a step.
    case backupRows = "backup-rows"
    // One-off statements (the connection layer's second pass).
    /// 6. `lookups` distinct statements of varied shapes (`SELECT`s with different `WHERE`s, `INSERT`s into
    /// different tables), each SQL text run once or twice, as ad-hoc SQL and SQL test corpora run them: the cost
    /// of preparing, caching or not, and finalizing.
    case oneOffStatements = "one-off-statements"
    // Concurrency: the database queue and the database pool.
    /// 6a. `lookups` point lookups, each in its own read access of a queue (its own deferred transaction); raw C runs
    /// 4b's loop, so the difference is the cost of an access.
    case queueRead = "queue-read"
    /// 6b. The same through the `async` access, awaited one after another from one task.
    case queueReadAsync = "queue-read-async"
    /// 7. `lookups` read accesses of a pool, each one read transaction of 20 point lookups, shared by N threads
    /// started together (a case per N, from 1 to the core count: `pool-read-1-thread`, `pool-read-2-threads`, ...);
    /// raw C runs the same accesses on N connections of its own, one per thread, the limit of read scaling.
    case poolRead = "pool-read"
    /// 7c. The accesses of `pool-read-1-thread` through the `async` read, awaited one after another from one task:
    /// the difference from `pool-read-1-thread` is the cost of an async access (`c` runs its one-thread accesses).
    case poolReadAsync = "pool-read-async"
    /// 8a. `lookups` write accesses of a pool, each inserting one row in its own transaction.
    case poolWrite = "pool-write"
    /// 8b. The same while two threads keep reading: the ratio to 8a is what concurrent reads cost the writer.
    case poolWriteWithReads = "pool-write-with-reads"

    /// What the workload measures, for the report.
    public var summary: String {
        switch self {
        case .insertPositional: "insert rows × 10 integers, one transaction, one prepared statement, `?` arguments"
        case .insertNamed: "the same with `:name` arguments"
        case .insertObserved: "the same as insert-positional, with a transaction observer watching another table"
        case .insertCachedLookup: "the same, statement taken from the library's cache by SQL for every row"
        case .readByIndex: "read rows × 10 integers by column index, summing"
        case .readByName: "read rows × 10 integers by column name, summing"
        case .readOneColumn: "read one integer column"
        case .lookupsOneTransaction: "point lookups by rowid, cached statement, one transaction"
        case .lookupsTransactionEach: "point lookups by rowid, one (deferred) transaction per lookup"
        case .insertTextBlob: "insert rows of a 100-byte string and a 256-byte blob"
        case .readTextBlob: "read them back as String and Data"
        case .bindStepColumnReset: "`SELECT ?1 + 1`: bind, step, read column 0, reset"
        case .encryptionOpenNoKey: "open a file, read its schema, close: no key"
        case .encryptionOpenRawKey: "the same with a raw key (no key derivation)"
        case .encryptionKDFChaCha20, .encryptionKDFAES256, .encryptionKDFAEGIS, .encryptionKDFAscon,
            .encryptionKDFSQLCipher4, .encryptionKDFSQLCipher3:
            "open with a passphrase and the cipher's default key derivation, read the schema, close"
        case .encryptionInsertNone, .encryptionInsertChaCha20, .encryptionInsertAES256, .encryptionInsertAEGIS,
            .encryptionInsertAscon, .encryptionInsertSQLCipher4:
            "insert rows × 10 integers, one transaction, through the cipher (none: no key)"
        case .encryptionScanNone, .encryptionScanChaCha20, .encryptionScanAES256, .encryptionScanAEGIS,
            .encryptionScanAscon, .encryptionScanSQLCipher4:
            "read rows × 10 integers by index from a reopened file, through the cipher (none: no key)"
        case .changesetCapture: "insert rows × 10 integers as in insert-positional, a session recording the table"
        case .changesetApply: "apply a changeset of rows inserts; 1 row in 100 conflicts and is replaced"
        case .scalarFunction: "`SELECT f(x) FROM fx`, an integer function in Swift (typed closure) vs in C"
        case .scalarFunctionLowLevel: "the same, the toolkit's low-level form (context and raw values)"
        case .aggregateFunction: "`SELECT sumsq(x) FROM fx`, an aggregate in Swift (`DatabaseAggregate`) vs in C"
        case .aggregateFunctionLowLevel: "the same, the toolkit's low-level aggregate (state closure, raw values)"
        case .blobReadChunks: "read a 64 MiB blob in 64 KiB chunks, incremental BLOB I/O"
        case .backupRows: "online backup of a database of rows × 10 integers into memory, 100 pages a step"
        case .oneOffStatements: "distinct statements, each SQL run once or twice, through the statement cache"
        case .queueRead: "point lookups, one queue read access (deferred transaction) each"
        case .queueReadAsync: "the same through the async access, awaited in turn from one task"
        case .poolRead: "pool read accesses (one transaction of 20 point lookups each), shared by N threads"
        case .poolReadAsync: "the same through the async read, awaited in turn from one task"
        case .poolWrite: "pool write accesses inserting one row each"
        case .poolWriteWithReads: "the same while two threads keep reading"
        }
    }

    /// Whether the workload needs the session extension, which only SQLiteToolkit's amalgamation compiles in.
    public var needsSessionExtension: Bool {
        self == .changesetCapture || self == .changesetApply
    }

    /// The workloads of an implementation on a SQLite build without the session extension.
    public static var withoutSessionExtension: [Workload] {
        allCases.filter { !$0.needsSessionExtension }
    }

    /// The number of units (rows, lookups or iterations) the workload processes at a given size.
    public func units(_ size: WorkloadSize) -> Int {
        switch self {
        case .lookupsOneTransaction, .lookupsTransactionEach, .oneOffStatements: size.lookups
        case .bindStepColumnReset: size.iterations
        case .encryptionOpenNoKey, .encryptionOpenRawKey: size.opens
        case _ where isEncryptionOpen: size.passphraseOpens
        case let workload where workload.isFunction: size.iterations
        case .blobReadChunks: BenchmarkData.blobChunkCount(rows: size.rows)
        case .queueRead, .queueReadAsync, .poolRead, .poolReadAsync, .poolWrite, .poolWriteWithReads:
            size.lookups
        default: size.rows
        }
    }

    /// Whether the workload measures custom SQL functions, which each SQLite binding registers its own way.
    public var isFunction: Bool {
        switch self {
        case .scalarFunction, .scalarFunctionLowLevel, .aggregateFunction, .aggregateFunctionLowLevel: true
        default: false
        }
    }

    /// Whether the workload measures a pool, which needs a database file (WAL does not work in memory).
    public var usesPool: Bool {
        switch self {
        case .poolRead, .poolReadAsync, .poolWrite, .poolWriteWithReads: true
        default: false
        }
    }

    /// Whether the workload's work runs on threads other than the one that calls the timed body (a task's thread,
    /// the pool's read threads): instruction counts then take every thread's instructions.
    public var runsOnOtherThreads: Bool {
        self == .queueReadAsync || usesPool
    }

    /// Whether the workload runs once per thread count, from 1 to `--threads` (the pool's read scaling).
    public var isThreaded: Bool { self == .poolRead }

    /// The name of the workload run by `threads` threads: `pool-read-1-thread`, `pool-read-2-threads`; the raw value
    /// for the other workloads.
    public func name(threads: Int) -> String {
        guard isThreaded else { return rawValue }
        return "\(rawValue)-\(threads)-\(threads == 1 ? "thread" : "threads")"
    }

    /// The workload and thread count a name of ``name(threads:)`` stands for.
    public static func parse(_ name: String) -> (workload: Workload, threads: Int)? {
        if let workload = Workload(rawValue: name) { return workload.isThreaded ? nil : (workload, 1) }
        for workload in allCases where workload.isThreaded {
            let prefix = workload.rawValue + "-"
            guard name.hasPrefix(prefix) else { continue }
            let rest = name.dropFirst(prefix.count).split(separator: "-", maxSplits: 1)
            guard rest.count == 2, let threads = Int(rest[0]), threads > 0,
                workload.name(threads: threads) == name
            else { return nil }
            return (workload, threads)
        }
        return nil
    }

    /// The name of a unit, for "instructions per ...".
    public var unitName: String {
        switch self {
        case .lookupsOneTransaction, .lookupsTransactionEach, .queueRead, .queueReadAsync: "lookup"
        case .poolRead, .poolReadAsync, .poolWrite, .poolWriteWithReads: "access"
        case .bindStepColumnReset: "iteration"
        case _ where isEncryptionOpen: "open"
        case .blobReadChunks: "64 KiB chunk"
        case .oneOffStatements: "statement"
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
    /// The threads that share the accesses of a threaded workload (``Workload/isThreaded``); 1 for the others.
    public var threads: Int

    /// A size.
    public init(rows: Int, lookups: Int, iterations: Int, threads: Int = 1) {
        self.rows = rows
        self.lookups = lookups
        self.iterations = iterations
        self.threads = threads
    }

    /// The sizes the issue asks for: 100k rows, 10k lookups, 1M micro-benchmark iterations.
    public static let full = WorkloadSize(rows: 100_000, lookups: 10_000, iterations: 1_000_000)
    /// A tenth, for development.
    public static let quick = WorkloadSize(rows: 10_000, lookups: 1_000, iterations: 100_000)

    /// Opens of the open workloads without key derivation: a tenth of the lookups.
    public var opens: Int { lookups / 10 }
    /// Opens of the key-derivation workloads (each costs up to half a second): one per 2,000 lookups, at least one.
    public var passphraseOpens: Int { lookups == 0 ? 0 : max(1, lookups / 2000) }

    /// The same size with every count replaced by `count` (0 measures the fixed cost of a run).
    public func scaled(to count: Int, for workload: Workload) -> WorkloadSize {
        var size = self
        switch workload {
        case .lookupsOneTransaction, .lookupsTransactionEach, .oneOffStatements: size.lookups = count
        case .queueRead, .queueReadAsync, .poolRead, .poolReadAsync, .poolWrite, .poolWriteWithReads:
            size.lookups = count
        case .bindStepColumnReset: size.iterations = count
        case .encryptionOpenNoKey, .encryptionOpenRawKey: size.lookups = count * 10
        case _ where workload.isEncryptionOpen: size.lookups = count * 2000
        case let workload where workload.isFunction: size.iterations = count
        case .blobReadChunks: size.rows = BenchmarkData.rows(forBlobChunkCount: count)
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

    /// The rows of the apply target that conflict with the changeset: every `changesetConflictInterval`-th row.
    public static let changesetConflictInterval = 100
    /// The table of the blob workload: one row, the blob in `content`.
    public static let createBlobTable = "CREATE TABLE blob (id INTEGER PRIMARY KEY, content BLOB NOT NULL)"
    /// The chunk size of the blob workload: 64 KiB.
    public static let blobChunkSize = 65_536

    /// The number of 64 KiB chunks of the blob at a size: 1024 (64 MiB) for the full 100k rows, a tenth for
    /// `--quick`.
    @inlinable
    public static func blobChunkCount(rows: Int) -> Int {
        rows * 1024 / 100_000
    }

    /// The smallest `rows` whose ``blobChunkCount(rows:)`` is `chunkCount`.
    public static func rows(forBlobChunkCount chunkCount: Int) -> Int {
        (chunkCount * 100_000 + 1023) / 1024
    }

    /// The bytes of chunk `chunk` of the blob: byte `i` is `i + chunk` modulo 256, so every chunk differs.
    public static func blobChunk(_ chunk: Int) -> [UInt8] {
        (0..<blobChunkSize).map { UInt8(truncatingIfNeeded: $0 &+ chunk) }
    }

    /// What reading chunk `chunk` adds to the checksum: its first and last bytes and its number.
    @inlinable
    public static func blobChunkChecksum(chunk: Int, first: UInt8, last: UInt8) -> Int64 {
        Int64(chunk &+ Int(first) &* 3 &+ Int(last) &* 5)
    }

    /// The pages the backup workload copies per step.
    public static let backupPagesPerStep: Int32 = 100

    /// The micro-benchmark's statement.
    public static let selectPlusOne = "SELECT ?1 + 1"

    /// The table of the function workloads.
    public static let createFunctionTable = "CREATE TABLE fx (x INTEGER NOT NULL)"
    /// Fills it with the integers 1 ... `rows`.
    public static func populateFunctionTable(rows: Int) -> String {
        "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < \(rows)) INSERT INTO fx (x) SELECT i FROM s"
    }
    /// The scalar function workload's query; every implementation sums its rows.
    public static let selectScalarFunction = "SELECT f(x) FROM fx"
    /// The aggregate workload's query.
    public static let selectAggregateFunction = "SELECT sumsq(x) FROM fx"

    /// The scalar function: `2x + 1`, wrapping.
    @inlinable
    public static func scalarFunction(_ x: Int64) -> Int64 {
        x &* 2 &+ 1
    }

    /// One statement of the one-off workload.
    public struct OneOffStatement: Sendable {
        /// The SQL, with its values written in, so that every statement's text is distinct.
        public var sql: String
        /// Whether it returns one row whose integer column 0 is added to the checksum (else it is an `INSERT`).
        public var returnsValue: Bool
        /// How many times the same SQL runs: 1 or 2.
        public var runs: Int
    }

    /// The tables of the one-off workload, each with 100 rows.
    public static let oneOffSetup: [String] = (0..<4).flatMap { table in
        [
            "CREATE TABLE o\(table) (id INTEGER PRIMARY KEY, a INTEGER NOT NULL, b TEXT NOT NULL)",
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100) "
                + "INSERT INTO o\(table) (a, b) SELECT i * \(table + 3), 'row ' || i FROM n",
        ]
    }

    /// `count` distinct statements over the four tables: point reads, counts, ranges and inserts.
    public static func oneOffStatements(_ count: Int) -> [OneOffStatement] {
        (0..<count).map { index in
            let table = "o\(index % 4)"
            let runs = index % 3 == 0 ? 2 : 1
            switch index % 4 {
            case 0:
                return OneOffStatement(
                    sql: "SELECT a + \(index) FROM \(table) WHERE id = \(index % 100 + 1)", returnsValue: true,
                    runs: runs)
            case 1:
                return OneOffStatement(
                    sql: "SELECT count(*) FROM \(table) WHERE a > \(index % 300) AND b <> 'x\(index)'",
                    returnsValue: true, runs: runs)
            case 2:
                return OneOffStatement(
                    sql: "INSERT INTO \(table) (a, b) VALUES (\(index), 'inserted \(index)')", returnsValue: false,
                    runs: runs)
            default:
                return OneOffStatement(
                    sql:
                        "SELECT coalesce(sum(a), 0) FROM \(table) WHERE id BETWEEN \(index % 90) AND \(index % 90 + 10) "
                        + "AND a <> -\(index)",
                    returnsValue: true, runs: runs)
            }
        }
    }

    /// The checksum of the one-off tables, after the workload.
    public static let checksumOneOff =
        "SELECT count(*) + total(a) FROM (SELECT a FROM o0 UNION ALL SELECT a FROM o1 UNION ALL SELECT a FROM o2 "
        + "UNION ALL SELECT a FROM o3)"

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

    /// The point lookups of one pool read access.
    public static let lookupsPerPoolAccess = 20

    /// The rowid of lookup `index` (0 ..< ``lookupsPerPoolAccess``) of pool read access `access`.
    @inlinable
    public static func poolLookupID(access: Int, index: Int, rows: Int) -> Int64 {
        lookupID(access &* lookupsPerPoolAccess &+ index, rows: rows)
    }

    /// The pragma every connection that reads in the pool workloads runs, the pool's own and raw C's alike: the
    /// memory mapping SQLiteToolkit's pool gives its readers (`DatabasePool.readerMemoryMapSize`), so the
    /// implementations differ in their wrapper, not in their I/O.
    public static let poolReaderMemoryMap = "PRAGMA mmap_size = 268435456"

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
