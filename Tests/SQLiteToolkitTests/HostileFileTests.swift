import Foundation
import SQLiteToolkit
import Testing

/// Broken and hostile database files: each one gives a typed error or a result, never a crash, and a read-only
/// connection leaves the file byte for byte as it was.
///
/// `SQLTK_HOSTILE_FLIPS` sets the number of bit-flipped variants (default 24; `scripts/reliability-long` runs more).
@Suite("Hostile input: broken database files")
struct HostileFileTests {
    /// A database of a few pages (tables, an index, text, blobs, overflow pages), as bytes.
    static func sampleDatabase() throws -> Data {
        try TemporaryFile.withDatabasePath { path in
            let db = try Database(path: path)
            try db.execute("PRAGMA page_size = 1024")
            try db.execute("CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL, photo BLOB)")
            try db.execute("CREATE INDEX person_name ON person (name)")
            try db.execute("CREATE TABLE note (person INTEGER REFERENCES person, body TEXT)")
            try db.transaction { db in
                for id in 1...40 {
                    try db.execute(
                        "INSERT INTO person (id, name, score, photo) VALUES (?, ?, ?, randomblob(?))",
                        id, "person \(id)", Double(id) / 3, id * 37)
                    try db.execute(
                        "INSERT INTO note (person, body) VALUES (?, ?)", id,
                        String(repeating: "note \(id) ", count: id * 5))
                }
            }
            db.close()
            return try Data(contentsOf: URL(fileURLWithPath: path))
        }
    }

    /// What one hostile file did: how many reads gave results and how many gave typed errors.
    struct Outcome {
        var results = 0
        var errors = 0
    }

    /// Opens `bytes` read-only, reads everything it can as every type, and checks the file is unchanged; then
    /// opens it read-write and writes. Any error must be a ``DatabaseError``.
    static func exercise(_ bytes: Data, sourceLocation: SourceLocation = #_sourceLocation) throws -> Outcome {
        var outcome = Outcome()
        func attempt(_ body: () throws -> Void) {
            do {
                try body()
                outcome.results += 1
            } catch is DatabaseError {
                outcome.errors += 1
            } catch {
                Issue.record(
                    "a broken file threw \(type(of: error)), not DatabaseError", sourceLocation: sourceLocation)
            }
        }
        try TemporaryFile.withDatabasePath { path in
            let url = URL(fileURLWithPath: path)
            try bytes.write(to: url)
            var readOnly = Database.Configuration()
            readOnly.isReadOnly = true
            attempt {
                let db = try Database(path: path, configuration: readOnly)
                defer { db.close() }
                attempt { _ = try db.queryValue("PRAGMA integrity_check", as: String.self) }
                attempt { _ = try db.queryValue("PRAGMA quick_check", as: String.self) }
                var tables: [String] = []
                attempt {
                    tables = try db.query("SELECT name FROM sqlite_schema WHERE type = 'table'").map {
                        try $0.value(at: 0, as: String.self)
                    }
                }
                for table in tables.prefix(8) {
                    attempt {
                        let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                        let rows = try db.query("SELECT * FROM \(quoted)")
                        var count = 0
                        while let row = try rows.next() {
                            // Every row is stepped (so every page is read); the first few are read as every type.
                            count += 1
                            guard count <= 4 else { continue }
                            for column in 0..<row.count {
                                readEveryType(row, at: column, sourceLocation: sourceLocation)
                            }
                        }
                    }
                }
                attempt { _ = try db.queryValue("SELECT count(*) FROM person WHERE name > 'person 2'", as: Int.self) }
            }
            let after = try Data(contentsOf: url)
            #expect(after == bytes, "a read-only connection changed the file", sourceLocation: sourceLocation)
            attempt {
                let db = try Database(path: path)
                defer { db.close() }
                attempt { try db.execute("INSERT INTO person (name) VALUES ('new')") }
                attempt { try db.execute("DELETE FROM note WHERE person % 2 = 0") }
                attempt { try db.execute("CREATE TABLE extra (x)") }
            }
        }
        return outcome
    }

    @Test("the intact sample reads without errors (the baseline of the variants below)")
    func intactBaseline() throws {
        let outcome = try Self.exercise(try Self.sampleDatabase())
        #expect(outcome.errors == 0)
        #expect(outcome.results > 0)
    }

