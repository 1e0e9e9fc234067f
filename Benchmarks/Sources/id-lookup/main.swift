// The rows of 10,000 ids out of 100,000: SQLiteToolkit's `carray()` binding (one parameter), an expanded
// `IN (?, ?, …)` through SQLiteToolkit, and GRDB.swift's `ids.contains(Column("id"))`. Prints the median time of
// each, per round, in milliseconds.
//
//   swift run -c release --package-path Benchmarks id-lookup [lookups] [rounds]
import BenchmarkCore
import Foundation
import GRDBBenchmarks
import ToolkitBenchmarks

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let lookups = arguments.first ?? 30
let rounds = arguments.dropFirst().first ?? 3
let rows = 100_000
var generator = SystemRandomNumberGenerator()
let ids = (0..<10_000).map { _ in Int64.random(in: 1...Int64(rows), using: &generator) }

let toolkit = try ToolkitIDLookup(rows: rows)
let grdb = try GRDBIDLookup(rows: rows)
let expected = try toolkit.carray(ids)
let expanded = try toolkit.expandedIn(ids)
let contains = try grdb.lookup(ids)
guard expanded == expected, contains == expected else {
    print("the three disagree: carray \(expected), IN \(expanded), GRDB \(contains)")
    exit(1)
}

func median(_ body: () throws -> Int) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<lookups {
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try body()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    return percentile(times, 0.5)
}

print("| round | toolkit carray(?) (ms) | toolkit IN (?, …) (ms) | GRDB ids.contains (ms) |")
print("|---|---|---|---|")
for round in 1...rounds {
    let carrayTime = try median { try toolkit.carray(ids) }
    let expandedTime = try median { try toolkit.expandedIn(ids) }
    let containsTime = try median { try grdb.lookup(ids) }
    print(String(format: "| %d | %.2f | %.2f | %.2f |", round, carrayTime, expandedTime, containsTime))
}
toolkit.close()
