import Foundation
import SQLiteToolkit
import Testing

/// Kills a writer process with SIGKILL at random moments and checks what SQLite promised: the file passes
/// `PRAGMA integrity_check`, every transaction the writer acknowledged (after `COMMIT` returned) is there, and no
/// transaction is there in part. In the encrypted modes it also scans the database file, the `-wal` and the
/// `-journal` after every kill for the text every row holds: it must never appear.
///
/// The writer is `sqltk-crash-writer` (Tests/Helpers/sqltk-crash-writer), built beside the tests. Each mode is killed
/// `SQLTK_CRASH_KILLS` times (default 8, a few seconds); `scripts/reliability-long` runs 200 per mode and prints the
/// figures. `SQLTK_SEED` changes the kill moments.
@Suite("Crash safety: SIGKILL during writes")
struct CrashSafetyTests {
    static let killsPerMode = environmentInteger("SQLTK_CRASH_KILLS") ?? 8

    /// What one mode's run saw, printed by the long run.
    struct Figures {
        var kills = 0
        var acknowledged = 0
        var verified = 0
        var checks = 0
    }

    @Test(
        "acknowledged transactions survive SIGKILL, none is partial, the file passes integrity_check",
        arguments: ["delete", "wal", "delete-encrypted", "wal-encrypted"])
    func killDuringWrites(journalMode: String) throws {
        let writer = try #require(Self.writerURL(), "sqltk-crash-writer is not built beside the test bundle")
        let modeNumber = journalMode.utf8.reduce(UInt64(0)) { $0 &* 31 &+ UInt64($1) }
        var random = SeededRandom(seed: SeededRandom.seed(default: 16) ^ modeNumber)
        let isEncrypted = journalMode.hasSuffix("-encrypted")
        var figures = Figures()
        try TemporaryFile.withDatabasePath { path in
            var highestAcknowledged: Int64 = 0
            for _ in 0..<Self.killsPerMode {
                let acknowledged = try runAndKill(writer, path: path, journalMode: journalMode, random: &random)
                figures.kills += 1
                figures.acknowledged += acknowledged.count
                highestAcknowledged = max(highestAcknowledged, acknowledged.max() ?? 0)
                if isEncrypted { try checkNoPlaintext(path: path) }
                figures.verified = try verify(
                    path: path, isEncrypted: isEncrypted, highestAcknowledged: highestAcknowledged)
                figures.checks += 1
            }
            // The scan can see the text when it is there: a plain database shows it in its file or its WAL.
            if !isEncrypted, figures.verified > 0 {
                let files = try ["", "-wal"].filter { TemporaryFile.exists(path + $0) }.map {
                    try Data(contentsOf: URL(fileURLWithPath: path + $0))
                }
                #expect(files.contains { $0.range(of: Self.marker) != nil })
            }
        }
        #expect(figures.kills == Self.killsPerMode)
        if environmentInteger("SQLTK_RELIABILITY_REPORT") != nil {
            print(
                "crash safety [\(journalMode)]: \(figures.kills) SIGKILLs, \(figures.acknowledged) acknowledged "
                    + "transactions, \(figures.verified) transactions verified after the last kill, "
                    + "\(figures.checks) reopen checks (integrity_check, none lost, none partial)")
        }
    }

    @Test(
        "a key change killed anywhere leaves a whole file with the old key or the new one; an acknowledged one stays",
        arguments: ["rekey-delete", "rekey-wal"])
    func killDuringKeyChanges(mode: String) throws {
        let writer = try #require(Self.writerURL(), "sqltk-crash-writer is not built beside the test bundle")
        var random = SeededRandom(
            seed: SeededRandom.seed(default: 40) ^ mode.utf8.reduce(UInt64(0)) { $0 &* 31 &+ UInt64($1) })
        let keys = Self.rekeyKeys.map { DatabaseKey.raw(hex: $0) }
        var kills = 0
        var acknowledgedChanges = 0
        var interruptedCycles = 0
        try TemporaryFile.withDatabasePath { path in
            do {
                var configuration = Database.Configuration()
                configuration.key = keys[0]
                _ = try Database(path: path, configuration: configuration).queryValue("SELECT 1", as: Int.self)
            }
            var highestAcknowledged: Int64 = 0
            // The highest cycle the file held after the previous kill.
            var highestBefore: Int64 = 0
            for _ in 0..<Self.killsPerMode {
                let acknowledged = try runAndKill(writer, path: path, journalMode: mode, random: &random)
                kills += 1
                acknowledgedChanges += acknowledged.count
                highestAcknowledged = max(highestAcknowledged, acknowledged.max() ?? 0)
                // The file opens with exactly one of the two keys, whole.
                var opened: (db: Database, keyIndex: Int)?
                for (index, key) in keys.enumerated() where opened == nil {
                    var configuration = Database.Configuration()
                    configuration.key = key
                    if let db = try? Database(path: path, configuration: configuration) { opened = (db, index) }
                }
                let (db, keyIndex) = try #require(opened, "after kill \(kills) the file opens with neither key")
                #expect(try db.queryValue("PRAGMA integrity_check", as: String.self) == "ok")
                // Killed before the writer's table was committed, the file has none, and no cycle ran.
                let hasTable = try db.queryValue(
                    "SELECT count(*) FROM sqlite_schema WHERE name = 'cycle'", as: Int.self)
                let highest =
                    hasTable == 1
                    ? Int64(try db.queryValue("SELECT coalesce(max(n), 0) FROM cycle", as: Int.self) ?? 0) : 0
                db.close()
                // Cycle n inserts n, then changes the key to keys[n % 2]: the last cycle's key change committed
                // or not, and an acknowledged one always did.
                #expect(highest >= highestAcknowledged, "an acknowledged cycle was lost")
                // One cycle at most past what was known before this run: the last acknowledged one, or a cycle an
                // earlier run finished without acknowledging it (killed between its commit point and its line).
                #expect(highest <= max(highestAcknowledged, highestBefore) + 1)
                highestBefore = max(highestBefore, highest)
                if keyIndex != Int(highest % 2) {
                    interruptedCycles += 1
                    #expect(highest > highestAcknowledged, "an acknowledged key change was lost after kill \(kills)")
                }
            }
        }
        #expect(kills == Self.killsPerMode)
        if environmentInteger("SQLTK_RELIABILITY_REPORT") != nil {
            print(
                "crash safety [\(mode)]: \(kills) SIGKILLs, \(acknowledgedChanges) acknowledged key changes, "
                    + "\(interruptedCycles) kills between a cycle's insert and its key change's commit; "
                    + "the file whole with one of the two keys after each, no acknowledged key change lost")
        }
    }

