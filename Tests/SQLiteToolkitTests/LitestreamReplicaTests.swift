import Foundation
import SQLiteToolkit
import Testing

/// Read replicas through Litestream's VFS, with the real binaries (`scripts/install-test-peers`): a primary
/// `DatabasePool` replicated by `litestream replicate` to a folder, and ``LitestreamReplica`` reading that folder.
/// Serialized: each test runs Litestream processes and timing-sensitive readers, and the two cores of CI are few.
@Suite(
    "Litestream replicas", .serialized,
    .enabled(if: LitestreamPeers.isInstalled, Comment(rawValue: LitestreamPeers.missing)))
struct LitestreamReplicaTests {
    /// The primary's schema: transaction N inserts N into `txn` and moves N from account 1 to account 2, so every
    /// committed state has `sum(balance) = 0`, `count(txn) = max(n)` and account 2 holding `max(n) * (max(n) + 1) / 2`.
    static let schema = """
        CREATE TABLE account (id INTEGER PRIMARY KEY, balance INTEGER NOT NULL);
        INSERT INTO account VALUES (1, 0), (2, 0);
        CREATE TABLE txn (n INTEGER PRIMARY KEY);
        """

    /// Commits transaction `n` of the invariant on the primary.
    static func commit(_ n: Int, on pool: DatabasePool) throws {
        try pool.write { db in
            try db.execute("INSERT INTO txn (n) VALUES (?)", n)
            try db.execute("UPDATE account SET balance = balance - ? WHERE id = 1", n)
            try db.execute("UPDATE account SET balance = balance + ? WHERE id = 2", n)
        }
    }

    /// What one read of a replica saw: the highest number, and whether the state was one the primary committed.
    struct Observation {
        var high: Int
        var transactionID: UInt64
        var isConsistent: Bool
    }

    static func observe(_ replica: LitestreamReplica) throws -> Observation {
        try replica.read { db in
            // The rows stay alive while the row is read: a row reads its statement's current values.
            let rows = try db.query(
                """
                SELECT (SELECT count(*) FROM txn), (SELECT coalesce(max(n), 0) FROM txn),
                       (SELECT sum(balance) FROM account), (SELECT balance FROM account WHERE id = 2)
                """
            )
            let row = try rows.next()
            let count = try row?.value(at: 0) as Int? ?? -1
            let high = try row?.value(at: 1) as Int? ?? -1
            let sum = try row?.value(at: 2) as Int? ?? -1
            let second = try row?.value(at: 3) as Int? ?? -1
            let transactionID = try LitestreamReplica.transactionID(in: db)
            return Observation(
                high: high, transactionID: transactionID,
                isConsistent: count == high && sum == 0 && second == high * (high + 1) / 2)
        }
    }

    /// A primary pool with the schema, replicated by Litestream to `folder/replica`.
    static func withReplicatedPrimary<T>(
        _ body: (_ pool: DatabasePool, _ replicator: LitestreamPeers.Replicator, _ folder: String) throws -> T
    ) throws -> T {
        try TemporaryFile.withDatabasePath { path in
            let folder = (path as NSString).deletingLastPathComponent
            let pool = try DatabasePool(path: path)
            defer { pool.close() }
            try pool.write { db in try db.executeScript(schema) }
            let replicator = try LitestreamPeers.Replicator(database: path, replica: folder + "/replica")
            defer { replicator.kill() }
            guard replicator.waitForSnapshot(in: folder + "/replica") else {
                throw SQLCipherPeers.PeerError(message: "Litestream shipped no snapshot in 30 s")
            }
            return try body(pool, replicator, folder)
        }
    }

