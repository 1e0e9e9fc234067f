import Foundation
import Testing

@testable import SQLiteToolkit

#if canImport(Glibc)
    import Glibc
#endif

// The attacks of KeyChangeAdversarialTests on the metadata a key change keeps, on attach and keys, and on traces.

// MARK: - Metadata

extension KeyChangeAdversarialTests {
    /// The `stat` of `path` (`lstat` when `followingLinks` is false), through the C library.
    static func status(of path: String, followingLinks: Bool = true) throws -> stat {
        var result = stat()
        let code = followingLinks ? stat(path, &result) : lstat(path, &result)
        try #require(code == 0, "stat \(path)")
        return result
    }

    @Test(
        "changeKey, encrypt and decrypt keep odd modes, set-ID bits, owner and group, in both journals",
        arguments: [0o640, 0o400, 0o604, 0o4600, 0o2640, 0o000], ["delete", "wal"])
    func keepsOddModesAndOwner(mode: Int, journalMode: String) throws {
        try TemporaryFile.withDatabasePath { path in
            try Self.makeEncrypted(path, journalMode: journalMode)
            let nobody = uid_t(65534)
            let nogroup = gid_t(65534)
            // Root here: give the file away, so keeping the owner is not keeping the process's.
            try #require(chown(path, nobody, nogroup) == 0)
            try #require(chmod(path, mode_t(mode)) == 0)
            let db = try openEncrypted(path, key: TestKeys.raw)
            try db.changeKey(to: TestKeys.otherRaw)
            var after = try Self.status(of: path)
            #expect(Int(after.st_mode & 0o7777) == mode, "changeKey: \(String(after.st_mode & 0o7777, radix: 8))")
            #expect(after.st_uid == nobody && after.st_gid == nogroup)
            try db.decrypt()
            after = try Self.status(of: path)
            #expect(Int(after.st_mode & 0o7777) == mode, "decrypt: \(String(after.st_mode & 0o7777, radix: 8))")
            #expect(after.st_uid == nobody && after.st_gid == nogroup)
            try db.encrypt(with: TestKeys.raw)
            try db.execute("INSERT INTO t VALUES (4)")
            after = try Self.status(of: path)
            #expect(Int(after.st_mode & 0o7777) == mode, "encrypt: \(String(after.st_mode & 0o7777, radix: 8))")
            #expect(after.st_uid == nobody && after.st_gid == nogroup)
            if journalMode == "wal" && mode != 0 {
                // SQLite gives the WAL of a mode-0 database its default 0644 (robust_open), a change or not.
                // SQLite gives the WAL and the shared memory the database's mode and owner.
                for suffix in ["-wal", "-shm"] {
                    let side = try Self.status(of: path + suffix)
                    #expect(Int(side.st_mode & 0o777) == mode & 0o777, "\(suffix)")
                    #expect(side.st_uid == nobody, "\(suffix)")
                }
            }
            #expect(!FileManager.default.fileExists(atPath: path + "-sqltk-rekey"))
        }
    }

    @Test("the copy is created empty with the original's mode: the data is never readable by more than before")
    func copyModeBeforeData() throws {
        try TemporaryFile.withDatabasePath { path in
            try Self.makeEncrypted(path)
            for mode in [0o600, 0o640, 0o400] {
                try #require(chmod(path, mode_t(mode)) == 0)
                let old = umask(0)
                defer { umask(old) }
                let replacement = AtomicFileReplacement(replacing: path)
                try replacement.prepare(operation: "test")
                defer { replacement.discard() }
                let copy = try Self.status(of: replacement.replacementPath)
                #expect(Int(copy.st_mode & 0o7777) == mode)
                #expect(copy.st_size == 0)
            }
        }
    }

