import Foundation
import SQLiteToolkit
import Testing

/// Edge cases of ``LitestreamReplica``: the captured routines table against the toolkit's own extension loading,
/// concurrent opens, one read spanning the VFS's polls, writes in every form, replica URLs with characters that mean
/// something in a URL, and a close while a read runs. Serialized for the same reasons as `LitestreamReplicaTests`.
@Suite(
    "Litestream replica edge cases", .serialized,
    .enabled(if: LitestreamPeers.isInstalled, Comment(rawValue: LitestreamPeers.missing)))
struct LitestreamReviewTests {
    typealias Base = LitestreamReplicaTests

    /// A primary replicated to `folder/replica` with transactions 1...`count` shipped, and Litestream then killed, so
    /// the replica folder stays as it is and can be copied.
    static func withShippedReplica<T>(count: Int, _ body: (_ replica: String) throws -> T) throws -> T {
        try Base.withReplicatedPrimary { pool, replicator, folder in
            for n in 1...count { try Base.commit(n, on: pool) }
            try LitestreamPeers.loadVFS()
            let replica = try LitestreamReplica(replicaURL: "file://\(folder)/replica", pollInterval: 0.05)
            let seen = try Base.waitFor(count, on: replica)
            replica.close()
            guard seen.high == count else {
                throw SQLCipherPeers.PeerError(message: "the replica reached \(seen.high) of \(count) in 10 s")
            }
            replicator.kill()
            return try body(folder + "/replica")
        }
    }

    static func helper() throws -> String { try TestHelper.executable().path }

    @Test("one read spanning several polls of the VFS sees one state: two statements agree while the primary commits")
    func readSpanningPollsSeesOneState() throws {
        try LitestreamPeers.loadVFS()
        try Base.withReplicatedPrimary { pool, _, folder in
            let replica = try LitestreamReplica(replicaURL: "file://\(folder)/replica", pollInterval: 0.02)
            defer { replica.close() }
            let writing = Locked(true)
            let writer = Thread {
                var n = 0
                while writing.current {
                    n += 1
                    guard (try? Base.commit(n, on: pool)) != nil else { return }
                    usleep(5_000)
                }
            }
            writer.start()
            defer {
                writing.withLock { $0 = false }
                while !writer.isFinished { usleep(1_000) }
            }
            _ = try Base.waitFor(1, on: replica)
            var differing: [String] = []
            for _ in 0..<5 {
                try replica.read { db in
                    // The first statement reads only the account table's page; the second only the txn table's,
                    // which the connection has not read in this transaction: both must come from one state.
                    let balance = try db.queryRequiredValue("SELECT balance FROM account WHERE id = 2", as: Int.self)
                    // Several poll intervals and Litestream syncs pass while the read is open.
                    usleep(700_000)
                    let high = try db.queryRequiredValue("SELECT coalesce(max(n), 0) FROM txn", as: Int.self)
                    let count = try db.queryRequiredValue("SELECT count(*) FROM txn", as: Int.self)
                    if balance != high * (high + 1) / 2 || count != high {
                        differing.append("balance \(balance), then max \(high), count \(count)")
                    }
                }
            }
            #expect(differing.isEmpty, "reads that saw two states: \(differing)")
        }
    }

    @Test("transactionID(in:) is the VFS's newest position: inside one read it never goes back, the rows stay")
    func transactionIDIsTheVFSPosition() throws {
        try LitestreamPeers.loadVFS()
        try Base.withReplicatedPrimary { pool, _, folder in
            let replica = try LitestreamReplica(replicaURL: "file://\(folder)/replica", pollInterval: 0.02)
            defer { replica.close() }
            let writing = Locked(true)
            let writer = Thread {
                var n = 0
                while writing.current {
                    n += 1
                    guard (try? Base.commit(n, on: pool)) != nil else { return }
                    usleep(5_000)
                }
            }
            writer.start()
            defer {
                writing.withLock { $0 = false }
                while !writer.isFinished { usleep(1_000) }
            }
            _ = try Base.waitFor(1, on: replica)
            var backwards: [String] = []
            var changed: [String] = []
            for _ in 0..<3 {
                try replica.read { db in
                    let count = try db.queryRequiredValue("SELECT count(*) FROM txn", as: Int.self)
                    let first = try LitestreamReplica.transactionID(in: db)
                    usleep(700_000)
                    let again = try db.queryRequiredValue("SELECT count(*) FROM txn", as: Int.self)
                    let second = try LitestreamReplica.transactionID(in: db)
                    if second < first { backwards.append("\(first) then \(second)") }
                    if count != again { changed.append("\(count) then \(again) rows") }
                }
            }
            #expect(backwards.isEmpty, "the ID went back inside a read: \(backwards)")
            #expect(changed.isEmpty, "the rows changed inside a read: \(changed)")
        }
    }

