import Foundation
import Testing

@testable import SQLiteToolkit

/// Observed queries on a queue and on a pool see the commits of other processes: `sqltk-test-helper`, Debian's
/// `sqlite3` shell, a changeset applied elsewhere. Each commit is made only once the value of the one before
/// arrived, so that every commit must be seen on its own.
@Suite("Commits of other processes are observed", .serialized, .timeLimit(.minutes(3)))
struct ExternalProcessChangeTests {
    struct Scenario: Sendable, CustomTestStringConvertible {
        var subject: ExternalChanges.Subject
        var journalMode: String
        var testDescription: String { "\(subject.rawValue), \(journalMode) journal" }
    }

    /// A pool always puts its file in WAL mode; a queue is tried on both kinds of file.
    static let scenarios = [
        Scenario(subject: .queue, journalMode: "wal"), Scenario(subject: .queue, journalMode: "delete"),
        Scenario(subject: .pool, journalMode: "wal"),
    ]

    @Test("each row committed by sqltk-test-helper is seen", arguments: scenarios)
    func helperProcessCommits(_ scenario: Scenario) async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            try ExternalChanges.createDatabase(at: path, journalMode: scenario.journalMode)
            let observed = try ExternalChanges.observe(scenario.subject, path: path)
            let rows = 5
            let committer = try RowCommitter(path: path, rows: rows)
            do {
                #expect(try await observed.values.waitFor(0))
                for number in 1...rows {
                    committer.commitNext()
                    #expect(try await observed.values.waitFor(number), "row \(number) was not seen")
                }
                #expect(committer.finish() == 0)
                #expect(observed.watch.runningMonitor?.kind == .fileSystemEvents)
            } catch {
                _ = committer.finish()
                await observed.close()
                throw error
            }
            await observed.close()
            #expect(observed.values.values.current == Array(0...rows))
        }
    }

    @Test(
        "each row inserted by the sqlite3 shell is seen",
        .enabled(if: ExternalChanges.sqlite3Shell != nil, "Debian's sqlite3 shell is not installed"),
        arguments: scenarios)
    func shellCommits(_ scenario: Scenario) async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            try ExternalChanges.createDatabase(at: path, journalMode: scenario.journalMode)
            let observed = try ExternalChanges.observe(scenario.subject, path: path)
            do {
                #expect(try await observed.values.waitFor(0))
                for number in 1...4 {
                    try ExternalChanges.runShell(path, "INSERT INTO item (n) VALUES (\(number))")
                    #expect(try await observed.values.waitFor(number), "row \(number) was not seen")
                }
            } catch {
                await observed.close()
                throw error
            }
            await observed.close()
        }
    }

    @Test("a changeset applied by another process is seen", arguments: ExternalChanges.Subject.allCases)
    func changesetFromAnotherProcess(_ subject: ExternalChanges.Subject) async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            try ExternalChanges.createDatabase(at: path, journalMode: "wal")
            // The changeset: two rows inserted into a scratch database of the same schema.
            let scratch = try Database()
            try scratch.execute(ExternalChanges.schema)
            let session = try Session(database: scratch)
            try session.attach("item")
            try scratch.execute("INSERT INTO item (id, n) VALUES (1, 7), (2, 8)")
            let changeset = try session.changeset()
            session.delete()
            scratch.close()
            let file = path + ".changeset"
            try changeset.data.write(to: URL(fileURLWithPath: file))

            let observed = try ExternalChanges.observe(subject, path: path)
            do {
                #expect(try await observed.values.waitFor(0))
                let child = try TestHelper.Child(["apply-changeset", path, file])
                let exit = try await child.wait(seconds: ExternalChanges.waitSeconds * 3)
                #expect(exit?.status == 0, "apply-changeset: \(exit?.output ?? "did not end")")
                #expect(try await observed.values.waitFor(8), "the changeset's commit was not seen")
            } catch {
                await observed.close()
                throw error
            }
            await observed.close()
        }
    }
}