    /// Starts the writer on `path`, kills it with SIGKILL at a random moment, and returns the transaction numbers
    /// it acknowledged before dying.
    private func runAndKill(
        _ writer: URL, path: String, journalMode: String, random: inout SeededRandom
    ) throws -> [Int64] {
        let process = Process()
        process.executableURL = writer
        process.arguments = [path, journalMode, String(random.next())]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let reader = output.fileHandleForReading
        var received = Data()
        // Most kills land in the write loop (after the first acknowledgement); one in four lands anywhere from
        // the start, which includes opening the file and setting the journal mode.
        if random.next() % 4 != 0 {
            while !received.contains(10) {
                let chunk = reader.availableData
                if chunk.isEmpty { break }  // the writer exited: reported below
                received.append(chunk)
            }
        }
        usleep(UInt32(random.next() % 15_000))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        received.append(reader.readDataToEndOfFile())
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(
            process.terminationReason == .uncaughtSignal,
            "the writer stopped before the kill (status \(process.terminationStatus)): \(stderr)")
        // Only whole lines count: a number is acknowledged when its line ended.
        let text = String(decoding: received, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        lines.removeLast()  // the text after the last newline: empty or an unfinished line
        return lines.compactMap { Int64($0) }
    }

    /// Reopens the file and checks it; returns the number of transactions it holds.
    private func verify(path: String, isEncrypted: Bool, highestAcknowledged: Int64) throws -> Int {
        var configuration = Database.Configuration()
        if isEncrypted { configuration.key = .raw(hex: Self.key) }
        let db = try Database(path: path, configuration: configuration)
        defer { db.close() }
        let integrity = try db.queryValue("PRAGMA integrity_check", as: String.self)
        #expect(integrity == "ok")
        let tables = try db.queryValue(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('batch', 'item')", as: Int.self)
        guard tables == 2 else {
            // Killed before the schema was committed: then nothing can have been acknowledged.
            #expect(highestAcknowledged == 0)
            return 0
        }
        let count = try db.queryValue("SELECT count(*) FROM batch", as: Int64.self) ?? -1
        let lowest = try db.queryValue("SELECT coalesce(min(n), 1) FROM batch", as: Int64.self)
        let highest = try db.queryValue("SELECT coalesce(max(n), 0) FROM batch", as: Int64.self) ?? -1
        // Distinct numbers from 1 to `highest`, `highest` of them: exactly 1...highest, so every acknowledged number
        // (all at most `highestAcknowledged`) is present when `highest` reaches it.
        #expect(lowest == 1)
        #expect(count == highest)
        #expect(highest >= highestAcknowledged, "acknowledged transactions were lost")
        let partial = try db.queryValue(
            "SELECT count(*) FROM batch WHERE rows != (SELECT count(*) FROM item WHERE item.n = batch.n)",
            as: Int.self)
        #expect(partial == 0, "a transaction is there in part")
        let orphans = try db.queryValue(
            "SELECT count(*) FROM item WHERE n NOT IN (SELECT n FROM batch)", as: Int.self)
        #expect(orphans == 0, "rows of a transaction whose batch row is missing")
        return Int(count)
    }

    /// The writer's key for the encrypted modes and the text it stores in every row (Tests/Helpers/sqltk-crash-writer).
    /// (Computed, not stored: a stored static `Data` shows up as a leak under LeakSanitizer.)
    static var key: String { String(repeating: "5a17c0de", count: 8) }
    static var marker: Data { Data("sqltk-crash-writer plaintext marker".utf8) }
    /// The two keys the writer's `rekey-` modes alternate between.
    static var rekeyKeys: [String] { [String(repeating: "0a", count: 32), String(repeating: "0b", count: 32)] }

    /// Scans the database file and whatever journal the kill left beside it for the text the writer stores in
    /// every row: an encrypted database must not show it in any of them.
    private func checkNoPlaintext(path: String) throws {
        for suffix in ["", "-wal", "-journal"] where TemporaryFile.exists(path + suffix) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path + suffix))
            #expect(bytes.range(of: Self.marker) == nil, "plaintext in the \(suffix.isEmpty ? "main" : suffix) file")
        }
    }

    /// The writer executable: `SQLTK_CRASH_WRITER` when set, else the build products folder holding this test
    /// bundle (on macOS the bundle's binary sits a few folders deeper).
    static func writerURL() -> URL? {
        if let path = ProcessInfo.processInfo.environment["SQLTK_CRASH_WRITER"] {
            return URL(fileURLWithPath: path)
        }
        var folder = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        for _ in 0..<4 {
            folder = folder.deletingLastPathComponent()
            let candidate = folder.appendingPathComponent("sqltk-crash-writer")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}
