// swift-tools-version:6.1
import Foundation
import PackageDescription

// SQLiteToolkit against raw C and against GRDB.swift, in one binary. A package of its own, so that the library's
// users never resolve GRDB.
//
// Every implementation of the workloads lives in its own target, so no Swift file imports two SQLite modules:
// linking GRDB's system SQLite and our prefixed amalgamation into one executable is itself a check of the
// `sqltk_` prefix.

// A path dependency's identity is the name of its folder, which depends on where the repository was cloned.
let rootPackage = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "SQLiteToolkitBenchmarks",
    dependencies: [
        .package(path: ".."),
        // On Linux, GRDB links the system SQLite (Debian: apt-get install libsqlite3-dev).
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        // Workloads, timing, statistics and output; imports no SQLite module.
        .target(name: "BenchmarkCore"),
        // The raw C baseline, written once over a protocol of the C calls it makes; imports no SQLite module.
        .target(name: "CBaseline", dependencies: ["BenchmarkCore"]),
        // The baseline on SQLiteToolkit's amalgamation: the implementation every ratio divides by.
        .target(
            name: "RawCBenchmarks",
            dependencies: ["BenchmarkCore", "CBaseline", .product(name: "CSQLiteToolkit", package: rootPackage)]
        ),
        // SQLiteToolkit's public API, as an application would use it.
        .target(
            name: "ToolkitBenchmarks",
            dependencies: ["BenchmarkCore", .product(name: "SQLiteToolkit", package: rootPackage)]
        ),
        // The generated wrappers of SQLiteBindings, for the bind/step/column/reset micro-benchmark.
        .target(
            name: "BindingsBenchmarks",
            dependencies: ["BenchmarkCore", .product(name: "SQLiteBindings", package: rootPackage)]
        ),
        // GRDB.swift 7.10 on the system SQLite.
        .target(
            name: "GRDBBenchmarks",
            dependencies: ["BenchmarkCore", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // The baseline on the system SQLite (GRDB's GRDBSQLite module): separates the SQLite build from the wrapper.
        .target(
            name: "SystemCBenchmarks",
            dependencies: ["BenchmarkCore", "CBaseline", .product(name: "GRDBSQLite", package: "GRDB.swift")]
        ),
        .executableTarget(
            name: "sqltk-bench",
            dependencies: [
                "BenchmarkCore", "RawCBenchmarks", "ToolkitBenchmarks", "BindingsBenchmarks", "GRDBBenchmarks",
                "SystemCBenchmarks",
            ]
        ),
        // The latency of an observed query on a pool, the toolkit beside GRDB's ValueObservation.
        .executableTarget(
            name: "observation-latency",
            dependencies: ["BenchmarkCore", "ToolkitBenchmarks", "GRDBBenchmarks"]
        ),
        // The latency of an observed query when another process commits: inotify beside polling.
        .executableTarget(
            name: "observation-latency-external",
            dependencies: [.product(name: "SQLiteToolkit", package: rootPackage)]
        ),
        .executableTarget(
            name: "async-overhead",
            dependencies: ["BenchmarkCore", "ToolkitBenchmarks"]
        ),
        // The 10 nearest of 100,000 vectors: the Swift distance function beside sqlite-vec, and Python beside.
        .executableTarget(
            name: "vector-search",
            dependencies: ["ToolkitBenchmarks", .product(name: "SQLiteToolkit", package: rootPackage)]
        ),
        // 10,000 ids out of 100,000 rows: carray() beside IN (?, ?, …) and GRDB's ids.contains.
        .executableTarget(
            name: "id-lookup",
            dependencies: ["BenchmarkCore", "ToolkitBenchmarks", "GRDBBenchmarks"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
