import Foundation
import SQLiteToolkit
import Testing

/// The cost of the atomic key change beside the codec's in-place rewrite, on a database of
/// `SQLTK_KEY_CHANGE_MB` megabytes (scripts/reliability-long: 100). Prints the times; asserts only the results.
@Suite("Key change cost")
struct KeyChangeCostTests {
    static let megabytes = ProcessInfo.processInfo.environment["SQLTK_KEY_CHANGE_MB"].flatMap(Int.init)

    @Test(
        "the atomic key change and the in-place rewrite both leave the database whole",
        .enabled(if: megabytes != nil, "set SQLTK_KEY_CHANGE_MB to the size to measure (scripts/reliability-long)"))
    func cost() throws {
        let megabytes = try #require(Self.megabytes)
        try FaultTestFile.withDatabasePath { path in
            let first = DatabaseKey.passphrase("first")
            let db = try Database(path: path, configuration: .keyed(first))
            try db.execute("CREATE TABLE t(n INTEGER PRIMARY KEY, pad BLOB)")
            try db.transaction { db in
                for number in 0..<(megabytes * 1024) {
                    try db.execute("INSERT INTO t VALUES (?, randomblob(1000))", number)
                }
            }
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
            // Dispatch's clock rather than ContinuousClock, which needs macOS 13.
            func seconds(_ body: () throws -> Void) rethrows -> String {
                let start = DispatchTime.now().uptimeNanoseconds
                try body()
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                return "\((elapsed * 100).rounded() / 100) s"
            }
            let atomic = try seconds { try db.changeKey(to: .passphrase("second")) }
            // The codec's own in-place rewrite, what changeKey(to:) did before it became atomic.
            let inPlace = try seconds { try db.execute("PRAGMA rekey = 'third'") }
            db.close()
            print(
                "key change | \(size / 1_000_000) MB | atomic (copy, sync, rename, reopen) \(atomic) | in place \(inPlace)"
            )
            let check = try Database(path: path, configuration: .keyed(.passphrase("third")))
            #expect(try check.queryValue("SELECT count(*) FROM t", as: Int.self) == megabytes * 1024)
        }
    }
}