    @Test("truncated files: typed errors or results, no crash, read-only opens leave them unchanged")
    func truncated() throws {
        let bytes = try Self.sampleDatabase()
        let lengths = [
            1, 15, 16, 99, 100, 101, 512, 1023, 1024, 1025, 2048, bytes.count / 2, bytes.count - 1024, bytes.count - 1,
        ]
        for length in lengths {
            _ = try Self.exercise(bytes.prefix(length))
        }
        #expect(lengths.count == 14)
    }

    @Test("bit-flipped files (seeded): typed errors or results, no crash, read-only opens leave them unchanged")
    func bitFlipped() throws {
        let bytes = try Self.sampleDatabase()
        var random = SeededRandom(seed: SeededRandom.seed(default: 1616))
        let variants = environmentInteger("SQLTK_HOSTILE_FLIPS") ?? 24
        var totals = Outcome()
        for variant in 0..<variants {
            var broken = bytes
            // Half the variants hit the first two pages (header, schema), where a flip does the most damage.
            let range = variant % 2 == 0 ? 0..<2048 : 0..<bytes.count
            for _ in 0..<(1 + random.next() % 4) {
                let offset = Int.random(in: range, using: &random)
                broken[offset] ^= UInt8(1 << (random.next() % 8))
            }
            let outcome = try Self.exercise(broken)
            totals.results += outcome.results
            totals.errors += outcome.errors
        }
        if environmentInteger("SQLTK_RELIABILITY_REPORT") != nil {
            print(
                "hostile files: \(variants) bit-flipped variants, \(totals.errors) typed errors, \(totals.results) results"
            )
        }
        #expect(totals.results + totals.errors > 0)
    }

    @Test("zero-filled files and pages: typed errors or results, no crash")
    func zeroFilled() throws {
        let bytes = try Self.sampleDatabase()
        var variants: [Data] = [Data(count: bytes.count), Data(count: 1024), Data(count: 100)]
        for page in [0, 1, 2, bytes.count / 1024 / 2, bytes.count / 1024 - 1] {
            var broken = bytes
            broken.replaceSubrange(page * 1024..<(page + 1) * 1024, with: Data(count: 1024))
            variants.append(broken)
        }
        var header = bytes
        header.replaceSubrange(16..<100, with: Data(count: 84))  // page size, counters, schema format: all zero
        variants.append(header)
        for variant in variants { _ = try Self.exercise(variant) }
        #expect(variants.count == 9)
    }

