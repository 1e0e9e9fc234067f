import BenchmarkCore
import Foundation
import SQLiteToolkit

// The encryption workloads: what a key costs at open (raw key against key derivation per cipher) and what each
// cipher costs per row written and read, against the same file with no key.

extension ToolkitImplementation {
    /// A fixed raw key: key derivation is not what the insert and scan workloads measure.
    static let rawKey = DatabaseKey.raw((0..<32).map { UInt8($0 &* 7 &+ 1) })

    /// The cipher and key of a workload; `nil` for no key.
    static func encryption(of workload: Workload) -> (Cipher, DatabaseKey)? {
        let passphrase = DatabaseKey.passphrase("benchmark passphrase")
        switch workload {
        case .encryptionOpenRawKey: return (.chaCha20(), rawKey)
        case .encryptionKDFChaCha20: return (.chaCha20(), passphrase)
        case .encryptionKDFAES256: return (.aes256CBC(), passphrase)
        case .encryptionKDFAEGIS: return (.aegis(), passphrase)
        case .encryptionKDFAscon: return (.ascon128(), passphrase)
        case .encryptionKDFSQLCipher4: return (.sqlcipher(version: 4), passphrase)
        case .encryptionKDFSQLCipher3: return (.sqlcipher(version: 3), passphrase)
        case .encryptionInsertChaCha20, .encryptionScanChaCha20: return (.chaCha20(), rawKey)
        // AES-CBC takes no raw key; its derivation runs once, at the untimed open.
        case .encryptionInsertAES256, .encryptionScanAES256: return (.aes256CBC(), passphrase)
        case .encryptionInsertAEGIS, .encryptionScanAEGIS: return (.aegis(), rawKey)
        case .encryptionInsertAscon, .encryptionScanAscon: return (.ascon128(), rawKey)
        case .encryptionInsertSQLCipher4, .encryptionScanSQLCipher4: return (.sqlcipher(version: 4), rawKey)
        default: return nil
        }
    }

    static func open(_ path: String, _ encryption: (Cipher, DatabaseKey)?) throws -> Database {
        var configuration = Database.Configuration()
        if let (cipher, key) = encryption {
            configuration.cipher = cipher
            configuration.key = key
        }
        return try Database(path: path, configuration: configuration)
    }

    func prepareEncryption(_ workload: Workload, size: WorkloadSize, location: DatabaseLocation) throws -> PreparedRun {
        let path = location.path
        let encryption = Self.encryption(of: workload)
        let rows = size.rows
        // The file every workload starts from, created with the workload's key and the storage's pragmas.
        let db = try Self.open(path, encryption)
        do {
            for pragma in location.storage.pragmas { try db.execute(pragma) }
        } catch {
            db.close()
            throw error
        }
        let rawValue = workload.rawValue
        if rawValue.hasPrefix("encryption-open-") || rawValue.hasPrefix("encryption-kdf-") {
            try db.execute("CREATE TABLE t (x)")
            db.close()
            let opens = workload.units(size)
            return PreparedRun(
                body: {
                    // Opening verifies a key by reading the schema; without a key, read it explicitly.
                    var sum: Int64 = 0
                    for _ in 0..<opens {
                        let db = try Self.open(path, encryption)
                        sum &+= try db.queryValue("SELECT count(*) FROM sqlite_schema", as: Int64.self) ?? 0
                        db.close()
                    }
                    return sum
                },
                close: {}
            )
        }
        if rawValue.hasPrefix("encryption-insert-") {
            try db.execute(BenchmarkData.createIntegers)
            let insert = try db.prepare(BenchmarkData.insertPositional)
            return PreparedRun(
                body: { try insertIntegers(db, insert, rows: rows) },
                verify: { _ in try db.queryValue(BenchmarkData.checksumIntegers, as: Int64.self) ?? 0 },
                close: { db.close() }
            )
        }
        // Scans: write, checkpoint and reopen, so the timed reads decrypt pages from the file.
        try populateIntegers(db, rows: rows)
        try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
        let reader = try Self.open(path, encryption)
        return PreparedRun(
            body: {
                var sum: Int64 = 0
                let cursor = try reader.query(BenchmarkData.selectIntegers)
                while let row = try cursor.next() {
                    for index in 0..<10 { sum &+= try row.value(at: index, as: Int64.self) }
                }
                return sum
            },
            close: { reader.close() }
        )
    }
}
