import Foundation
import SQLiteToolkit

/// `commit-rows PATH N [--pause-ms MS | --on-request]`: commits the rows 1 to N into `item (n)`, one transaction
/// each, from this process: after a pause of MS milliseconds (100 by default) before each, or, with `--on-request`,
/// after reading a line from standard input (the test says when, so that it can wait for each value in turn).
/// Prints "committed I" after each commit and "ok N" at the end.
func commitRows(_ arguments: [String]) throws {
    let usage = UsageError(description: "commit-rows PATH N [--pause-ms MS | --on-request]")
    guard arguments.count >= 2, let count = Int(arguments[1]), count >= 0 else { throw usage }
    var pauseMicroseconds: UInt32 = 100_000
    var onRequest = false
    var options = arguments.dropFirst(2)
    while let option = options.popFirst() {
        switch option {
        case "--pause-ms":
            guard let text = options.popFirst(), let milliseconds = UInt32(text), milliseconds <= 60_000 else {
                throw usage
            }
            pauseMicroseconds = milliseconds * 1000
        case "--on-request":
            onRequest = true
        default:
            throw usage
        }
    }
    let db = try Database(path: arguments[0])
    defer { db.close() }
    for number in stride(from: 1, through: count, by: 1) {
        if onRequest {
            guard readLine() != nil else {
                throw UsageError(description: "commit-rows: input ended before row \(number)")
            }
        } else {
            usleep(pauseMicroseconds)
        }
        try db.execute("INSERT INTO item (n) VALUES (?)", number)
        // Unbuffered, so that a reader sees each line as the commit it follows happens.
        FileHandle.standardOutput.write(Data("committed \(number)\n".utf8))
    }
    print("ok \(count)")
}

/// `apply-changeset PATH FILE`: applies the changeset stored in FILE to the database at PATH, in one transaction,
/// failing on any conflict. Prints "ok".
func applyChangeset(_ arguments: [String]) throws {
    guard arguments.count == 2 else { throw UsageError(description: "apply-changeset PATH FILE") }
    let data = try Data(contentsOf: URL(fileURLWithPath: arguments[1]))
    let db = try Database(path: arguments[0])
    defer { db.close() }
    try db.apply(Changeset(data: data)) { _ in .abort }
    print("ok")
}