    @Test("readers of a file replica see only committed states, moving forward, while the primary commits")
    func readersFollowThePrimary() throws {
        try LitestreamPeers.loadVFS()
        try Self.withReplicatedPrimary { pool, _, folder in
            let replicas = try (0..<2).map { _ in
                try LitestreamReplica(replicaURL: "file://\(folder)/replica", pollInterval: 0.05)
            }
            defer { for replica in replicas { replica.close() } }
            let writing = Locked(true)
            let committed = Locked(0)
            let writer = Thread {
                var n = 0
                while writing.current {
                    n += 1
                    guard (try? Self.commit(n, on: pool)) != nil else { return }
                    committed.withLock { $0 = n }
                    usleep(5_000)
                }
            }
            writer.start()
            var reads = 0
            var inconsistent = 0
            var backwards = 0
            var highs = [0, 0]
            var transactionIDs: [UInt64] = [0, 0]
            let deadline = Date().addingTimeInterval(4)
            while Date() < deadline {
                for (index, replica) in replicas.enumerated() {
                    let seen = try Self.observe(replica)
                    reads += 1
                    if !seen.isConsistent { inconsistent += 1 }
                    if seen.high < highs[index] || seen.transactionID < transactionIDs[index] { backwards += 1 }
                    highs[index] = seen.high
                    transactionIDs[index] = seen.transactionID
                }
            }
            writing.withLock { $0 = false }
            while !writer.isFinished { usleep(1_000) }
            let last = committed.current
            #expect(last > 100, "the writer committed \(last) transactions")
            #expect(inconsistent == 0, "\(inconsistent) of \(reads) reads saw a state the primary never committed")
            #expect(backwards == 0, "\(backwards) of \(reads) reads went back")
            #expect(highs.allSatisfy { $0 > 0 }, "the replicas followed the primary: \(highs) of \(last)")
            // Litestream ships the last commits within its intervals: each replica reaches them.
            for replica in replicas {
                let caughtUp = Date().addingTimeInterval(10)
                var seen = try Self.observe(replica)
                while seen.high < last && Date() < caughtUp {
                    usleep(20_000)
                    seen = try Self.observe(replica)
                }
                #expect(seen.high == last && seen.isConsistent)
            }
        }
    }

    /// Reads `replica` until it shows `high` or `seconds` pass; returns the last observation.
    static func waitFor(_ high: Int, on replica: LitestreamReplica, seconds: Double = 10) throws -> Observation {
        let deadline = Date().addingTimeInterval(seconds)
        var seen = try observe(replica)
        while seen.high < high && Date() < deadline {
            usleep(20_000)
            seen = try observe(replica)
        }
        return seen
    }

