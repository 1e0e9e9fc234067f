import Foundation
import Testing

@testable import SQLiteToolkit

/// Opening a connection checks the file's header through SQLite, never with a descriptor of its own, whose close
/// would release the POSIX locks of the process's other connections to the file.
@Suite("The header check keeps the other connections' locks", .serialized, .timeLimit(.minutes(2)))
struct HeaderCheckLockTests {
    @Test("a pool's reader opened after the writer: another process's close leaves the -wal to the pool")
    func anotherProcessCloseKeepsTheWAL() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            try ExternalChanges.createDatabase(at: path, journalMode: "wal")
            let pool = try DatabasePool(path: path)
            defer { pool.close() }
            let read = { try pool.read { db in try db.queryValue(ExternalChanges.lastNumber, as: Int.self) } }
            // Opens a reader (and, before the fix, dropped the writer's shared lock on the file).
            #expect(try read() == 0)
            // Each process commits the row 1 and closes: the first would take itself for the last connection,
            // checkpoint, and delete the -wal and -shm the pool still uses; the pool would never see the second.
            for number in 1...2 {
                let child = try TestHelper.Child(["commit-rows", path, "1", "--pause-ms", "0"])
                let exit = try await child.wait(seconds: 60)
                #expect(exit?.status == 0, "commit-rows: \(exit?.output ?? "did not end")")
                try await pool.write { db in try db.execute("UPDATE item SET n = ? WHERE n = 1", number + 10) }
                #expect(try read() == number + 10)
            }
            let fresh = try Database(path: path)
            defer { fresh.close() }
            #expect(try fresh.queryValue("SELECT group_concat(n) FROM item ORDER BY n", as: String.self) == "11,12")
        }
    }
}
