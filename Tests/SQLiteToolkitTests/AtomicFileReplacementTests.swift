import Foundation
import Testing

@testable import SQLiteToolkit

#if canImport(Glibc)
    import Glibc
    import SQLiteToolkitSystemShim
#endif

/// The extended attributes of a file, read and written with the C library's calls (Linux only), as the oracle of
/// the replacement's attribute copy.
enum ExtendedAttributes {
    /// Whether the temporary directory's file system takes `user.*` attributes (tmpfs before Linux 6.6, some
    /// container overlays and Apple platforms, where these calls differ, do not count).
    static let userAttributesWork: Bool = {
        #if canImport(Glibc)
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("xattr-probe-\(UUID())").path
            guard FileManager.default.createFile(atPath: path, contents: Data()) else { return false }
            defer { try? FileManager.default.removeItem(atPath: path) }
            return set("user.sqltk-probe", [1], at: path) && get("user.sqltk-probe", at: path) == [1]
        #else
            return false
        #endif
    }()

    static func set(_ name: String, _ value: [UInt8], at path: String) -> Bool {
        #if canImport(Glibc)
            return value.withUnsafeBytes { setxattr(path, name, $0.baseAddress, value.count, 0) } == 0
        #else
            return false
        #endif
    }

    static func get(_ name: String, at path: String) -> [UInt8]? {
        #if canImport(Glibc)
            let size = getxattr(path, name, nil, 0)
            guard size >= 0 else { return nil }
            var value = [UInt8](repeating: 0, count: size)
            let read = value.withUnsafeMutableBytes { getxattr(path, name, $0.baseAddress, size) }
            return read >= 0 ? Array(value.prefix(read)) : nil
        #else
            return nil
        #endif
    }
}

/// The permission bits of the file at `path`, through Foundation (not the code under test).
func permissions(of path: String) throws -> Int {
    try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
}

/// Gives the file at `path` the permission bits `mode`, through Foundation.
func setPermissions(_ mode: Int, of path: String) throws {
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
}

@Suite("AtomicFileReplacement: metadata, commit point, leftovers")
struct AtomicFileReplacementTests {
    static let operation = "test"

    @Test(
        "the replacement is created empty with the original's mode, before anything is written",
        arguments: [
            0o600, 0o640, 0o644, 0o400,
        ])
    func keepsMode(mode: Int) throws {
        try TemporaryFile.withDatabasePath { path in
            #expect(FileManager.default.createFile(atPath: path, contents: Data("old".utf8)))
            try setPermissions(mode, of: path)
            let replacement = AtomicFileReplacement(replacing: path)
            try replacement.prepare(operation: Self.operation)
            #expect(try permissions(of: replacement.replacementPath) == mode)
            #expect(try Data(contentsOf: URL(fileURLWithPath: replacement.replacementPath)).isEmpty)
            // Written the way SQLite writes it: opened for writing, which a read-only mode forbids but to root.
            try setPermissions(0o600, of: replacement.replacementPath)
            try Data("new".utf8).write(to: URL(fileURLWithPath: replacement.replacementPath))
            try setPermissions(mode, of: replacement.replacementPath)
            try replacement.commit(operation: Self.operation)
            try replacement.syncDirectory(operation: Self.operation)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")
            #expect(try permissions(of: path) == mode)
            #expect(!TemporaryFile.exists(replacement.replacementPath))
        }
    }

