import Foundation
import Testing

@testable import SQLiteToolkit

/// Opening a connection checks the file's header through SQLite, never with a descriptor of its own, whose close
/// would release the POSIX locks of the process's other connections to the file.
@Suite("The header check keeps the other connections' locks", .serialized, .timeLimit(.minutes(2)))
struct HeaderCheckLockTests {
    /// The other process is the `sqlite3` shell, which deletes the `-wal` when it closes as what it takes for the
    /// last connection, as a lost lock lets it believe (with `sqltk-test-helper` as the other process, the test
    /// passed before the fix too).
    @Test(
        "a pool's reader opened after the writer: another process's close leaves the -wal to the pool",
        .enabled(if: ExternalChanges.sqlite3Shell != nil, "Debian's sqlite3 shell is not installed"))
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
                try ExternalChanges.runShell(path, "INSERT INTO item (n) VALUES (1)")
                try await pool.write { db in try db.execute("UPDATE item SET n = ? WHERE n = 1", number + 10) }
                #expect(try read() == number + 10)
            }
            let fresh = try Database(path: path)
            defer { fresh.close() }
            #expect(try fresh.queryValue("SELECT group_concat(n) FROM item ORDER BY n", as: String.self) == "11,12")
        }
    }
}