    @Test("replicas opened from several threads at once all open and read the same shipped state")
    func concurrentOpens() throws {
        try Self.withShippedReplica(count: 5) { replica in
            let results = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                let outcome: String
                do {
                    let reader = try LitestreamReplica(replicaURL: "file://\(replica)", pollInterval: 0.05)
                    defer { reader.close() }
                    let seen = try Base.observe(reader)
                    outcome = seen.isConsistent ? "\(seen.high)" : "inconsistent \(seen.high)"
                } catch {
                    outcome = "error \(error)"
                }
                results.withLock { $0.append(outcome) }
            }
            #expect(results.current == ["5", "5", "5", "5"])
        }
    }

    @Test("writes are refused in every form: after query_only is turned off, into an attached file, user_version")
    func writesInEveryForm() throws {
        try Self.withShippedReplica(count: 3) { replica in
            let reader = try LitestreamReplica(replicaURL: "file://\(replica)", pollInterval: 0.05)
            defer { reader.close() }
            let attached = (replica as NSString).deletingLastPathComponent + "/attached.sqlite"
            let statements = [
                "PRAGMA user_version = 7",
                "INSERT INTO txn (n) VALUES (424242)",
            ]
            for sql in statements {
                #expect {
                    try reader.read { db in
                        try db.execute("PRAGMA query_only = OFF")
                        try db.execute(sql)
                    }
                } throws: { error in
                    (error as? DatabaseError)?.reason == .writeOnReplica
                }
            }
            // An attached file on a read-only connection is read-only too: creating it is refused.
            #expect(throws: DatabaseError.self) {
                try reader.read { db in
                    try db.execute("ATTACH DATABASE ? AS other", attached)
                    try db.execute("CREATE TABLE other.t (x)")
                }
            }
            let seen = try Base.observe(reader)
            #expect(seen.high == 3 && seen.isConsistent)
            #expect(try reader.read { db in try db.queryRequiredValue("PRAGMA user_version", as: Int.self) } == 0)
            // A later read still refuses at SQLite's level (query_only back on) or the VFS's.
            #expect {
                try reader.read { db in try db.execute("DELETE FROM txn") }
            } throws: { error in
                (error as? DatabaseError)?.reason == .writeOnReplica
            }
        }
    }

    @Test("an async read that writes throws writeOnReplica too")
    func asyncWriteIsRefused() throws {
        try Self.withShippedReplica(count: 1) { replica in
            let reader = try LitestreamReplica(replicaURL: "file://\(replica)")
            defer { reader.close() }
            let reason = Locked<DatabaseError.Reason?>(nil)
            let done = DispatchSemaphore(value: 0)
            Task {
                do {
                    try await reader.read { db in try db.execute("DELETE FROM txn") }
                } catch {
                    reason.withLock { $0 = (error as? DatabaseError)?.reason }
                }
                done.signal()
            }
            #expect(done.wait(timeout: .now() + 60) == .success)
            #expect(reason.current == .writeOnReplica)
        }
    }

    @Test("a refused write's error carries neither the bound value nor the replica's rows")
    func refusedWriteLeaksNoValue() throws {
        try Self.withShippedReplica(count: 2) { replica in
            let reader = try LitestreamReplica(replicaURL: "file://\(replica)", pollInterval: 0.05)
            defer { reader.close() }
            do {
                try reader.read { db in try db.execute("INSERT INTO txn (n) VALUES (?)", 987_654_321) }
                Issue.record("the write was not refused")
            } catch {
                #expect(!String(describing: error).contains("987654321"))
                #expect(!String(reflecting: error).contains("987654321"))
            }
        }
    }

    @Test("the error of a replica that fails to open carries no password from the replica URL")
    func failedOpenLeaksNoPassword() throws {
        try LitestreamPeers.loadVFS()
        do {
            // An unknown scheme: the VFS refuses it at once.
            _ = try LitestreamReplica(replicaURL: "bogus://reader:hunter2@replicas.example/app")
            Issue.record("the open did not fail")
        } catch {
            #expect(!String(describing: error).contains("hunter2"), "\(error)")
            #expect((error as? DatabaseError)?.path?.contains("reader%3A%2A%2A%2A%40replicas.example") == true)
        }
    }

    /// Copies `replica` to a folder whose name holds `odd`, reads it in a child process, and returns its output
    /// (`nil` when it hung for 20 s and was killed).
    static func readCopy(of replica: String, under odd: String) throws -> (status: Int32, output: String)? {
        let base = (replica as NSString).deletingLastPathComponent + "/" + odd
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: replica, toPath: base + "/replica")
        let vfs = try #require(LitestreamPeers.vfs)
        return try Base.run(
            try helper(), ["replica-read", vfs, "file://\(base)/replica"], environment: [:], seconds: 20)
    }

    @Test("a file replica in a folder whose name holds '&', '=' or '#' opens and reads")
    func replicaURLWithAmpersandOrHash() throws {
        try Self.withShippedReplica(count: 4) { replica in
            for odd in ["a&b=c", "hash#tag"] {
                let read = try Self.readCopy(of: replica, under: odd)
                #expect(read?.output.contains("rows 4 1 4") == true, "\(odd): \(read?.output ?? "hung, killed")")
            }
        }
    }

    @Test("a file replica whose path holds a space or '?' (never read by the VFS) is refused at once by name")
    func replicaURLWithSpaceOrQuestionMark() throws {
        try Self.withShippedReplica(count: 4) { replica in
            for odd in ["with space", "what?now"] {
                let read = try Self.readCopy(of: replica, under: odd)
                #expect(read?.output.contains("space or a question mark") == true, "\(odd): \(read?.output ?? "hung")")
            }
        }
        try LitestreamPeers.loadVFS()
        #expect {
            _ = try LitestreamReplica(replicaURL: "file:///tmp/with space/replica")
        } throws: { error in
            (error as? DatabaseError)?.reason == .invalidReplicaSetting("replicaURL")
        }
    }

    /// Copies `replica` to the folder `name` beside it and reads `url` (with `FOLDER` replaced by that folder's
    /// parent) in a child process; `nil` when it hung for 20 s and was killed.
    static func readCopy(of replica: String, named name: String, as url: String) throws -> (
        status: Int32, output: String
    )? {
        let parent = (replica as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: parent + "/" + name, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: replica, toPath: parent + "/" + name + "/replica")
        let vfs = try #require(LitestreamPeers.vfs)
        let resolved = url.replacingOccurrences(of: "FOLDER", with: parent)
        return try Base.run(try helper(), ["replica-read", vfs, resolved], environment: [:], seconds: 20)
    }

    @Test("the VFS reads a file replica's path as written, '%' included: the toolkit checks that same folder")
    func percentInFileReplicaPath() throws {
        try Self.withShippedReplica(count: 3) { replica in
            // The folder is literally "lit%41": the VFS reads it from this URL.
            let literal = try Self.readCopy(of: replica, named: "lit%41", as: "file://FOLDER/lit%41/replica")
            #expect(literal?.output.contains("rows 3 1 3") == true, "\(literal?.output ?? "hung")")
            // The folder is "hash#tag"; the VFS reads "hash%23tag" literally, which does not exist.
            let encoded = try Self.readCopy(of: replica, named: "hash#tag", as: "file://FOLDER/hash%23tag/replica")
            #expect(
                encoded?.output.contains("the replica holds no transaction") == true, "\(encoded?.output ?? "hung")")
        }
    }

    @Test("an empty file replica named file:/path or FILE:/// (which the VFS reads) throws at once, never hangs")
    func emptyReplicaWithOneSlashOrUppercaseScheme() throws {
        try LitestreamPeers.loadVFS()
        try TemporaryFile.withDatabasePath { path in
            let empty = (path as NSString).deletingLastPathComponent + "/empty-replica"
            try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
            let vfs = try #require(LitestreamPeers.vfs)
            for url in ["file:\(empty)", "FILE://\(empty)"] {
                let read = try Base.run(try Self.helper(), ["replica-read", vfs, url], environment: [:], seconds: 20)
                #expect(
                    read?.output.contains("the replica holds no transaction") == true,
                    "\(url): \(read?.output ?? "hung")")
            }
        }
    }

    @Test("loading the VFS library again through the toolkit's own extension loading leaves the process usable")
    func loadingTheLibraryAgain() throws {
        try Self.withShippedReplica(count: 2) { replica in
            let vfs = try #require(LitestreamPeers.vfs)
            for mode in ["load-extension", "configuration"] {
                let run = try Base.run(
                    try Self.helper(), ["replica-load-again", vfs, "file://\(replica)", mode], environment: [:],
                    seconds: 30)
                #expect(run?.output.contains("again: refused") == true, "\(mode): \(run?.output ?? "hung")")
                #expect(run?.output.contains("other: opened") == true, "\(mode): \(run?.output ?? "hung")")
            }
        }
    }

    @Test("close while a read runs waits for it; later reads throw accessAfterClose")
    func closeWhileReading() throws {
        try Self.withShippedReplica(count: 2) { replica in
            let reader = try LitestreamReplica(replicaURL: "file://\(replica)", pollInterval: 0.05)
            let inside = DispatchSemaphore(value: 0)
            let count = Locked<Int?>(nil)
            let thread = Thread {
                count.withLock {
                    $0 = try? reader.read { db in
                        inside.signal()
                        usleep(300_000)
                        return try db.queryRequiredValue("SELECT count(*) FROM txn", as: Int.self)
                    }
                }
            }
            thread.start()
            inside.wait()
            reader.close()
            while !thread.isFinished { usleep(1_000) }
            #expect(count.current == 2)
            #expect {
                try reader.read { db in try db.queryValue("SELECT 1", as: Int.self) }
            } throws: { error in
                (error as? DatabaseError)?.reason == .accessAfterClose
            }
        }
    }
}