    @Test(
        "many, binary and large user.* and trusted.* attributes survive each key change",
        .enabled(if: ExtendedAttributes.userAttributesWork, "the file system refuses user.* attributes"))
    func keepsManyBinaryAttributes() throws {
        try TemporaryFile.withDatabasePath { path in
            try Self.makeEncrypted(path)
            var expected: [String: [UInt8]] = [:]
            for index in 0..<12 {
                // NUL bytes and every byte value: not text.
                expected["user.bin\(index)"] = (0..<100).map { UInt8(($0 * 7 + index) % 256) }
            }
            expected["user.large"] = [UInt8](repeating: 0, count: 1500) + [0xFF]
            expected["user.empty"] = []
            expected["trusted.root-only"] = [1, 0, 2]
            for (name, value) in expected {
                try #require(ExtendedAttributes.set(name, value, at: path), "\(name)")
            }
            let db = try openEncrypted(path, key: TestKeys.raw)
            try db.changeKey(to: TestKeys.otherRaw)
            try db.decrypt()
            try db.encrypt(with: TestKeys.raw)
            for (name, value) in expected {
                #expect(ExtendedAttributes.get(name, at: path) == value, "\(name)")
            }
        }
    }

    @Test("a database opened through a symbolic link: the link stays a link, the target is replaced, keeps its mode")
    func symbolicLink() throws {
        try TemporaryFile.withDatabasePath { path in
            try Self.makeEncrypted(path)
            try #require(chmod(path, 0o640) == 0)
            let link = path + ".link"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
            let db = try openEncrypted(link, key: TestKeys.raw)
            try db.decrypt()
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == path)
            #expect(try Self.status(of: link, followingLinks: false).st_mode & S_IFMT == S_IFLNK)
            #expect(try Database.isPlainDatabase(atPath: path))
            #expect(Int(try Self.status(of: path).st_mode & 0o7777) == 0o640)
            #expect(!FileManager.default.fileExists(atPath: link + "-sqltk-rekey"))
            #expect(!FileManager.default.fileExists(atPath: path + "-sqltk-rekey"))
            try db.execute("INSERT INTO t VALUES (4)")
            db.close()
            #expect(try Database(path: path).queryValue("SELECT count(*) FROM t", as: Int.self) == 4)
        }
    }

    // Fixed: the rename replaced one name of a hard-linked file; the other names kept the old inode, so after
    //  encrypt(with:) the data was still plain under them. A file with more than one link is refused now.
    @Test("a hard-linked database: encrypt is refused before anything changes, and no plain copy is left behind")
    func hardLink() throws {
        try TemporaryFile.withDatabasePath { path in
            do {
                let db = try Database(path: path)
                try db.execute("CREATE TABLE t(secret)")
                try db.execute("INSERT INTO t VALUES ('top secret text')")
            }
            let other = path + ".hardlink"
            try FileManager.default.linkItem(atPath: path, toPath: other)
            let db = try Database(path: path)
            let error = try #require(throws: DatabaseError.self) { try db.encrypt(with: TestKeys.raw) }
            #expect(error.reason == .keyChangeOfHardLinkedFile, "\(error)")
            #expect(error.message.contains("2 hard links"))
            #expect(try Database.isPlainDatabase(atPath: path))
            #expect(!db.isEncrypted)
            #expect(!FileManager.default.fileExists(atPath: path + "-sqltk-rekey"))
            // The connection is usable, and once the other name is gone the encryption works.
            try db.execute("INSERT INTO t VALUES ('more')")
            try FileManager.default.removeItem(atPath: other)
            try db.encrypt(with: TestKeys.raw)
            #expect(try !Database.isPlainDatabase(atPath: path))
        }
    }

    @Test("changeKey and decrypt of a hard-linked database are refused: the old key keeps opening every name")
    func hardLinkChangeKeyAndDecrypt() throws {
        try TemporaryFile.withDatabasePath { path in
            try Self.makeEncrypted(path, journalMode: "wal")
            try FileManager.default.linkItem(atPath: path, toPath: path + ".hardlink")
            let db = try openEncrypted(path, key: TestKeys.raw)
            let changeError = try #require(throws: DatabaseError.self) { try db.changeKey(to: TestKeys.otherRaw) }
            #expect(changeError.reason == .keyChangeOfHardLinkedFile)
            let decryptError = try #require(throws: DatabaseError.self) { try db.decrypt() }
            #expect(decryptError.reason == .keyChangeOfHardLinkedFile)
            #expect(db.isEncrypted)
            #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 3)
            #expect(try db.queryValue("PRAGMA journal_mode", as: String.self) == "wal")
            db.close()
            let other = try openEncrypted(path + ".hardlink", key: TestKeys.raw)
            #expect(try other.queryValue("SELECT count(*) FROM t", as: Int.self) == 3)
        }
    }
}

