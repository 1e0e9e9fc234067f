// swift-tools-version:6.0
// Measures CSV readers on one file: sqltk's own (Sources/sqltk/CSVReader.swift and the RawText.swift it uses,
// linked here) beside the two CSV packages on the local mirror, for the decision in docs/sqltk.md
// ("Dependencies"). Not built by CI.
//   swift run -c release --package-path Benchmarks/CSVReaders csv-readers FILE.csv
import PackageDescription

let package = Package(
    name: "CSVReaders",
    dependencies: [
        .package(url: "https://github.com/yaslab/CSV.swift", exact: "2.5.2"),
        .package(url: "https://github.com/swiftcsv/SwiftCSV", exact: "0.10.0"),
    ],
    targets: [
        .target(name: "YaslabCSVReading", dependencies: [.product(name: "CSV", package: "CSV.swift")]),
        .executableTarget(
            name: "csv-readers",
            dependencies: ["YaslabCSVReading", .product(name: "SwiftCSV", package: "SwiftCSV")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
