// Writes numbered transactions into a database until it is killed, for the crash-safety tests.
//
//     sqltk-crash-writer PATH MODE [SEED]
//
// MODE is `delete` (rollback journal) or `wal`, plain, or `delete-encrypted` or `wal-encrypted`: encrypted with the
// default cipher and the raw key `CrashWriter.key` (a raw key, so no key derivation slows the loop). Each
// transaction n inserts one row into `batch` (n and its row count, 1 to 5) and that many rows into `item` (a random
// blob and the text `CrashWriter.marker`, which the tests look for in the files of an encrypted database), then
// commits through `Database.transaction`. Only after the
// commit returned does the writer print `n` on a line of its own: a number on standard output is a promise that
// transaction n is durable. Numbering continues from the largest committed n, so the tests can kill the writer,
// check the file, and start it again on the same file. Exit status 2: bad arguments; 1: a database error.
//
// MODE `rekey-delete` or `rekey-wal` changes keys instead: the file is encrypted with one of the raw keys
// `CrashWriter.rekeyKeys` (the first at creation), and cycle n inserts n into `cycle`, then changes the key to
// `rekeyKeys[n % 2]` (`changeKey(to:)`) and prints `n`: a number on standard output is a promise that the file's
// key is that one. Started again, the writer opens the file with whichever key opens it and first finishes the
// cycle a kill interrupted.
import Foundation
import SQLiteToolkit

/// A small deterministic generator, so one seed gives one sequence of payload sizes.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Writes `line` with one `write(2)`: a line shorter than `PIPE_BUF` reaches a pipe whole or not at all.
func acknowledge(_ line: String) {
    var bytes = Array(line.utf8)
    bytes.append(10)
    _ = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
}

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("sqltk-crash-writer: \(message)\n".utf8))
    exit(status)
}

/// What the tests share with the writer.
enum CrashWriter {
    /// The raw 256-bit key of the encrypted modes, in hex.
    static let key = String(repeating: "5a17c0de", count: 8)
    /// Text stored in every row: never found in the files of an encrypted database.
    static let marker = "sqltk-crash-writer plaintext marker"
    /// The two raw keys the `rekey-` modes alternate between, in hex.
    static let rekeyKeys = [String(repeating: "0a", count: 32), String(repeating: "0b", count: 32)]
}

/// The `rekey-` modes: key changes in a loop, each acknowledged once `changeKey(to:)` returned.
func changeKeysUntilKilled(path: String, journalMode: String) throws -> Never {
    let keys = CrashWriter.rekeyKeys.map { DatabaseKey.raw(hex: $0) }
    var db: Database?
    var keyIndex = 0
    for (index, key) in keys.enumerated() where db == nil {
        var configuration = Database.Configuration()
        configuration.key = key
        if let opened = try? Database(path: path, configuration: configuration) {
            db = opened
            keyIndex = index
        }
    }
    guard let db else { fail("the file opens with neither key", status: 1) }
    let mode = try db.queryValue("PRAGMA journal_mode = \(journalMode)", as: String.self)
    guard mode == journalMode else { fail("journal_mode is \(mode ?? "unknown"), not \(journalMode)", status: 1) }
    try db.execute("CREATE TABLE IF NOT EXISTS cycle (n INTEGER PRIMARY KEY)")
    var n = try db.queryValue("SELECT coalesce(max(n), 0) FROM cycle", as: Int.self) ?? 0
    // A cycle whose insert committed but whose key change did not: finish it.
    if keyIndex != n % 2 {
        try db.changeKey(to: keys[n % 2])
        acknowledge(String(n))
    }
    while true {
        n += 1
        try db.execute("INSERT INTO cycle (n) VALUES (?)", n)
        try db.changeKey(to: keys[n % 2])
        acknowledge(String(n))
    }
}

let arguments = CommandLine.arguments
let modes = ["delete", "wal", "delete-encrypted", "wal-encrypted", "rekey-delete", "rekey-wal"]
guard arguments.count >= 3, modes.contains(arguments[2]) else {
    fail("usage: sqltk-crash-writer PATH \(modes.joined(separator: "|")) [SEED]", status: 2)
}
let path = arguments[1]
if arguments[2].hasPrefix("rekey-") {
    do {
        try changeKeysUntilKilled(path: path, journalMode: String(arguments[2].dropFirst("rekey-".count)))
    } catch {
        fail("\(error)", status: 1)
    }
}
let journalMode = String(arguments[2].prefix { $0 != "-" })
var configuration = Database.Configuration()
if arguments[2].hasSuffix("-encrypted") { configuration.key = .raw(hex: CrashWriter.key) }
var random = SplitMix64(state: arguments.count > 3 ? UInt64(arguments[3]) ?? 0 : 0)

do {
    let db = try Database(path: path, configuration: configuration)
    let mode = try db.queryValue("PRAGMA journal_mode = \(journalMode)", as: String.self)
    guard mode == journalMode else { fail("journal_mode is \(mode ?? "unknown"), not \(journalMode)", status: 1) }
    try db.execute("CREATE TABLE IF NOT EXISTS batch (n INTEGER PRIMARY KEY, rows INTEGER NOT NULL)")
    try db.execute(
        """
        CREATE TABLE IF NOT EXISTS item (
            n INTEGER NOT NULL, position INTEGER NOT NULL, payload BLOB NOT NULL, note TEXT NOT NULL,
            PRIMARY KEY (n, position)
        )
        """)
    var n = try db.queryValue("SELECT coalesce(max(n), 0) FROM batch", as: Int64.self) ?? 0
    while true {
        n += 1
        let rows = Int64(1 + random.next() % 5)
        try db.transaction { db in
            try db.execute("INSERT INTO batch (n, rows) VALUES (?, ?)", n, rows)
            for position in 0..<rows {
                // Payloads from a few bytes to several pages, so transactions span pages and journal frames.
                let size = Int(random.next() % 9000)
                try db.execute(
                    "INSERT INTO item (n, position, payload, note) VALUES (?, ?, randomblob(?), ?)", n, position, size,
                    CrashWriter.marker)
            }
        }
        acknowledge(String(n))
    }
} catch {
    fail("\(error)", status: 1)
}