// MARK: - Attach and keys, with URIs and :memory:

extension KeyChangeAdversarialTests {
    @Test("attach of a file: URI without a key, from an encrypted connection, creates a plain file")
    func attachURIWithoutKeyIsPlain() throws {
        try TemporaryFile.withDatabasePath { path in
            let other = path + ".other"
            let db = try openEncrypted(path, key: TestKeys.raw)
            try db.attach(path: "file:" + other + "?mode=rwc", as: "other")
            try db.execute("CREATE TABLE other.t(x)")
            try db.execute("INSERT INTO other.t VALUES (1)")
            try db.detach("other")
            #expect(try Database.isPlainDatabase(atPath: other))
        }
    }

    @Test("attach of :memory: without a key, from an encrypted connection, works")
    func attachMemoryWithoutKey() throws {
        try TemporaryFile.withDatabasePath { path in
            let db = try openEncrypted(path, key: TestKeys.raw)
            try db.attach(path: ":memory:", as: "scratch")
            try db.execute("CREATE TABLE scratch.t(x)")
            try db.execute("INSERT INTO scratch.t VALUES (1)")
            #expect(try db.queryValue("SELECT count(*) FROM scratch.t", as: Int.self) == 1)
        }
    }

    // Fixed: refuseKeyForPlainFile(atPath:) read the URI as a path (no such file), so a key given for a plain file
    //  named by a file: URI failed as .wrongKeyOrNotADatabase, "wrong key or cipher", not .keyForPlainDatabase.
    @Test("a key given for a plain file named by a file: URI is .keyForPlainDatabase, and nothing stays attached")
    func attachURIKeyForPlainFile() throws {
        try TemporaryFile.withDatabasePath { path in
            let other = path + ".plain"
            do {
                let plain = try Database(path: other)
                try plain.execute("CREATE TABLE t(x)")
            }
            let db = try openEncrypted(path, key: TestKeys.raw)
            let error = try #require(throws: DatabaseError.self) {
                try db.attach(path: "file:" + other, as: "other", key: TestKeys.otherRaw)
            }
            #expect(error.reason == .keyForPlainDatabase, "\(error)")
            #expect(try db.attachedDatabases().map(\.name) == ["main"])
            #expect(!Self.reveals(error, Self.otherRawHex))
        }
    }

    @Test("a key for a plain file named by a URI with parameters, a host and escapes is .keyForPlainDatabase")
    func attachURIWithParametersKeyForPlainFile() throws {
        try TemporaryFile.withDatabasePath { path in
            let other = path + " plain#1.db"
            do {
                let plain = try Database(path: other)
                try plain.execute("CREATE TABLE t(x)")
            }
            let db = try openEncrypted(path, key: TestKeys.raw)
            let escaped = Database.percentEncodedPath(other)
            #expect(escaped.contains("%20") && escaped.contains("%23"))
            for uri in ["file:\(escaped)?mode=rw", "file://localhost\(escaped)", "file://\(escaped)#fragment"] {
                let error = try #require(throws: DatabaseError.self) {
                    try db.attach(path: uri, as: "other", key: TestKeys.otherRaw)
                }
                #expect(error.reason == .keyForPlainDatabase, "\(uri): \(error)")
            }
            #expect(try db.attachedDatabases().map(\.name) == ["main"])
        }
    }

    @Test("file: URIs name their file, or nothing for memory, other hosts and bad escapes")
    func filePathOfURI() {
        #expect(Database.filePath(ofURI: "file:/a/b.db?mode=rw&cache=shared") == "/a/b.db")
        #expect(Database.filePath(ofURI: "file:///a/b%20c.db") == "/a/b c.db")
        #expect(Database.filePath(ofURI: "file://localhost/a/b.db#x") == "/a/b.db")
        #expect(Database.filePath(ofURI: "file:b.db") == "b.db")
        #expect(Database.filePath(ofURI: "file:b.db?mode=memory") == nil)
        #expect(Database.filePath(ofURI: "file://elsewhere/a/b.db") == nil)
        #expect(Database.filePath(ofURI: "file:/a/b%2.db") == nil)
        #expect(Database.filePath(ofURI: "file:/a/b%00.db") == nil)
        #expect(Database.filePath(ofURI: "/a/b.db") == nil)
    }

    @Test("an encrypted file named by a file: URI attached without a key: .notADatabase, nothing attached")
    func attachURIEncryptedWithoutKey() throws {
        try TemporaryFile.withDatabasePath { path in
            let other = path + ".encrypted"
            try Self.makeEncrypted(other)
            let db = try Database(path: path)
            let error = try #require(throws: DatabaseError.self) {
                try db.attach(path: "file:" + other, as: "other")
            }
            #expect(error.reason == .notADatabase, "\(error)")
            #expect(!error.message.contains("wrong key"))
            #expect(try db.attachedDatabases().map(\.name) == ["main"])
        }
    }
}

