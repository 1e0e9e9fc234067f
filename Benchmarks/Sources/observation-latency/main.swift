// The latency of an observed query on a pool, SQLiteToolkit beside GRDB.swift's ValueObservation: each write sets a
// one-row counter and waits for the observed value it wrote. Prints, per library, the median and the 99th
// percentile of the time from the start of the write access to the value's arrival, and of the write alone.
//
//   swift run -c release --package-path Benchmarks observation-latency [writes] [rounds]
import BenchmarkCore
import Foundation
import GRDBBenchmarks
import ToolkitBenchmarks

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let writes = arguments.first ?? 2000
let rounds = arguments.dropFirst().first ?? 3
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("observation-latency-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

func microseconds(_ seconds: Double) -> String { String(format: "%.1f", seconds * 1e6) }

print("| library | round | write → value, median (µs) | p99 (µs) | write alone, median (µs) | p99 (µs) |")
print("|---|---|---|---|---|---|")
for round in 1...rounds {
    // The two alternate within a round, so that a change in the machine's load falls on both.
    let subjects: [(String, () throws -> any ObservationLatencySubject)] = [
        (
            "SQLiteToolkit",
            { try ToolkitObservationLatency(path: folder.appendingPathComponent("toolkit-\(round).sqlite").path) }
        ),
        (
            "GRDB 7.10.0",
            { try GRDBObservationLatency(path: folder.appendingPathComponent("grdb-\(round).sqlite").path) }
        ),
    ]
    for (name, make) in subjects {
        let run = try measureObservationLatency(try make(), writes: writes)
        print(
            "| \(name) | \(round) | \(microseconds(percentile(run.writeToValue, 0.5))) | "
                + "\(microseconds(percentile(run.writeToValue, 0.99))) | \(microseconds(percentile(run.writeAlone, 0.5))) | "
                + "\(microseconds(percentile(run.writeAlone, 0.99))) |")
    }
}
