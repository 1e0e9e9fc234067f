import Foundation
import Testing

@testable import SQLiteToolkit

/// Commits that another process makes while a queue or pool is suspended: no connection is open to see them, and the
/// connection opened by `resume()` counts its data version afresh, so it cannot compare; its observed queries must
/// hear of them all the same.
@Suite("External changes across a suspension", .serialized, .timeLimit(.minutes(3)))
struct ExternalChangeSuspensionTests {
    @Test(
        "an observed query hears, after resume(), the commits another process made during the suspension",
        arguments: [ExternalChanges.Subject.queue, .pool])
    func commitsDuringSuspension(_ subject: ExternalChanges.Subject) async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            try ExternalChanges.createDatabase(at: path, journalMode: "wal")
            let observed = try ExternalChanges.observe(subject, path: path)
            #expect(try await observed.values.waitFor(0))
            if let queue = observed.writer as? DatabaseQueue { try await queue.suspend() }
            if let pool = observed.writer as? DatabasePool { try await pool.suspend() }
            try ExternalChanges.runShellOrConnection(path, "INSERT INTO item (n) VALUES (1)")
            if let queue = observed.writer as? DatabaseQueue { try await queue.resume() }
            if let pool = observed.writer as? DatabasePool { try await pool.resume() }
            #expect(try await observed.values.waitFor(1))
            // And the watch goes on after the resume.
            try ExternalChanges.runShellOrConnection(path, "INSERT INTO item (n) VALUES (2)")
            #expect(try await observed.values.waitFor(2))
            await observed.close()
        }
    }
}