    @Test("a replica reader beside a primary that is killed, restored from the replica and replicated again")
    func primaryKilledAndRestored() throws {
        try LitestreamPeers.loadVFS()
        try TemporaryFile.withDatabasePath { path in
            let folder = (path as NSString).deletingLastPathComponent
            let replicaFolder = folder + "/replica"
            var pool: DatabasePool? = try DatabasePool(path: path)
            try pool?.write { db in try db.executeScript(Self.schema) }
            var replicator: LitestreamPeers.Replicator? = try LitestreamPeers.Replicator(
                database: path, replica: replicaFolder)
            #expect(replicator?.waitForSnapshot(in: replicaFolder) == true)
            for n in 1...50 { try Self.commit(n, on: try #require(pool)) }
            let replica = try LitestreamReplica(replicaURL: "file://\(replicaFolder)", pollInterval: 0.05)
            defer { replica.close() }
            let beforeKill = try Self.waitFor(50, on: replica)
            #expect(beforeKill.high == 50 && beforeKill.isConsistent)

            // The machine is gone: Litestream first, then the application, as a power cut would leave them.
            replicator?.kill()
            replicator = nil
            pool?.close()
            pool = nil
            let orphaned = try Self.observe(replica)
            #expect(orphaned.high == 50 && orphaned.isConsistent, "the replica still serves the last state")

            // A new machine: restore, then replicate the restored file to the same replica and write on.
            let restored = folder + "/restored.sqlite"
            try LitestreamPeers.restore(replica: replicaFolder, to: restored)
            let newPool = try DatabasePool(path: restored)
            defer { newPool.close() }
            #expect(try newPool.read { db in try db.queryValue("SELECT max(n) FROM txn", as: Int.self) } == 50)
            let newReplicator = try LitestreamPeers.Replicator(database: restored, replica: replicaFolder)
            defer { newReplicator.kill() }
            for n in 51...80 {
                try Self.commit(n, on: newPool)
                usleep(10_000)
            }
            let after = try Self.waitFor(80, on: replica, seconds: 15)
            #expect(after.isConsistent)
            #expect(after.high >= 50, "the reader never goes back")
            #expect(after.high == 80, "the reader follows the restored primary")
            #expect(after.transactionID > beforeKill.transactionID)
        }
    }

    /// The credentials moto accepts, and no `AWS_CA_BUNDLE`: with that variable set (as it is on some machines),
    /// Litestream's S3 client fails to start ("unable to add custom RootCAs HTTPClient").
    static let s3Environment = [
        "LITESTREAM_ACCESS_KEY_ID": "test", "LITESTREAM_SECRET_ACCESS_KEY": "test", "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test", "AWS_DEFAULT_REGION": "us-east-1", "AWS_CA_BUNDLE": "",
    ]

    /// Runs `executable` with `arguments` and `environment` added to this process's; returns its status and
    /// standard output, or `nil` when it is still running after `seconds` (it is then killed).
    static func run(_ executable: String, _ arguments: [String], environment: [String: String], seconds: Double)
        throws -> (status: Int32, output: String)?
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = LitestreamPeers.environment(adding: environment)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test(
        "an S3 replica, with moto's S3 server on 127.0.0.1 standing in for the bucket, read in a child process",
        .enabled(
            if: LitestreamPeers.motoServer != nil,
            "moto missing: run scripts/install-test-peers (pip package moto[server] 5.2.5)"))
    func s3Replica() throws {
        let moto = try #require(LitestreamPeers.motoServer)
        let vfs = try #require(LitestreamPeers.vfs)
        let port = Int.random(in: 20_000...40_000)
        let endpoint = "http://127.0.0.1:\(port)"
        let server = Process()
        server.executableURL = URL(fileURLWithPath: moto)
        server.arguments = ["-H", "127.0.0.1", "-p", "\(port)"]
        server.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        server.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try server.run()
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        // The bucket, made through moto's own S3 API as soon as the server answers.
        let python = LitestreamPeers.venv + "/bin/python"
        let createBucket = """
            import boto3, time
            for attempt in range(100):
                try:
                    boto3.client("s3", endpoint_url="\(endpoint)").create_bucket(Bucket="app-backups")
                    break
                except Exception:
                    time.sleep(0.1)
            else:
                raise SystemExit("moto did not answer")
            """
        let created = try Self.run(python, ["-c", createBucket], environment: Self.s3Environment, seconds: 30)
        try #require(created?.status == 0, "creating the bucket: \(created?.output ?? "timed out")")

        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path)
            defer { pool.close() }
            try pool.write { db in try db.executeScript(Self.schema) }
            let replicator = try LitestreamPeers.Replicator(
                database: path,
                replicaConfiguration: """
                          type: s3
                          bucket: app-backups
                          path: app.sqlite
                          endpoint: \(endpoint)
                          region: us-east-1
                          force-path-style: true
                          sync-interval: 200ms
                    """,
                environment: Self.s3Environment)
            defer { replicator.kill() }
            for n in 1...40 {
                try Self.commit(n, on: pool)
                usleep(10_000)
            }
            let url = "s3://app-backups/app.sqlite?endpoint=\(endpoint)&region=us-east-1&forcePathStyle=true"
            let helper = try TestHelper.executable().path
            var read: (status: Int32, output: String)?
            let deadline = Date().addingTimeInterval(20)
            repeat {
                read = try Self.run(helper, ["replica-read", vfs, url], environment: Self.s3Environment, seconds: 20)
                if read?.output.contains("rows 40 1 40") == true { break }
                usleep(200_000)
            } while Date() < deadline
            #expect(read?.status == 0)
            #expect(read?.output.contains("rows 40 1 40") == true, "the replica read: \(read?.output ?? "timed out")")
        }
    }

