// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "SQLiteToolkit",
    // The lowest systems the code supports: Swift concurrency's `async` entry points need macOS 10.15, iOS 13,
    // tvOS 13 and watchOS 6; watchOS 7 matches GRDB 7's minimums. Newer APIs are behind `@available`/`#available`
    // with a fallback (scripts/check-platforms checks it); the README's "Platforms" section lists the same minimums.
    platforms: [.macOS(.v10_15), .iOS(.v13), .tvOS(.v13), .watchOS(.v7), .visionOS(.v1)],
    products: [
        .library(name: "SQLiteToolkit", targets: ["SQLiteToolkit"]),
        .library(name: "SQLiteBindings", targets: ["SQLiteBindings"]),
        // For test targets only: a database per test (a Swift Testing trait), error and content expectations.
        .library(name: "SQLiteToolkitTesting", targets: ["SQLiteToolkitTesting"]),
        // The prefixed C API itself, for code that calls SQLite directly (and the benchmarks' raw C baseline).
        .library(name: "CSQLiteToolkit", targets: ["CSQLiteToolkit"]),
        // A client for dqlite clusters (Raft-replicated SQLite) over its wire protocol, with the toolkit's values.
        .library(name: "SQLiteToolkitCluster", targets: ["SQLiteToolkitCluster"]),
        // The command-line SQL shell, with encryption: `swift run sqltk`.
        .executable(name: "sqltk", targets: ["sqltk"]),
        // `swift package install-sqlite`, run from a package that depends on this one: installs the amalgamation
        // into this package's checkout, the one step before the first build.
        .plugin(name: "InstallSQLite", targets: ["InstallSQLite"]),
    ],
    dependencies: [
        // The pool's read path: atomics below macOS 15 / iOS 18 (Concurrency/AtomicWord.swift says why this package).
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0")
    ],
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
        // Thin typed wrappers over the C API, generated into Generated/ by sqltk-bindgen (the Generator package).
        .target(
            name: "SQLiteBindings",
            dependencies: ["CSQLiteToolkit"]
        ),
        // Declarations of the C library that Swift's Linux, musl and Android modules leave out (the extended
        // attribute calls); a header only, used by SQLiteToolkit's platform code.
        .target(
            name: "SQLiteToolkitSystemShim",
            path: "Sources/SQLiteToolkitSystemShim"
        ),
        // Connections, statements, rows, values, errors, transactions: the layer most users touch.
        .target(
            name: "SQLiteToolkit",
            dependencies: [
                "SQLiteBindings",
                "SQLiteToolkitSystemShim",
                .product(name: "Atomics", package: "swift-atomics"),
            ]
        ),
        // Swift Testing support for the users' test targets. It imports the toolchain's Testing module and has no
        // package dependency: its row diffs are its own, not swift-custom-dump's, because a dependency of a
        // library product is resolved (cloned) by every package that depends on SQLiteToolkit, test target or
        // not, and a diff of rows that knows the SQL, the column names and SQL literals is a few dozen lines.
        .target(
            name: "SQLiteToolkitTesting",
            dependencies: ["SQLiteToolkit"]
        ),
        // The dqlite client: TCP sockets of its own (NodeSocket.swift says why not swift-nio) and the toolkit's
        // values; it never calls SQLite itself (the nodes run their own).
        .target(
            name: "SQLiteToolkitCluster",
            dependencies: ["SQLiteToolkit"]
        ),
        // The command-line SQL shell: uses SQLiteToolkit's public API only, like any program.
        .executableTarget(
            name: "sqltk",
            dependencies: ["SQLiteToolkit"]
        ),
        .plugin(
            name: "InstallSQLite",
            capability: .command(
                intent: .custom(
                    verb: "install-sqlite",
                    description: "Install the pinned, prefixed SQLite amalgamation that SQLiteToolkit builds from"
                ),
                permissions: [
                    .writeToPackageDirectory(
                        reason: "SQLite is installed into sqlite-amalgamation/installed/ of the SQLiteToolkit checkout"),
                    .allowNetworkConnections(
                        scope: .all(),
                        reason: "the first run downloads the pinned, verified SQLite source through pip's index"
                    ),
                ]
            )
        ),
        .testTarget(
            name: "CSQLiteToolkitTests",
            dependencies: ["CSQLiteToolkit"]
        ),
        // The child process of the tests that need several processes (busy handling, locks); subcommands per
        // test. No product, so the package's users never see it; the tests depend on it so it is built first.
        .executableTarget(
            name: "sqltk-test-helper",
            dependencies: ["SQLiteToolkit"],
            path: "Tests/Helpers/sqltk-test-helper"
        ),
        // Writes numbered transactions until it is killed: the crash-safety tests SIGKILL it. Not a product.
        .executableTarget(
            name: "sqltk-crash-writer",
            dependencies: ["SQLiteToolkit"],
            path: "Tests/Helpers/sqltk-crash-writer"
        ),
        .testTarget(
            name: "SQLiteToolkitTests",
            dependencies: [
                "SQLiteToolkit", "SQLiteToolkitSystemShim", "CSQLTKTestExtension", "sqltk-test-helper",
                "sqltk-crash-writer",
            ],
            // Data the tests read from the source tree by #filePath (scripts/make-embeddings writes it), not
            // resources: the package's users never get them.
            exclude: ["Fixtures"]
        ),
        // The fault-injecting VFS of the reliability tests (I/O errors, a full disk, power cuts), a C target under
        // Tests/ that only the fault tests import: test-only, so it may call CSQLiteToolkit directly.
        .target(
            name: "CSQLiteToolkitFaultVFS",
            dependencies: ["CSQLiteToolkit"],
            path: "Tests/FaultVFS"
        ),
        // A tiny SQLite extension compiled in loadable style (through the routines table), for the tests of
        // static registration: test-only, it includes the prefixed sqlite3ext.h that CSQLiteToolkit's fetch installs.
        .target(
            name: "CSQLTKTestExtension",
            dependencies: ["CSQLiteToolkit"],
            path: "Tests/Fixtures/CSQLTKTestExtension"
        ),
        // The fault sweep, the power-cut runs and the regression tests of the faults they found.
        .testTarget(
            name: "SQLiteToolkitFaultTests",
            dependencies: ["SQLiteToolkit", "CSQLiteToolkitFaultVFS"]
        ),
        .testTarget(
            name: "SQLiteToolkitTestingTests",
            dependencies: ["SQLiteToolkitTesting", "SQLiteToolkit"]
        ),
        .testTarget(
            name: "SQLiteBindingsTests",
            dependencies: ["SQLiteBindings"]
        ),
        // Runs three dqlite nodes (scripts/dqlite-cluster, Debian's go-dqlite) and kills and partitions them.
        .testTarget(
            name: "SQLiteToolkitClusterTests",
            dependencies: ["SQLiteToolkitCluster", "SQLiteToolkit"]
        ),
        // Runs the built sqltk executable as a subprocess; the dependency makes `swift build --build-tests` build it.
        .testTarget(
            name: "sqltkTests",
            dependencies: ["sqltk", "SQLiteToolkit"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