// MARK: - Keys in traces

extension KeyChangeAdversarialTests {
    // Fixed: the key reaches SQLite as a bound value (the copy's URI `?hexkey=` for export, the blob of ATTACH …
    //  KEY ?), so a trace with .expandedSQL logged the key; ATTACH and VACUUM are traced unexpanded now.
    @Test("a trace with expanded SQL does not log the key of export(to:key:) or attach(path:as:key:)")
    func expandedTraceHidesKeys() throws {
        try TemporaryFile.withDatabasePath { path in
            let db = try Database(path: path)
            try db.execute("CREATE TABLE t(x)")
            let traced = TracedText()
            try db.trace(options: .expandedSQL) { traced.append($0.sql) }
            try db.export(to: path + ".copy", key: TestKeys.raw)
            try db.attach(path: path + ".copy", as: "copy", key: TestKeys.raw)
            let text = traced.text
            #expect(text.contains("VACUUM INTO") && text.contains("ATTACH"))
            // The raw key as the codec receives it: the text x'<hex>', itself in hex in the URI.
            let codecText = "x'\(Self.rawHex)'"
            let codecHex = Array(codecText.utf8).map { String(format: "%02x", $0) }.joined()
            #expect(!text.lowercased().contains(codecHex), "\(text)")
            #expect(!text.lowercased().contains(Self.rawHex), "\(text)")
        }
    }
}

extension KeyChangeAdversarialTests {
    @Test("a duration trace with expanded SQL, and a user's own ATTACH … KEY ?, do not show the key either")
    func expandedDurationTraceHidesKeys() throws {
        try TemporaryFile.withDatabasePath { path in
            let db = try Database(path: path)
            try db.execute("CREATE TABLE t(x)")
            let traced = TracedText()
            try db.trace(options: [.expandedSQL, .duration]) { traced.append($0.sql) }
            try db.export(to: path + ".copy", key: TestKeys.raw)
            try db.execute(
                "  /* the user's own */ attach database ? as copy key ?",
                path + ".copy", Array("x'\(Self.rawHex)'".utf8))
            try db.execute("SELECT ?", 42)
            let text = traced.text.lowercased()
            #expect(!text.contains(Self.rawHex), "\(text)")
            #expect(text.contains("attach database ? as copy key ?"))
            // Other statements are still expanded.
            #expect(text.contains("select 42"), "\(text)")
        }
    }

    @Test("which statements a trace leaves unexpanded")
    func mayBindKey() {
        #expect(Database.mayBindKey("ATTACH ? AS x KEY ?"))
        #expect(Database.mayBindKey("  -- note\n /* c */ vacuum into ?"))
        #expect(Database.mayBindKey("Attach database ? as x"))
        #expect(!Database.mayBindKey("SELECT 'ATTACH'"))
        #expect(!Database.mayBindKey("/* unterminated"))
        #expect(!Database.mayBindKey("ATTACHMENT"))
    }
}

/// The statements a trace reported, joined.
final class TracedText: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) {
        lock.lock()
        lines.append(line)
        lock.unlock()
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return lines.joined(separator: "\n")
    }
}
