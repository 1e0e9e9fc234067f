import Dispatch
import Foundation
import SQLiteToolkit
import Testing

/// The samples of the Sharing a database article (Sources/SQLiteToolkit/SQLiteToolkit.docc/SharingADatabase.md).
@Suite("Docs: Sharing a database, suspension and the WAL")
struct DocsSharingADatabaseSuspensionTests {
    /// Stands in for the app's logger.
    final class Logger: Sendable {
        let lines = Locked<[String]>([])
        func warning(_ line: String) { lines.withLock { $0.append(line) } }
    }

    @Test("the lifecycle wiring: suspend off the main thread when the app leaves, resume when it comes back")
    func lifecycle() throws {
        try TemporaryFile.withDatabasePath { path in
            let pool = try DatabasePool(path: path)
            defer { pool.close() }
            try pool.write { db in try db.execute("CREATE TABLE t (x)") }
            // Suspensions and resumes, one at a time, in the order the app asked for them.
            let lifecycleQueue = DispatchQueue(label: "database lifecycle")
            // didEnterBackgroundNotification: a background task runs the suspension on that queue.
            let suspended = DispatchSemaphore(value: 0)
            lifecycleQueue.async {
                // .wait: work the app starts from now on (a background fetch) waits for the resume.
                try? pool.suspend(accesses: .wait)
                suspended.signal()
            }
            #expect(wait(suspended))
            #expect(pool.isSuspended)
            // willEnterForegroundNotification: the resume runs after the suspension, whichever thread was faster.
            lifecycleQueue.async {
                do {
                    try pool.resume()
                } catch {
                    // The file could not be opened: accesses keep waiting, and a later resume() tries again.
                }
            }
            #expect(try pool.read { db in try db.queryValue("SELECT count(*) FROM t", as: Int.self) } == 0)
        }
    }

    @Test("the WAL hygiene sample: a watermark, a report, and a labelled snapshot")
    func walHygiene() throws {
        try TemporaryFile.withDatabasePath { path in
            let logger = Logger()
            var hygiene = WALHygiene()
            hygiene.watermark = 32 << 20
            hygiene.report = { report in
                for holder in report.holders {
                    logger.warning("WAL at \(report.walBytes) bytes; \(holder.label) has read for \(holder.age) s")
                }
            }
            let pool = try DatabasePool(path: path, walHygiene: hygiene)
            let snapshot = try pool.makeSnapshot(label: "export")
            #expect(snapshot.label == "export")
            #expect(pool.walReadHolders().map(\.label) == ["export"])
            snapshot.close()
            pool.close()
        }
    }
}