    @Test("files that are not databases: .notADatabase naming the path at open, the file unchanged")
    func notADatabase() throws {
        var random = SeededRandom(seed: 7)
        let texts = [
            Data("hello, world\n".utf8),
            Data(String(repeating: "CREATE TABLE t (x);\n", count: 200).utf8),
            Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &random) }),
            Data("SQLite format 3".utf8),  // the magic string without its NUL, nothing after
        ]
        for bytes in texts {
            try TemporaryFile.withDatabasePath { path in
                try bytes.write(to: URL(fileURLWithPath: path))
                for readOnly in [true, false] {
                    var configuration = Database.Configuration()
                    configuration.isReadOnly = readOnly
                    let error = try #require(throws: DatabaseError.self) {
                        try Database(path: path, configuration: configuration)
                    }
                    #expect(error.isNotADatabase)
                    #expect(error.reason == .notADatabase)
                    #expect(error.path == path)
                    #expect(error.description.contains(path))
                }
                // Without the check (a key set after open), SQLite's own error comes from the first read.
                var unchecked = Database.Configuration()
                unchecked.checksHeaderAtOpen = false
                unchecked.isReadOnly = true
                let db = try Database(path: path, configuration: unchecked)
                let error = try #require(throws: DatabaseError.self) {
                    try db.queryValue("SELECT count(*) FROM sqlite_schema", as: Int.self)
                }
                #expect(error.isNotADatabase)
                db.close()
                #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
            }
        }
    }

    @Test("a new, an empty and a real database file open; a directory or missing folder fails naming the path")
    func headerCheckSkipsNewAndEmptyFiles() throws {
        try TemporaryFile.withDatabasePath { path in
            try Database(path: path).execute("CREATE TABLE t (x)")  // new file: created
            #expect(try Database(path: path).tableExists("t"))  // a real database: the header matches
            let empty = path + "-empty"
            try Data().write(to: URL(fileURLWithPath: empty))
            try Database(path: empty).execute("CREATE TABLE t (x)")
            defer { try? FileManager.default.removeItem(atPath: empty) }
            let missing = path + "-folder/none/x.sqlite"
            let error = try #require(throws: DatabaseError.self) { try Database(path: missing) }
            #expect(error.path == missing)
            #expect(error.description.contains(missing))
        }
    }

    @Test("a WAL file copied from another database: a typed error or a consistent result, no crash")
    func foreignWAL() throws {
        try TemporaryFile.withDatabasePath { path in
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            let other = folder.appendingPathComponent("other.sqlite").path
            // The other database keeps its writes in its WAL: no checkpoint while it is copied.
            let source = try Database(path: other)
            _ = try source.queryValue("PRAGMA journal_mode = WAL", as: String.self)
            try source.execute("PRAGMA wal_autocheckpoint = 0")
            try source.execute("CREATE TABLE other (x)")
            for value in 0..<50 { try source.execute("INSERT INTO other VALUES (?)", value) }
            let foreignWAL = try Data(contentsOf: URL(fileURLWithPath: other + "-wal"))
            #expect(foreignWAL.count > 32)

            let target = try Database(path: path)
            _ = try target.queryValue("PRAGMA journal_mode = WAL", as: String.self)
            try target.execute("CREATE TABLE mine (y)")
            try target.execute("INSERT INTO mine VALUES (1)")
            target.close()
            source.close()
            try foreignWAL.write(to: URL(fileURLWithPath: path + "-wal"))

            var outcomes = 0
            do {
                let db = try Database(path: path)
                defer { db.close() }
                for sql in ["PRAGMA integrity_check", "SELECT count(*) FROM mine", "SELECT count(*) FROM other"] {
                    do {
                        let rows = try db.query(sql)
                        while let row = try rows.next() { readEveryType(row, at: 0) }
                    } catch is DatabaseError {}
                    outcomes += 1
                }
            } catch is DatabaseError {
                outcomes += 1
            }
            #expect(outcomes > 0)
        }
    }

    @Test("a wrong key, a key for a plain file, no key for an encrypted file: typed errors, files unchanged")
    func wrongKeys() throws {
        try TemporaryFile.withDatabasePath { path in
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            let plainPath = folder.appendingPathComponent("plain.sqlite").path
            try Data(try Self.sampleDatabase()).write(to: URL(fileURLWithPath: plainPath))
            var encrypted = Database.Configuration()
            encrypted.key = .raw(hex: String(repeating: "0123456789abcdef", count: 4))
            do {
                let db = try Database(path: path, configuration: encrypted)
                try db.execute("CREATE TABLE secret (x)")
                try db.execute("INSERT INTO secret VALUES ('hidden')")
                db.close()
            }
            let encryptedBytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let plainBytes = try Data(contentsOf: URL(fileURLWithPath: plainPath))
            var wrong = Database.Configuration()
            wrong.key = .raw(hex: String(repeating: "fedcba9876543210", count: 4))
            var passphrase = Database.Configuration()
            passphrase.key = .passphrase("not the key")
            var tried = 0
            for (file, configuration) in [(path, wrong), (path, passphrase), (plainPath, wrong)] {
                for readOnly in [true, false] {
                    var configuration = configuration
                    configuration.isReadOnly = readOnly
                    #expect(throws: DatabaseError.self) { try Database(path: file, configuration: configuration) }
                    tried += 1
                }
            }
            // Without a key, the encrypted file is not a database: the error comes at open, or on first read
            // when the header check is off.
            var readOnly = Database.Configuration()
            readOnly.isReadOnly = true
            #expect(throws: DatabaseError.self) { try Database(path: path, configuration: readOnly) }
            readOnly.checksHeaderAtOpen = false
            do {
                let db = try Database(path: path, configuration: readOnly)
                defer { db.close() }
                let error = try #require(throws: DatabaseError.self) {
                    try db.queryValue("SELECT count(*) FROM secret", as: Int.self)
                }
                #expect(error.isNotADatabase)
            } catch let error as DatabaseError {
                #expect(error.isNotADatabase)
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == encryptedBytes)
            #expect(try Data(contentsOf: URL(fileURLWithPath: plainPath)) == plainBytes)
            #expect(tried == 6)
            // The right key still opens it: nothing above damaged the file.
            let db = try Database(path: path, configuration: encrypted)
            defer { db.close() }
            #expect(try db.queryValue("SELECT x FROM secret", as: String.self) == "hidden")
        }
    }
}