    @Test("a write on a replica throws writeOnReplica with SQLITE_READONLY, and the replica is unchanged")
    func writesAreRefused() throws {
        try LitestreamPeers.loadVFS()
        try Self.withReplicatedPrimary { pool, _, folder in
            try Self.commit(1, on: pool)
            let replica = try LitestreamReplica(replicaURL: "file://\(folder)/replica", pollInterval: 0.05)
            defer { replica.close() }
            let caughtUp = Date().addingTimeInterval(10)
            while try Self.observe(replica).high < 1 && Date() < caughtUp { usleep(20_000) }
            for sql in ["INSERT INTO txn (n) VALUES (99)", "CREATE TABLE other (x)", "DELETE FROM account"] {
                #expect {
                    try replica.read { db in try db.execute(sql) }
                } throws: { error in
                    let error = error as? DatabaseError
                    return error?.reason == .writeOnReplica && error?.code == .readonly
                }
            }
            let seen = try Self.observe(replica)
            #expect(seen.high == 1 && seen.isConsistent)
        }
    }

    @Test("an encrypted primary leaves no replica: opening it throws replicaHasNoTransaction at once")
    func encryptedPrimaryHasNoReplica() throws {
        try LitestreamPeers.loadVFS()
        try TemporaryFile.withDatabasePath { path in
            let folder = (path as NSString).deletingLastPathComponent
            var configuration = Database.Configuration()
            configuration.key = TestKeys.raw
            let pool = try DatabasePool(path: path, configuration: configuration)
            defer { pool.close() }
            try pool.write { db in try db.executeScript(Self.schema) }
            let replicator = try LitestreamPeers.Replicator(database: path, replica: folder + "/replica")
            defer { replicator.kill() }
            for n in 1...20 {
                try Self.commit(n, on: pool)
                usleep(50_000)
            }
            #expect(!replicator.waitForSnapshot(in: folder + "/replica", seconds: 1))
            let started = Date()
            #expect {
                _ = try LitestreamReplica(replicaURL: "file://\(folder)/replica")
            } throws: { error in
                (error as? DatabaseError)?.reason == .replicaHasNoTransaction
            }
            #expect(Date().timeIntervalSince(started) < 1, "the open fails at once instead of waiting")
            #expect {
                _ = try LitestreamReplica(replicaURL: "file://\(folder)/replica", configuration: configuration)
            } throws: { error in
                (error as? DatabaseError)?.reason == .invalidReplicaSetting("key")
            }
        }
    }

    @Test("the article's sample: load the VFS once, open a file replica, read it")
    func documentationSample() async throws {
        let vfsPath = try #require(LitestreamPeers.vfs)
        try await TemporaryFile.withDatabasePathAsync { path in
            let folder = (path as NSString).deletingLastPathComponent
            let pool = try DatabasePool(path: path)
            defer { pool.close() }
            try await pool.write { db in try db.executeScript(Self.schema) }
            for n in 1...3 { try Self.commit(n, on: pool) }
            let replicator = try LitestreamPeers.Replicator(database: path, replica: folder + "/replica")
            defer { replicator.kill() }
            #expect(replicator.waitForSnapshot(in: folder + "/replica"))

            try LitestreamReplica.loadVFS(atPath: vfsPath)  // once per process
            let replica = try LitestreamReplica(replicaURL: "file://\(folder)/replica", pollInterval: 0.05)
            let sql = "SELECT count(*) FROM txn"
            let count = try await replica.read { db in try db.queryRequiredValue(sql, as: Int.self) }
            #expect(count == 3)
            replica.close()
        }
    }

    @Test("once the VFS is loaded, every other connection of the process still opens, and has no litestream functions")
    func otherConnectionsStillOpen() throws {
        try LitestreamPeers.loadVFS()
        // Loaded with a plain sqlite3_load_extension, Litestream 0.5.17's automatic extension would make each of
        // these opens fail with "automatic extension loading failed".
        let memory = try Database()
        defer { memory.close() }
        #expect(try memory.queryValue("SELECT 1", as: Int.self) == 1)
        #expect(throws: DatabaseError.self) { try memory.execute("SELECT litestream_txid()") }
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path)
            defer { pool.close() }
            try pool.write { db in try db.execute("CREATE TABLE t (x)") }
            #expect(try pool.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 0)
        }
    }

    @Test("settings the replica cannot honour are refused by name; the VFS loads once per process")
    func invalidSettings() throws {
        try LitestreamPeers.loadVFS()
        try LitestreamPeers.loadVFS()  // the same library again: nothing to do
        #expect(LitestreamReplica.isVFSLoaded)
        #expect {
            try LitestreamReplica.loadVFS(atPath: "/nonexistent/other-litestream-vfs.so")
        } throws: { error in
            (error as? DatabaseError)?.reason == .replicaVFSLoadedFromAnotherPath
        }
        #expect {
            _ = try LitestreamReplica(replicaURL: "")
        } throws: { error in
            (error as? DatabaseError)?.reason == .invalidReplicaSetting("replicaURL")
        }
        #expect {
            _ = try LitestreamReplica(replicaURL: "file:///nonexistent", pollInterval: 0)
        } throws: { error in
            (error as? DatabaseError)?.reason == .invalidReplicaSetting("pollInterval")
        }
        for interval in [1e300, -1, .nan, .infinity] {
            #expect {
                _ = try LitestreamReplica(replicaURL: "file:///nonexistent", pollInterval: interval)
            } throws: { error in
                (error as? DatabaseError)?.reason == .invalidReplicaSetting("pollInterval")
            }
        }
        var otherVFS = Database.Configuration()
        otherVFS.vfs = "unix-none"
        #expect {
            _ = try LitestreamReplica(replicaURL: "file:///nonexistent", configuration: otherVFS)
        } throws: { error in
            (error as? DatabaseError)?.reason == .invalidReplicaSetting("vfs")
        }
        #expect {
            _ = try LitestreamReplica(replicaURL: "file:///nonexistent/replica")
        } throws: { error in
            (error as? DatabaseError)?.reason == .replicaHasNoTransaction
        }
    }
}
