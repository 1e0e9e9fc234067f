import Foundation
import SQLiteToolkit
import Testing

/// Runs `sqltk-test-helper`, the executable target the test target depends on, as child processes.
enum TestHelper {
    /// The helper beside the test binary (SwiftPM puts every product of a build in one folder).
    static func executable() throws -> URL {
        var folders = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            folders.append(bundle.bundleURL.deletingLastPathComponent())
        }
        for folder in folders {
            let candidate = folder.appendingPathComponent("sqltk-test-helper")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw HelperError(description: "sqltk-test-helper not found beside the tests in \(folders.map(\.path))")
    }

    struct HelperError: Error, CustomStringConvertible {
        var description: String
    }

    /// A started helper process and what it prints.
    final class Child: @unchecked Sendable {
        // @unchecked Sendable: Process and Pipe are used from the test's thread only; FileHandle reads are safe.
        let process = Process()
        private let output = Pipe()

        init(_ arguments: [String]) throws {
            process.executableURL = try TestHelper.executable()
            process.arguments = arguments
            process.standardOutput = output
            process.standardError = output
            try process.run()
        }

        /// Waits at most `seconds` for the process to exit; kills it and returns `nil` when it does not. Polls with
        /// `Task.sleep`, so waiting holds no thread of the cooperative pool that other tests need.
        func wait(seconds: Double) async throws -> (status: Int32, output: String)? {
            let deadline = Date(timeIntervalSinceNow: seconds)
            while process.isRunning && Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
            if process.isRunning {
                kill()
                return nil
            }
            let data = output.fileHandleForReading.readDataToEndOfFile()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }

        /// Stops a process that runs until killed.
        func stop() {
            kill()
        }

        /// SIGKILL, not `terminate()`'s SIGTERM: a child started from the test runner's threads inherits a signal
        /// mask that blocks SIGTERM, so each CPU-bound helper ran its whole 120 s after its scenario was done.
        private func kill() {
            if process.isRunning { _ = Foundation.kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }
}

@Suite("Writers in several processes", .serialized, .timeLimit(.minutes(3)))
struct MultiProcessTests {
    struct Scenario: Sendable, CustomTestStringConvertible {
        var journalMode: String
        var writers: Int
        var testDescription: String { "\(writers) writers, \(journalMode) journal" }
    }

    /// Four and eight writers, in WAL and in the default rollback journal, each beside two CPU-bound processes on
    /// this 2-core machine.
    static let scenarios = [
        Scenario(journalMode: "wal", writers: 4), Scenario(journalMode: "delete", writers: 4),
        Scenario(journalMode: "wal", writers: 8), Scenario(journalMode: "delete", writers: 8),
    ]

    /// Increments per writer: 1,000, or `SQLTK_MULTIPROCESS_INCREMENTS` (`scripts/reliability-long` runs the same
    /// scenarios there).
    static let increments = environmentInteger("SQLTK_MULTIPROCESS_INCREMENTS") ?? 1_000

    @Test(
        "with the default busy handling, writers in several processes each add 1,000 and no busy error reaches them",
        arguments: scenarios)
    func concurrentIncrements(scenario: Scenario) async throws {
        let increments = Self.increments
        try await TemporaryFile.withDatabasePathAsync { path in
            let create = try TestHelper.Child(["create-counter", path, scenario.journalMode])
            let created = try #require(try await create.wait(seconds: 60))
            try #require(created.status == 0, "create-counter: \(created.output)")

            let spinners = try (0..<2).map { _ in try TestHelper.Child(["spin", "120"]) }
            defer { for spinner in spinners { spinner.stop() } }
            // `synchronous = OFF` in the rollback journal: the locks are taken and released exactly as with
            // FULL, without the disk flushes that would make the test take half a minute.
            let synchronous = scenario.journalMode == "wal" ? "normal" : "off"
            let writers = try (0..<scenario.writers).map { _ in
                try TestHelper.Child(["increment", path, "\(increments)", "default", synchronous])
            }
            for writer in writers {
                let result = try #require(try await writer.wait(seconds: 150), "a writer did not finish in time")
                #expect(result.status == 0, "\(result.output)")
                #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "ok \(increments) busy 0")
            }
            let db = try Database(path: path)
            defer { db.close() }
            #expect(try db.queryValue("SELECT value FROM counter", as: Int.self) == scenario.writers * increments)
        }
    }

    struct GatedScenario: Sendable, CustomTestStringConvertible {
        var journalMode: String
        /// How long each transaction keeps the write lock after its update, as work inside it or a slow `fsync`
        /// would.
        var holdMilliseconds: Int
        var testDescription: String {
            "8 writers, \(journalMode) journal, " + (holdMilliseconds == 0 ? "no hold" : "\(holdMilliseconds) ms hold")
        }
    }

    /// Eight writers in WAL and in the rollback journal, with and without a 5 ms hold in each transaction: without
    /// the gate, 8 writers × 1,000 increments with the hold saw busy errors on this 2-core machine (see the
    /// Concurrency article).
    static let gatedScenarios = [
        GatedScenario(journalMode: "wal", holdMilliseconds: 0),
        GatedScenario(journalMode: "delete", holdMilliseconds: 0),
        GatedScenario(journalMode: "wal", holdMilliseconds: 5),
        GatedScenario(journalMode: "delete", holdMilliseconds: 5),
    ]

    /// Increments per writer with the 5 ms hold: 500 in the normal run (CI), `SQLTK_MULTIPROCESS_HOLD_INCREMENTS`
    /// otherwise (`scripts/reliability-long` runs 1,000, the case). Each transaction keeps the lock for at
    /// least 5 ms, so 8 writers × 500 take at least 20 s per journal mode: 1,000 would double the 40 s this adds to a
    /// CI run that must stay under 30 minutes on 2 cores. The cases without a hold run `increments` (1,000; 10,000 in
    /// the long run), which take a few seconds.
    static let holdIncrements = environmentInteger("SQLTK_MULTIPROCESS_HOLD_INCREMENTS") ?? 500

    @Test(
        "with the write gate, 8 writers beside CPU-bound processes end at the exact count and no busy error reaches them",
        arguments: gatedScenarios)
    func gatedIncrements(scenario: GatedScenario) async throws {
        let increments = scenario.holdMilliseconds == 0 ? Self.increments : Self.holdIncrements
        let writerCount = 8
        try await TemporaryFile.withDatabasePathAsync { path in
            let create = try TestHelper.Child(["create-counter", path, scenario.journalMode])
            let created = try #require(try await create.wait(seconds: 60))
            try #require(created.status == 0, "create-counter: \(created.output)")

            let spinners = try (0..<2).map { _ in try TestHelper.Child(["spin", "170"]) }
            defer { for spinner in spinners { spinner.stop() } }
            let synchronous = scenario.journalMode == "wal" ? "normal" : "off"
            let writers = try (0..<writerCount).map { _ in
                try TestHelper.Child([
                    "increment", path, "\(increments)", "default", synchronous, "--gate",
                    "--hold-ms", "\(scenario.holdMilliseconds)",
                ])
            }
            for writer in writers {
                let result = try #require(try await writer.wait(seconds: 150), "a writer did not finish in time")
                #expect(result.status == 0, "\(result.output)")
                #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "ok \(increments) busy 0")
            }
            let db = try Database(path: path)
            defer { db.close() }
            #expect(try db.queryValue("SELECT value FROM counter", as: Int.self) == writerCount * increments)
        }
    }
}
