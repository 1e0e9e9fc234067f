// The cipher's first use, on several threads at once: the test of the one-time set-up SQLite3 Multiple Ciphers
// needs before two connections read encrypted pages together (Tests/SQLiteToolkitTests/CipherFirstUseTests.swift).
// A process of its own, so this is the first encrypted read the process makes, whatever the suites ran before.

import Foundation
import SQLiteToolkit

/// `cipher-first-use PATH CIPHER PASSPHRASE THREADS`: THREADS threads, released together, each open the database at
/// PATH, encrypted with CIPHER (a name `Cipher(named:)` knows) and the passphrase PASSPHRASE, and count its rows; prints
/// "ok THREADS ROWS" when every thread read the same count.
func cipherFirstUse(_ arguments: [String]) throws {
    guard arguments.count == 4, let cipher = Cipher(named: arguments[1]), let threads = Int(arguments[3]),
        (2...64).contains(threads)
    else { throw UsageError(description: "cipher-first-use PATH CIPHER PASSPHRASE THREADS (2...64)") }
    let configuration = {
        var configuration = Database.Configuration()
        configuration.key = .passphrase(arguments[2])
        configuration.cipher = cipher
        return configuration
    }()
    let counts = CountsBox()
    let start = DispatchSemaphore(value: 0)
    let group = DispatchGroup()
    for _ in 0..<threads {
        group.enter()
        Thread {
            defer { group.leave() }
            start.wait()
            let result = Result { () throws -> Int in
                let db = try Database(path: arguments[0], configuration: configuration)
                defer { db.close() }
                return try db.queryValue("SELECT count(*) FROM t", as: Int.self) ?? -1
            }
            counts.append(result)
        }.start()
    }
    for _ in 0..<threads { start.signal() }
    group.wait()
    let results = counts.results
    let rows = try results.map { try $0.get() }
    guard let first = rows.first, rows.allSatisfy({ $0 == first }) else {
        throw UsageError(description: "the threads read different counts: \(rows)")
    }
    print("ok \(threads) \(first)")
}

/// The threads' results, behind a lock.
final class CountsBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Result<Int, any Error>] = []

    func append(_ result: Result<Int, any Error>) {
        lock.lock()
        stored.append(result)
        lock.unlock()
    }

    var results: [Result<Int, any Error>] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
