// swift-tools-version:6.1
// libFuzzer targets for SQLiteToolkit, in a package of their own so the library's Package.swift never carries the
// sanitizer flags. Build and run them with Fuzz/run (see docs/Reliability.md): a plain `swift build` here does not
// link, because the targets hand their `main` to libFuzzer, which only -sanitize=fuzzer links in.
import PackageDescription

let package = Package(
    name: "SQLiteToolkitFuzz",
    dependencies: [.package(name: "SQLiteToolkit", path: "..")],
    targets: [
        // What both targets share: the connection every input runs on and the typed reads of a column.
        .target(
            name: "FuzzSupport",
            dependencies: [.product(name: "SQLiteToolkit", package: "SQLiteToolkit")]
        ),
        // libFuzzer's driver entry, called from each target's `<Target>_main`.
        .target(name: "CFuzzerDriver"),
        // SQL text plus arguments through prepare, bind, step and every typed column read.
        .executableTarget(name: "FuzzSQL", dependencies: ["FuzzSupport", "CFuzzerDriver"]),
        // Random stored values (every storage class, invalid UTF-8, date-shaped text) read as every type.
        .executableTarget(name: "FuzzTypedReads", dependencies: ["FuzzSupport", "CFuzzerDriver"]),
        // Random values into custom functions: typed, variadic, low-level, aggregates and window functions.
        .executableTarget(name: "FuzzFunctions", dependencies: ["FuzzSupport", "CFuzzerDriver"]),
        // Random text through Swift and wrapper FTS5 tokenizers, MATCH queries, highlight() and snippet().
        .executableTarget(name: "FuzzFTS5", dependencies: ["FuzzSupport", "CFuzzerDriver"]),
        // sqltk's CSV import: Sources/sqltk/CSVReader.swift, CSVImport.swift and RawText.swift, compiled here
        // through links.
        .executableTarget(
            name: "FuzzCSVImport",
            dependencies: [
                "FuzzSupport", "CFuzzerDriver", .product(name: "SQLiteToolkit", package: "SQLiteToolkit"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
