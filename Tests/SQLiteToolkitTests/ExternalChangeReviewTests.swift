import Foundation
import Testing

@testable import SQLiteToolkit

#if canImport(Glibc)
    import Glibc
#endif

/// What reviewing the observation of other processes' commits and the header check's fix found: the POSIX locks of
/// the process on the database file, which any close of a descriptor of that file releases, and the watch's life.
@Suite("Review of external change detection and POSIX locks", .serialized, .timeLimit(.minutes(2)))
struct ExternalChangeReviewTests {
    /// The POSIX locks this process holds on the file at `path`, as the kernel lists them (`/proc/locks`): one line
    /// per lock, without its ordinal.
    static func posixLocks(on path: String) throws -> [String] {
        var status = stat()
        guard stat(path, &status) == 0 else { return [] }
        let inode = ":\(status.st_ino)"
        let pid = String(getpid())
        let table = try String(contentsOfFile: "/proc/locks", encoding: .utf8)
        return table.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // "1: POSIX  ADVISORY  READ 1234 08:01:5678 128 128"; lines with "->" are waiters.
            guard fields.count >= 8, fields[1] == "POSIX", fields[4] == pid, fields[5].hasSuffix(inode) else {
                return nil
            }
            return fields.dropFirst().joined(separator: " ")
        }
    }

    /// Whether /proc/locks can be read here (Linux).
    static let hasProcLocks = FileManager.default.isReadableFile(atPath: "/proc/locks")

    @Test(
        "Database.isPlainDatabase(atPath:) on the file of an open pool keeps the pool's locks",
        .enabled(if: hasProcLocks, "no /proc/locks"))
    func isPlainDatabaseKeepsLocks() throws {
        try TemporaryFile.withDatabasePath { path in
            try ExternalChanges.createDatabase(at: path, journalMode: "wal")
            let pool = try DatabasePool(path: path)
            defer { pool.close() }
            _ = try pool.read { db in try db.queryValue(ExternalChanges.lastNumber, as: Int.self) }
            let before = try Self.posixLocks(on: path)
            try #require(!before.isEmpty)
            #expect(try Database.isPlainDatabase(atPath: path))
            let after = try Self.posixLocks(on: path)
            #expect(after == before)
        }
    }

    @Test(
        "a keyed pool's reader, opened after the writer, keeps the writer's locks",
        .enabled(if: hasProcLocks, "no /proc/locks"))
    func keyedPoolReaderKeepsLocks() throws {
        try TemporaryFile.withDatabasePath { path in
            do {
                let db = try openEncrypted(path, key: TestKeys.raw)
                defer { db.close() }
                _ = try db.queryValue("PRAGMA journal_mode = wal", as: String.self)
                try db.execute(ExternalChanges.schema)
            }
            var configuration = Database.Configuration()
            configuration.key = TestKeys.raw
            configuration.cipher = TestKeys.fastChaCha20
            let pool = try DatabasePool(path: path, configuration: configuration)
            defer { pool.close() }
            try pool.write { db in try db.execute("INSERT INTO item (n) VALUES (1)") }
            let before = try Self.posixLocks(on: path)
            try #require(!before.isEmpty)
            // Opens the first reader, whose key check reads the file's header: through a descriptor of its own, it
            // released the writer's locks.
            #expect(try pool.read { db in try db.queryValue(ExternalChanges.lastNumber, as: Int.self) } == 1)
            let after = try Self.posixLocks(on: path)
            #expect(before.allSatisfy { after.contains($0) })
        }
    }

    @Test(
        "the atomic key change's replacement keeps the exclusive lock its connection took on the original",
        .enabled(if: hasProcLocks, "no /proc/locks"))
    func atomicReplacementKeepsExclusiveLock() throws {
        try TemporaryFile.withDatabasePath { path in
            try ExternalChanges.createDatabase(at: path, journalMode: "delete")
            let db = try Database(path: path)
            defer { db.close() }
            // What rewriteAtomically does before prepare(): the file is this connection's alone.
            try db.execute("PRAGMA locking_mode = EXCLUSIVE")
            try db.execute("BEGIN EXCLUSIVE")
            try db.execute("COMMIT")
            let before = try Self.posixLocks(on: path)
            try #require(before.contains { $0.contains("WRITE") })
            let replacement = AtomicFileReplacement(replacing: path)
            defer { replacement.discard() }
            try replacement.prepare(operation: "review")
            let after = try Self.posixLocks(on: path)
            // Lost, another process could commit into the file while it is copied, and the rename drop that commit.
            #expect(after == before)
        }
    }

    @Test("a checkpoint by another process that resets the WAL is told as one external change, as documented")
    func checkpointIsNotACommit() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            try ExternalChanges.createDatabase(at: path, journalMode: "wal")
            let queue = try DatabaseQueue(path: path)
            defer { queue.close() }
            let external = Locked(0)
            let id = try await queue.write { db in
                try db.addTransactionObserver { changes in
                    if changes.isExternal { external.withLock { $0 += 1 } }
                }
            }
            // A commit by another connection: one external change.
            try ExternalChanges.runShellOrConnection(path, "INSERT INTO item (n) VALUES (1)")
            #expect(try await ExternalChanges.eventually { external.current >= 1 })
            try await Task.sleep(nanoseconds: 1_000_000_000)
            let afterCommit = external.current
            #expect(afterCommit == 1)
            // A checkpoint that resets the WAL, and no commit.
            try ExternalChanges.runShellOrConnection(path, "PRAGMA wal_checkpoint(TRUNCATE)")
            try await Task.sleep(nanoseconds: 1_500_000_000)
            // SQLite's data_version changes when another connection resets the WAL, commit or not (the documented
            // imprecision of isExternal): one change more, no more than one.
            #expect(try await ExternalChanges.eventually { external.current == afterCommit + 1 })
            try await Task.sleep(nanoseconds: 1_500_000_000)
            #expect(external.current == afterCommit + 1)
            try await queue.write { db in db.removeTransactionObserver(id) }
        }
    }

    @Test(
        "observing and cancelling many times, from several tasks, leaves no descriptor open",
        .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/fd"), "no /proc/self/fd"))
    func observeCancelLeavesNoDescriptor() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            try ExternalChanges.createDatabase(at: path, journalMode: "wal")
            for subject in ExternalChanges.Subject.allCases {
                let observed = try ExternalChanges.observe(subject, path: path, observing: false)
                // Warm up: the connections a first observation opens (a pool's reader) are not leaks.
                let warm = try observed.startObserving()
                #expect(try await warm.waitFor(0))
                await warm.stop()
                #expect(try await ExternalChanges.eventually { observed.watch.runningMonitor == nil })
                try await Task.sleep(nanoseconds: 200_000_000)
                let before = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<4 {
                        group.addTask {
                            for _ in 0..<10 {
                                let values = ValueLog(
                                    subject == .queue
                                        ? (observed.writer as! DatabaseQueue).observe(bufferingPolicy: .unbounded) {
                                            db in try db.queryValue(ExternalChanges.lastNumber, as: Int.self) ?? 0
                                        }
                                        : (observed.writer as! DatabasePool).observe(bufferingPolicy: .unbounded) {
                                            db in try db.queryValue(ExternalChanges.lastNumber, as: Int.self) ?? 0
                                        })
                                _ = try await values.waitFor(0)
                                await values.stop()
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                #expect(try await ExternalChanges.eventually { observed.watch.runningMonitor == nil })
                // The dispatch sources' cancellation closes the inotify descriptors just after the stop.
                let settled = try await ExternalChanges.eventually {
                    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? .max) <= before
                }
                #expect(settled, "\(subject): descriptors before \(before)")
                // The watch still works after the churn.
                let last = try observed.startObserving()
                try ExternalChanges.runShellOrConnection(path, "INSERT INTO item (n) VALUES (7)")
                #expect(try await last.waitFor(7), "\(subject)")
                try ExternalChanges.runShellOrConnection(path, "DELETE FROM item")
                await observed.close()
            }
        }
    }

    @Test(
        "a pool's look waits for a long write holding the writer, and the commit made meanwhile is seen",
        arguments: ExternalChanges.Subject.allCases)
    func lookWaitsForLongWrite(_ subject: ExternalChanges.Subject) async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            try ExternalChanges.createDatabase(at: path, journalMode: "wal")
            let observed = try ExternalChanges.observe(subject, path: path)
            #expect(try await observed.values.waitFor(0))
            let other = try DatabaseQueue(path: path)
            defer { other.close() }
            // The long write: it holds the writer while another connection commits (it wrote nothing yet, so it
            // holds no write lock of SQLite's).
            let writing = Task {
                try await observed.writer.writeWithoutTransaction { db in
                    try other.write { otherDB in try otherDB.execute("INSERT INTO item (n) VALUES (5)") }
                    Thread.sleep(forTimeInterval: 0.5)
                    try db.execute("INSERT INTO item (n) VALUES (6)")
                }
            }
            try await writing.value
            #expect(try await observed.values.waitFor(6))
            try await other.write { db in try db.execute("INSERT INTO item (n) VALUES (8)") }
            #expect(try await observed.values.waitFor(8))
            await observed.close()
        }
    }

    @Test(
        "a rollback-journal queue keeps seeing commits after another process switches the file to WAL",
        .enabled(if: ExternalChanges.sqlite3Shell != nil, "Debian's sqlite3 shell is not installed"))
    func walCreatedAfterTheWatchStarted() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            try ExternalChanges.createDatabase(at: path, journalMode: "delete")
            let observed = try ExternalChanges.observe(.queue, path: path)
            #expect(try await observed.values.waitFor(0))
            try ExternalChanges.runShell(path, "INSERT INTO item (n) VALUES (1)")
            #expect(try await observed.values.waitFor(1))
            // The -wal appears now, after the watch started.
            try ExternalChanges.runShell(path, "PRAGMA journal_mode = wal; INSERT INTO item (n) VALUES (2)")
            #expect(try await observed.values.waitFor(2))
            try ExternalChanges.runShell(path, "INSERT INTO item (n) VALUES (3)")
            #expect(try await observed.values.waitFor(3))
            await observed.close()
        }
    }

    @Test("setting the detection from several tasks while another connection commits: the last commit is seen")
    func detectionChangesDuringLooks() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            try ExternalChanges.createDatabase(at: path, journalMode: "wal")
            for subject in ExternalChanges.Subject.allCases {
                let observed = try ExternalChanges.observe(subject, path: path)
                #expect(try await observed.values.waitFor(0))
                let other = try DatabaseQueue(path: path)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for number in 1...40 {
                            try await other.write { db in try db.execute("INSERT INTO item (n) VALUES (?)", number) }
                        }
                    }
                    for index in 0..<3 {
                        group.addTask {
                            let settings: [ExternalChangeDetection] = [
                                .disabled, .polling(interval: .milliseconds(3)), .fileSystemEvents,
                            ]
                            for step in 0..<30 {
                                let setting = settings[(step + index) % settings.count]
                                if let queue = observed.writer as? DatabaseQueue {
                                    try queue.setExternalChangeDetection(setting)
                                } else if let pool = observed.writer as? DatabasePool {
                                    try pool.setExternalChangeDetection(setting)
                                }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                if let queue = observed.writer as? DatabaseQueue {
                    try queue.setExternalChangeDetection(.fileSystemEvents)
                }
                if let pool = observed.writer as? DatabasePool {
                    try pool.setExternalChangeDetection(.fileSystemEvents)
                }
                #expect(try await observed.values.waitFor(40), "\(subject)")
                try await other.write { db in try db.execute("INSERT INTO item (n) VALUES (41)") }
                #expect(try await observed.values.waitFor(41), "\(subject)")
                try await other.write { db in try db.execute("DELETE FROM item") }
                other.close()
                await observed.close()
            }
        }
    }

    @Test("a database in a folder with odd characters, opened through a symlinked folder, sees the other's commits")
    func symlinkedOddFolder() async throws {
        try await TemporaryFile.withDatabasePathAsync { base in
            let root = base + ".dir"
            let real = root + "/réel dir #1 ;'\"-wal"
            let link = root + "/lien -journal"
            try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: root) }
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
            let name = "/base de données ✓.db"
            try ExternalChanges.createDatabase(at: real + name, journalMode: "wal")
            for subject in ExternalChanges.Subject.allCases {
                let observed = try ExternalChanges.observe(subject, path: link + name)
                #expect(try await observed.values.waitFor(0))
                #expect(observed.watch.runningMonitor?.kind == .fileSystemEvents)
                let other = try DatabaseQueue(path: real + name)
                try await other.write { db in try db.execute("INSERT INTO item (n) VALUES (4)") }
                #expect(try await observed.values.waitFor(4), "\(subject)")
                try await other.write { db in try db.execute("DELETE FROM item") }
                other.close()
                await observed.close()
            }
        }
    }

    @Test("a queue closed from inside a transaction observer hearing an external change")
    func closeFromObserverCallback() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            try ExternalChanges.createDatabase(at: path, journalMode: "wal")
            let queue = try DatabaseQueue(path: path)
            let heard = Locked(0)
            _ = try await queue.write { db in
                try db.addTransactionObserver { changes in
                    guard changes.isExternal else { return }
                    heard.withLock { $0 += 1 }
                    queue.close()
                }
            }
            let other = try DatabaseQueue(path: path)
            defer { other.close() }
            try await other.write { db in try db.execute("INSERT INTO item (n) VALUES (1)") }
            #expect(try await ExternalChanges.eventually { heard.current == 1 })
            // Closed: later commits are heard by nobody, and the watch stopped.
            #expect(try await ExternalChanges.eventually { queue.serialized.externalChanges.runningMonitor == nil })
            try await other.write { db in try db.execute("INSERT INTO item (n) VALUES (2)") }
            try await Task.sleep(nanoseconds: 300_000_000)
            #expect(heard.current == 1)
            #expect(throws: DatabaseError.self) { try queue.read { db in try db.queryValue("SELECT 1", as: Int.self) } }
        }
    }

    /// A C compiler, to build the library that slows the other process's syncs.
    static let compiler = ["/usr/bin/cc", "/usr/bin/gcc"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// A library that makes `fsync` and `fdatasync` take `milliseconds` more, for `LD_PRELOAD`: a slow disk.
    static func slowSyncLibrary(in folder: String, milliseconds: Int) throws -> String {
        let source = folder + "/slow-sync.c"
        let library = folder + "/slow-sync.so"
        let code = """
            #define _GNU_SOURCE
            #include <dlfcn.h>
            #include <unistd.h>
            int fsync(int fd) { usleep(\(milliseconds * 1000)); return ((int (*)(int))dlsym(RTLD_NEXT, "fsync"))(fd); }
            int fdatasync(int fd) {
                usleep(\(milliseconds * 1000));
                return ((int (*)(int))dlsym(RTLD_NEXT, "fdatasync"))(fd);
            }
            """
        try code.write(toFile: source, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(compiler))
        process.arguments = ["-shared", "-fPIC", "-o", library, source, "-ldl"]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        return library
    }

    /// The other process stays open (an app and its widget): no close of its -wal follows its commit. Its disk is
    /// slow, so the commit's -wal writes (the file-system events) come well before the -shm update that makes the
    /// commit visible, later than the watch's last settling look.
    @Test(
        "a commit whose sync takes longer than the settling delays, by a process that stays open, is seen",
        .enabled(if: ExternalChanges.sqlite3Shell != nil && compiler != nil, "needs the sqlite3 shell and cc"))
    func slowSyncOfAnOpenProcess() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let folder = path + ".slow"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let library = try Self.slowSyncLibrary(in: folder, milliseconds: 1500)
            try ExternalChanges.createDatabase(at: path, journalMode: "wal")
            let observed = try ExternalChanges.observe(.queue, path: path)
            #expect(try await observed.values.waitFor(0))
            let shell = Process()
            shell.executableURL = URL(fileURLWithPath: try #require(ExternalChanges.sqlite3Shell))
            shell.arguments = ["-cmd", ".timeout 5000", path]
            shell.environment = ["LD_PRELOAD": library]
            let input = Pipe()
            shell.standardInput = input
            shell.standardOutput = FileHandle.nullDevice
            try shell.run()
            input.fileHandleForWriting.write(Data("PRAGMA synchronous = FULL; INSERT INTO item (n) VALUES (1);\n".utf8))
            // The looks that follow the events end 555 ms after the last one; the once-a-second look sees it.
            #expect(try await observed.values.waitFor(1))
            try input.fileHandleForWriting.close()
            shell.waitUntilExit()
            // Its close writes the -wal again: the commit is seen then.
            #expect(try await observed.values.waitFor(1))
            await observed.close()
        }
    }

    /// The queue is busy while another process commits row 1 and starts row 2, whose syncs are slow (150 ms each,
    /// less than the last settling delay together); the look that runs once the queue is free finds row 1, and
    /// scheduled no settling look for that: row 2 becomes visible with no event after it.
    @Test(
        "a look that finds one commit while the next is being synced looks again",
        .enabled(if: ExternalChanges.sqlite3Shell != nil && compiler != nil, "needs the sqlite3 shell and cc"))
    func lookFindingOneCommitSettlesTheNext() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let folder = path + ".slow"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let library = try Self.slowSyncLibrary(in: folder, milliseconds: 150)
            try ExternalChanges.createDatabase(at: path, journalMode: "wal")
            let observed = try ExternalChanges.observe(.queue, path: path)
            #expect(try await observed.values.waitFor(0))
            let queue = try #require(observed.writer as? DatabaseQueue)
            let release = DispatchSemaphore(value: 0)
            let holding = Task {
                try await queue.writeWithoutTransaction { _ in _ = release.wait(timeout: .now() + 20) }
            }
            let probe = try Database(path: path)
            defer { probe.close() }
            let shell = Process()
            shell.executableURL = URL(fileURLWithPath: try #require(ExternalChanges.sqlite3Shell))
            shell.arguments = ["-cmd", ".timeout 5000", path]
            shell.environment = ["LD_PRELOAD": library]
            let input = Pipe()
            shell.standardInput = input
            shell.standardOutput = FileHandle.nullDevice
            try shell.run()
            input.fileHandleForWriting.write(
                Data(
                    ("PRAGMA synchronous = OFF; INSERT INTO item (n) VALUES (1); "
                        + "PRAGMA synchronous = FULL; INSERT INTO item (n) VALUES (2);\n").utf8))
            // Row 1 is visible, row 2 is being synced: the queue may look now.
            let firstVisible = try await ExternalChanges.eventually {
                (try? probe.queryValue(ExternalChanges.lastNumber, as: Int.self)) == 1
            }
            release.signal()
            try await holding.value
            try #require(firstVisible)
            let seen = try await observed.values.waitFor(2)
            #expect(seen)
            try input.fileHandleForWriting.close()
            shell.waitUntilExit()
            #expect(try await observed.values.waitFor(2))
            await observed.close()
        }
    }

    @Test("own commits and own checkpoints are never reported as external", arguments: ExternalChanges.Subject.allCases)
    func ownCommitsAreNotExternal(_ subject: ExternalChanges.Subject) async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            try ExternalChanges.createDatabase(at: path, journalMode: "wal")
            let observed = try ExternalChanges.observe(subject, path: path)
            #expect(try await observed.values.waitFor(0))
            let external = Locked(0)
            let id = try await observed.writer.write { db in
                try db.addTransactionObserver { changes in
                    if changes.isExternal { external.withLock { $0 += 1 } }
                }
            }
            for number in 1...30 {
                try await observed.writer.write { db in try db.execute("INSERT INTO item (n) VALUES (?)", number) }
            }
            if let pool = observed.writer as? DatabasePool { try pool.checkpoint(.truncate) }
            try await observed.writer.writeWithoutTransaction { db in
                _ = try db.queryValue("PRAGMA wal_checkpoint(TRUNCATE)", as: Int.self)
            }
            #expect(try await observed.values.waitFor(30))
            // Longer than the last settling look.
            try await Task.sleep(nanoseconds: 1_500_000_000)
            #expect(external.current == 0)
            try await observed.writer.write { db in db.removeTransactionObserver(id) }
            await observed.close()
        }
    }

    /// SQLite's connection keeps the file it opened: a file renamed over the path is another file, whose commits
    /// its `data_version` never shows. The watch sees the rename (an event for the database's name) and could say so.
    @Test("a rollback-journal database replaced by another process (renamed over its path) is seen")
    func replacedFileIsSeen() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            try ExternalChanges.createDatabase(at: path, journalMode: "delete")
            let observed = try ExternalChanges.observe(.queue, path: path)
            #expect(try await observed.values.waitFor(0))
            let replacement = path + ".new"
            defer { try? FileManager.default.removeItem(atPath: replacement) }
            try ExternalChanges.createDatabase(at: replacement, journalMode: "delete")
            try ExternalChanges.runShellOrConnection(replacement, "INSERT INTO item (n) VALUES (9)")
            #expect(rename(replacement, path) == 0)
            let seen = try await observed.values.waitFor(9)
            withKnownIssue("review: a file replaced under the connection is never seen (SQLite keeps the old inode)") {
                #expect(seen)
            }
            await observed.close()
        }
    }
}
