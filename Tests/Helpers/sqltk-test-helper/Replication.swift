// The database side of the Litestream replication check (scripts/litestream-check): a writer that the check kills
// with SIGKILL while Litestream replicates its file, and the reader of the file Litestream restores.

import Foundation
import SQLiteToolkit

/// The configuration of the replication commands: the raw key KEYHEX when one is given.
func replicationConfiguration(_ arguments: [String], keyIndex: Int) -> Database.Configuration {
    var configuration = Database.Configuration()
    if arguments.count > keyIndex { configuration.key = .raw(hex: arguments[keyIndex]) }
    return configuration
}

/// `replication-create PATH [KEYHEX]`: creates the table of numbered transactions through a `DatabasePool`, so the
/// file is in WAL mode before Litestream first opens it.
func replicationCreate(_ arguments: [String]) throws {
    guard (1...2).contains(arguments.count) else { throw UsageError(description: "replication-create PATH [KEYHEX]") }
    let pool = try DatabasePool(path: arguments[0], configuration: replicationConfiguration(arguments, keyIndex: 1))
    defer { pool.close() }
    try pool.write { db in
        try db.execute(
            "CREATE TABLE IF NOT EXISTS txn (n INTEGER PRIMARY KEY, thread INTEGER NOT NULL, payload BLOB NOT NULL)")
    }
}

/// `replication-write PATH THREADS PAUSE [KEYHEX]`: THREADS threads share one `DatabasePool` and write until the
/// process is killed, each sleeping PAUSE microseconds after each of its transactions (a rate an application could
/// have, rather than as fast as two cores allow). Each transaction takes the next number inside the pool's write
/// transaction (so numbers follow commit order) and inserts one row with a payload of up to two pages, so the WAL
/// passes the pool's checkpoint threshold every few seconds. Only after the commit returned does the thread print
/// `N SECONDS` (the number and the wall-clock time of the acknowledgement) with one `write(2)`: a line on standard
/// output is a promise that transaction N is committed. The first database error ends the process with status 1.
func replicationWrite(_ arguments: [String]) throws {
    guard (3...4).contains(arguments.count), let threadCount = Int(arguments[1]), (1...64).contains(threadCount),
        let pause = UInt32(arguments[2])
    else {
        throw UsageError(description: "replication-write PATH THREADS PAUSE [KEYHEX]")
    }
    let pool = try DatabasePool(path: arguments[0], configuration: replicationConfiguration(arguments, keyIndex: 3))
    let running = DispatchGroup()
    for thread in 0..<threadCount {
        running.enter()
        Thread.detachNewThread {
            do {
                while true {
                    let size = Int.random(in: 16...8000)
                    let n = try pool.write { db in
                        let n = try db.queryValue("SELECT coalesce(max(n), 0) + 1 FROM txn", as: Int64.self) ?? 1
                        try db.execute(
                            "INSERT INTO txn (n, thread, payload) VALUES (?, ?, randomblob(?))", n, thread, size)
                        return n
                    }
                    replicationAcknowledge("\(n) \(String(format: "%.6f", Date().timeIntervalSince1970))")
                    if pause > 0 { usleep(pause) }
                }
            } catch {
                // The other threads would go on writing: the whole writer stops, so the check sees the failure.
                FileHandle.standardError.write(
                    Data("sqltk-test-helper replication-write: thread \(thread): \(error)\n".utf8))
                exit(1)
            }
        }
    }
    // The threads never end: the process ends when it is killed, or at the first error.
    running.wait()
}

/// Writes `line` with one `write(2)`: a line shorter than `PIPE_BUF` reaches a pipe whole or not at all, and lines
/// of several threads never interleave.
func replicationAcknowledge(_ line: String) {
    var bytes = Array(line.utf8)
    bytes.append(10)
    _ = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
}