    @Test(
        "user.* extended attributes are copied to the replacement and survive the rename",
        .enabled(
            if: ExtendedAttributes.userAttributesWork,
            "the temporary directory's file system refuses user.* extended attributes (or not Linux)"))
    func keepsExtendedAttributes() throws {
        try TemporaryFile.withDatabasePath { path in
            #expect(FileManager.default.createFile(atPath: path, contents: Data("old".utf8)))
            #expect(ExtendedAttributes.set("user.sqltk.backup", Array("exclude".utf8), at: path))
            #expect(ExtendedAttributes.set("user.sqltk.empty", [], at: path))
            let large = (0..<3000).map { UInt8(truncatingIfNeeded: $0) }
            #expect(ExtendedAttributes.set("user.sqltk.large", large, at: path))
            let replacement = AtomicFileReplacement(replacing: path)
            try replacement.prepare(operation: Self.operation)
            #expect(
                ExtendedAttributes.get("user.sqltk.backup", at: replacement.replacementPath) == Array("exclude".utf8))
            try Data("new".utf8).write(to: URL(fileURLWithPath: replacement.replacementPath))
            try replacement.commit(operation: Self.operation)
            #expect(ExtendedAttributes.get("user.sqltk.backup", at: path) == Array("exclude".utf8))
            #expect(ExtendedAttributes.get("user.sqltk.empty", at: path) == [])
            #expect(ExtendedAttributes.get("user.sqltk.large", at: path) == large)
        }
    }

    /// Whether this process may give a file to another user (root, here), through Foundation.
    static let canGiveFilesAway: Bool = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("chown-probe-\(UUID())").path
        guard FileManager.default.createFile(atPath: path, contents: Data()) else { return false }
        defer { try? FileManager.default.removeItem(atPath: path) }
        return (try? FileManager.default.setAttributes([.ownerAccountID: 4242], ofItemAtPath: path)) != nil
    }()

    @Test(
        "the replacement keeps the original's owner and group, where the process may set them",
        .enabled(if: canGiveFilesAway, "this process may not give a file to another user (not root)"))
    func keepsOwnerAndGroup() throws {
        try TemporaryFile.withDatabasePath { path in
            #expect(FileManager.default.createFile(atPath: path, contents: Data("old".utf8)))
            try FileManager.default.setAttributes(
                [.ownerAccountID: 4242, .groupOwnerAccountID: 4343, .posixPermissions: 0o640], ofItemAtPath: path)
            let replacement = AtomicFileReplacement(replacing: path)
            try replacement.prepare(operation: Self.operation)
            try Data("new".utf8).write(to: URL(fileURLWithPath: replacement.replacementPath))
            try replacement.commit(operation: Self.operation)
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.ownerAccountID] as? NSNumber)?.intValue == 4242)
            #expect((attributes[.groupOwnerAccountID] as? NSNumber)?.intValue == 4343)
            #expect(try permissions(of: path) == 0o640)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")
        }
    }

    @Test("a replacement left by an interrupted run is removed by the next prepare, never taken for the file")
    func leftoverRemoved() throws {
        try TemporaryFile.withDatabasePath { path in
            #expect(FileManager.default.createFile(atPath: path, contents: Data("old".utf8)))
            let replacement = AtomicFileReplacement(replacing: path)
            #expect(FileManager.default.createFile(atPath: replacement.replacementPath, contents: Data("half".utf8)))
            try replacement.prepare(operation: Self.operation)
            #expect(try Data(contentsOf: URL(fileURLWithPath: replacement.replacementPath)).isEmpty)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
        }
    }

    @Test("a commit that fails before the rename leaves the original whole, and discard removes the replacement")
    func failedCommit() throws {
        try TemporaryFile.withDatabasePath { path in
            #expect(FileManager.default.createFile(atPath: path, contents: Data("old".utf8)))
            let replacement = AtomicFileReplacement(replacing: path)
            try replacement.prepare(operation: Self.operation)
            replacement.discard()
            let error = try #require(throws: DatabaseError.self) { try replacement.commit(operation: "decrypt()") }
            #expect(error.message.hasPrefix("decrypt() failed"), "\(error.message)")
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
            // The original missing, prepare refuses: nothing to take the metadata from.
            try FileManager.default.removeItem(atPath: path)
            #expect(throws: DatabaseError.self) { try replacement.prepare(operation: Self.operation) }
        }
    }

    @Test(
        "the directory of a path is what is before its last slash",
        arguments: [("/a/b/c.db", "/a/b"), ("/c.db", "/"), ("c.db", "."), ("a/c.db", "a")])
    func directoryOfPath(path: String, directory: String) {
        #expect(AtomicFileReplacement.directory(of: path) == directory)
    }
}

@Suite("Key changes keep the file's metadata")
struct KeyChangeMetadataTests {
    enum Operation: String, CaseIterable, Sendable {
        case changeKey, encrypt, decrypt
    }

    /// Runs `operation` on a database at `path` made for it (encrypted unless it is `encrypt`).
    static func run(_ operation: Operation, at path: String, journalMode: String) throws -> DatabaseKey? {
        let before: DatabaseKey? = operation == .encrypt ? nil : TestKeys.raw
        do {
            let db = try Database(path: path, configuration: .init(key: before))
            try db.execute("PRAGMA journal_mode = \(journalMode)")
            try db.execute("CREATE TABLE t(x)")
            try db.execute("INSERT INTO t VALUES (1), (2)")
        }
        return before
    }

    static func change(_ operation: Operation, at path: String, from key: DatabaseKey?) throws -> DatabaseKey? {
        let db = try Database(path: path, configuration: .init(key: key))
        switch operation {
        case .changeKey:
            try db.changeKey(to: TestKeys.otherRaw)
            return TestKeys.otherRaw
        case .encrypt:
            try db.encrypt(with: TestKeys.otherRaw)
            return TestKeys.otherRaw
        case .decrypt:
            try db.decrypt()
            return nil
        }
    }

    @Test(
        "changeKey, encrypt and decrypt keep an owner-only database owner-only (rollback journal and WAL)",
        arguments: Operation.allCases, ["delete", "wal"])
    func keepsMode(operation: Operation, journalMode: String) throws {
        try TemporaryFile.withDatabasePath { path in
            let before = try Self.run(operation, at: path, journalMode: journalMode)
            try setPermissions(0o600, of: path)
            let after = try Self.change(operation, at: path, from: before)
            #expect(try permissions(of: path) == 0o600)
            let reopened = try Database(path: path, configuration: .init(key: after))
            #expect(try reopened.queryValue("SELECT count(*) FROM t", as: Int.self) == 2)
        }
    }

    @Test(
        "changeKey, encrypt and decrypt keep the file's user.* extended attributes",
        .enabled(
            if: ExtendedAttributes.userAttributesWork,
            "the temporary directory's file system refuses user.* extended attributes (or not Linux)"),
        arguments: Operation.allCases)
    func keepsExtendedAttributes(operation: Operation) throws {
        try TemporaryFile.withDatabasePath { path in
            let before = try Self.run(operation, at: path, journalMode: "delete")
            #expect(ExtendedAttributes.set("user.sqltk.tag", Array("kept".utf8), at: path))
            _ = try Self.change(operation, at: path, from: before)
            #expect(ExtendedAttributes.get("user.sqltk.tag", at: path) == Array("kept".utf8))
        }
    }
}

extension Database.Configuration {
    /// A configuration with `key` (none when `nil`).
    fileprivate init(key: DatabaseKey?) {
        self.init()
        self.key = key
    }
}
