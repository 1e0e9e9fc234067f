import BenchmarkCore
import BindingsBenchmarks
import Foundation
import GRDBBenchmarks
import RawCBenchmarks
import SystemCBenchmarks
import ToolkitBenchmarks

// sqltk-bench: SQLiteToolkit against raw C and GRDB.swift. See Benchmarks/README.md.

// The first implementation is the baseline every ratio divides by.
let implementations: [any BenchmarkImplementation] = [
    RawCImplementation(),
    ToolkitImplementation(),
    GRDBImplementation(),
    SystemCImplementation(),
    BindingsImplementation(),
]

do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    let harness = Harness(implementations: implementations, options: options)
    exit(try harness.run())
} catch {
    FileHandle.standardError.write(Data("sqltk-bench: \(error)\n".utf8))
    exit(2)
}