/// `replication-verify PATH [KEYHEX]`: opens a restored file with the toolkit and prints, one per line,
/// `integrity TEXT` (the rows of `PRAGMA integrity_check`, joined by `; `), `rows COUNT MIN MAX` of `txn`, and
/// `objects NAME...` (what `schemaObjects()` lists). Exits 1 when the file cannot be opened or read.
func replicationVerify(_ arguments: [String]) throws {
    guard (1...2).contains(arguments.count) else { throw UsageError(description: "replication-verify PATH [KEYHEX]") }
    var configuration = replicationConfiguration(arguments, keyIndex: 1)
    configuration.isReadOnly = true
    let db = try Database(path: arguments[0], configuration: configuration)
    defer { db.close() }
    let integrity = try db.query("PRAGMA integrity_check").map { try $0.value(at: 0) as String }
    print("integrity \(integrity.joined(separator: "; "))")
    let rows = try db.query("SELECT count(*), coalesce(min(n), 0), coalesce(max(n), 0) FROM txn")
    guard let row = try rows.next() else { throw UsageError(description: "no row from count(*)") }
    print("rows \(try row.value(at: 0) as Int64) \(try row.value(at: 1) as Int64) \(try row.value(at: 2) as Int64)")
    print("objects \(try db.schemaObjects().map(\.name).joined(separator: " "))")
}

/// `replica-read VFS REPLICA_URL`: loads Litestream's VFS extension from VFS, opens the replica at REPLICA_URL
/// through it with a `LitestreamReplica` (without restoring it) and prints `rows COUNT MIN MAX` of `txn` and `txid
/// HEX` (Litestream's transaction ID of the state read): what the replica holds, read by another path than
/// `litestream restore`. Exits 1 when the replica cannot be read.
func replicaRead(_ arguments: [String]) throws {
    guard arguments.count == 2 else { throw UsageError(description: "replica-read VFS REPLICA_URL") }
    try LitestreamReplica.loadVFS(atPath: arguments[0])
    let replica = try LitestreamReplica(replicaURL: arguments[1])
    defer { replica.close() }
    let (count, low, high, transactionID) = try replica.read { db in
        let rows = try db.query("SELECT count(*), coalesce(min(n), 0), coalesce(max(n), 0) FROM txn")
        guard let row = try rows.next() else { throw UsageError(description: "no row from count(*)") }
        return (
            try row.value(at: 0) as Int64, try row.value(at: 1) as Int64, try row.value(at: 2) as Int64,
            try LitestreamReplica.transactionID(in: db)
        )
    }
    print("rows \(count) \(low) \(high)")
    print("txid \(String(transactionID, radix: 16))")
}

/// `replica-load-again VFS REPLICA_URL (load-extension|configuration)`: the VFS library loaded a second time through
/// the toolkit's own extension loading, after ``LitestreamReplica/loadVFS(atPath:)``; then a plain connection opens.
func replicaLoadAgain(_ arguments: [String]) throws {
    guard arguments.count == 3, ["load-extension", "configuration"].contains(arguments[2]) else {
        throw UsageError(description: "replica-load-again VFS REPLICA_URL (load-extension|configuration)")
    }
    try LitestreamReplica.loadVFS(atPath: arguments[0])
    let replica = try LitestreamReplica(replicaURL: arguments[1])
    defer { replica.close() }
    do {
        if arguments[2] == "load-extension" {
            let db = try Database()
            defer { db.close() }
            try db.loadExtension(atPath: arguments[0], entryPoint: LitestreamReplica.entryPoint)
        } else {
            var configuration = Database.Configuration()
            configuration.extensions = [.library(atPath: arguments[0], entryPoint: LitestreamReplica.entryPoint)]
            let second = try LitestreamReplica(replicaURL: arguments[1], configuration: configuration)
            second.close()
        }
        print("again: ok")
    } catch let error as DatabaseError {
        print("again: refused \(String(describing: error.reason))")
    }
    let other = try Database()
    defer { other.close() }
    _ = try other.queryValue("SELECT 1", as: Int.self)
    print("other: opened")
}
