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

    // Encryption (docs/Encryption.md): the cost of a key at open, of key derivation per cipher, and of reading and
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
    public var needsFile: Bool { rawValue.hasPrefix("encryption-") }

    /// Whether the workload opens databases (its unit is one open).
    var isEncryptionOpen: Bool { rawValue.hasPrefix("encryption-open-") || rawValue.hasPrefix("encryption-kdf-") }

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
        }
    }

    /// The number of units (rows, lookups or iterations) the workload processes at a given size.
    public func units(_ size: WorkloadSize) -> Int {
        switch self {
        case .lookupsOneTransaction, .lookupsTransactionEach: size.lookups
        case .bindStepColumnReset: size.iterations
        case .encryptionOpenNoKey, .encryptionOpenRawKey: size.opens
        case _ where isEncryptionOpen: size.passphraseOpens
        default: size.rows
        }
    }

    /// The name of a unit, for "instructions per ...".
    public var unitName: String {
        switch self {
        case .lookupsOneTransaction, .lookupsTransactionEach: "lookup"
        case .bindStepColumnReset: "iteration"
        case _ where isEncryptionOpen: "open"
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

    /// Opens of the open workloads without key derivation: a tenth of the lookups.
    public var opens: Int { lookups / 10 }
    /// Opens of the key-derivation workloads (each costs up to half a second): one per 2,000 lookups, at least one.
    public var passphraseOpens: Int { lookups == 0 ? 0 : max(1, lookups / 2000) }

    /// The same size with every count replaced by `count` (0 measures the fixed cost of a run).
    public func scaled(to count: Int, for workload: Workload) -> WorkloadSize {
        var size = self
        switch workload {
        case .lookupsOneTransaction, .lookupsTransactionEach: size.lookups = count
        case .bindStepColumnReset: size.iterations = count
        case .encryptionOpenNoKey, .encryptionOpenRawKey: size.lookups = count * 10
        case _ where workload.isEncryptionOpen: size.lookups = count * 2000
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
