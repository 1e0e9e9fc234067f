// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "SQLiteToolkit",
    targets: [
        // SQLite3 Multiple Ciphers with every exported name prefixed `sqltk_`.
        // `sqlite-amalgamation/fetch` installs the amalgamation; the build stops with
        // a clear #error when it is missing.
        .target(
            name: "CSQLiteToolkit",
            path: "sqlite-amalgamation",
            sources: ["sqltk_amalgamation.c"],
            publicHeadersPath: "include",
            linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]
        ),
        .testTarget(
            name: "CSQLiteToolkitTests",
            dependencies: ["CSQLiteToolkit"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
