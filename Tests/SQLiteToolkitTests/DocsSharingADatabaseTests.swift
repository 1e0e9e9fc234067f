import Foundation
import SQLiteToolkit
import Testing

/// The samples of the article "Sharing a database" (SharingADatabase.md), line for line.
@Suite("Docs: Sharing a database", .serialized, .timeLimit(.minutes(3)))
struct DocsSharingADatabaseTests {
    @Test("an observed query sees another process's commits")
    func observedQuery() async throws {
        try await TemporaryFile.withDatabasePathAsync { sharedPath in
            try ExternalChanges.createDatabase(at: sharedPath, journalMode: "wal")
            let counts = Locked<[Int]>([])
            let queue = try DatabaseQueue(path: sharedPath)
            let task = Task {
                for try await count in queue.observe({ db in
                    try db.queryValue("SELECT count(*) FROM item", as: Int.self) ?? 0
                }) {
                    counts.withLock { $0.append(count) }  // the article prints it
                }
            }
            #expect(try await ExternalChanges.eventually { counts.current.contains(0) })
            let child = try TestHelper.Child(["commit-rows", sharedPath, "2", "--pause-ms", "0"])
            let exit = try await child.wait(seconds: 60)
            #expect(exit?.status == 0)
            #expect(try await ExternalChanges.eventually { counts.current.last == 2 })
            queue.close()
            _ = try await task.value
        }
    }

    @Test("a transaction observer hears of another connection's commit as an external change")
    func transactionObserver() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            try ExternalChanges.createDatabase(at: path, journalMode: "wal")
            let queue = try DatabaseQueue(path: path)
            defer { queue.close() }
            let heard = Locked<[String]>([])
            try await queue.inDatabase { db in
                try db.addTransactionObserver(tables: ["item"]) { changes in
                    if changes.isExternal {
                        // Another connection or process committed: re-read what you keep in memory.
                        heard.withLock { $0.append("external") }
                    } else {
                        // This connection committed: changes.tables and changes.rowChanges say what.
                        heard.withLock { $0.append("own \(changes.tables.sorted())") }
                    }
                }
            }
            try await queue.write { db in try db.execute("INSERT INTO item (n) VALUES (1)") }
            let other = try Database(path: path)
            try other.execute("INSERT INTO item (n) VALUES (2)")
            other.close()
            #expect(try await ExternalChanges.eventually { heard.current == ["own [\"item\"]", "external"] })
        }
    }

    @Test("polling instead of file-system events")
    func polling() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            try ExternalChanges.createDatabase(at: path, journalMode: "wal")
            let queue = try DatabaseQueue(path: path)
            try queue.setExternalChangeDetection(.polling(interval: .milliseconds(250)))
            guard case .polling = queue.externalChangeDetection else {
                Issue.record("the setting was not kept")
                queue.close()
                return
            }
            let values = ValueLog(
                queue.observe { db in try db.queryValue(ExternalChanges.lastNumber, as: Int.self) ?? 0 })
            #expect(try await values.waitFor(0))
            try ExternalChanges.runShellOrConnection(path, "INSERT INTO item (n) VALUES (5)")
            #expect(try await values.waitFor(5))
            await values.stop()
            queue.close()
        }
    }
}
