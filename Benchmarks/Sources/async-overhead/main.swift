// What an async access costs over the blocking one, in time, for a DatabaseQueue (`queue-read`: one point lookup per
// access, in memory) and a DatabasePool (`pool-read`: 20 point lookups per access, WAL file). The blocking and the
// async accesses of a pair read one database, prepared once; each round times one batch of blocking accesses and one
// batch of async accesses, one right after the other (which goes first alternates), and takes their difference per
// access. On a machine
// shared with other jobs, a change in load then falls on both halves of a round, where separate runs minutes apart
// (`sqltk-bench --filter queue-read`) see different loads. Prints each pair's median round and the quartiles of the
// differences. With `--control`, both halves of each round run the blocking accesses: the spread of those
// differences around zero is the measurement's noise on the machine at that time.
//
//   swift run -c release --package-path Benchmarks async-overhead [--control] [rounds] [accesses per batch]
import BenchmarkCore
import Foundation
import ToolkitBenchmarks

let isControl = CommandLine.arguments.contains("--control")
let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let rounds = max(1, arguments.first ?? 21)
let accesses = max(1, arguments.dropFirst().first ?? 10_000)
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("async-overhead-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

/// The seconds `body` takes.
func seconds(_ body: () throws -> Int64) throws -> (Double, Int64) {
    let clock = ContinuousClock()
    let start = clock.now
    let result = try body()
    let (whole, attoseconds) = (clock.now - start).components
    return (Double(whole) + Double(attoseconds) / 1e18, result)
}

let implementation = ToolkitImplementation()
let pairs: [(name: String, usesPool: Bool, storage: Storage)] = [
    ("queue, 1 lookup per access (memory)", false, .memory),
    ("pool, 20 lookups per access (WAL file)", true, .wal),
]
var size = WorkloadSize.full
size.lookups = accesses
print(
    "\(rounds) rounds of \(accesses) blocking and \(accesses) \(isControl ? "blocking (control)" : "async") accesses "
        + "each, alternating; µs per access")
print("")
print("| access | blocking, median | async, median | async − blocking: median | 25th pct | 75th pct |")
print("|---|---|---|---|---|---|")
for (index, pair) in pairs.enumerated() {
    let path = pair.storage == .memory ? ":memory:" : folder.appendingPathComponent("\(index).sqlite").path
    let (blocking, asyncRun) = try implementation.prepareReadAccessPair(
        pool: pair.usesPool, size: size, location: DatabaseLocation(storage: pair.storage, path: path))
    let async = isControl ? blocking : asyncRun
    defer { blocking.close() }
    // A warm-up batch each; the two must have read the same rows.
    let (_, expected) = try seconds(blocking.body)
    let (_, checksum) = try seconds(async.body)
    guard try blocking.verify(expected) == async.verify(checksum) else {
        throw BenchmarkError("\(pair.name): the blocking and async accesses read different sums")
    }
    var blockingTimes: [Double] = []
    var asyncTimes: [Double] = []
    var differences: [Double] = []
    for round in 0..<rounds {
        let order = round % 2 == 0 ? [blocking, async] : [async, blocking]
        let first = try seconds(order[0].body).0
        let second = try seconds(order[1].body).0
        let (blockingTime, asyncTime) = round % 2 == 0 ? (first, second) : (second, first)
        blockingTimes.append(blockingTime / Double(accesses) * 1e6)
        asyncTimes.append(asyncTime / Double(accesses) * 1e6)
        differences.append((asyncTime - blockingTime) / Double(accesses) * 1e6)
    }
    func format(_ value: Double) -> String { String(format: "%.2f", value) }
    print(
        "| \(pair.name) | \(format(percentile(blockingTimes, 0.5))) | \(format(percentile(asyncTimes, 0.5))) | "
            + "\(format(percentile(differences, 0.5))) | \(format(percentile(differences, 0.25))) | "
            + "\(format(percentile(differences, 0.75))) |")
}
