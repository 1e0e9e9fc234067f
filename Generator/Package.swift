// swift-tools-version:6.1
// The code generator of SQLiteToolkit, in a package of its own so that a package depending on SQLiteToolkit never
// sees it among the products (nor resolves or builds it). Run it from the repository root:
//   swift run --package-path Generator sqltk-bindgen [--check]             Sources/SQLiteBindings/Generated
//   swift run --package-path Generator sqltk-bindgen overloads [--check]   the fixed-arity argument overloads
// and test it with `swift test --package-path Generator` (scripts/test runs both packages' tests).
import PackageDescription

let package = Package(
    name: "SQLiteToolkitGenerator",
    products: [
        .executable(name: "sqltk-bindgen", targets: ["sqltk-bindgen"])
    ],
    targets: [
        // Reads the prefixed headers through clang and Spec/, and emits the bindings and the argument overloads.
        .target(name: "BindgenCore"),
        .executableTarget(
            name: "sqltk-bindgen",
            dependencies: ["BindgenCore"]
        ),
        // Depends on the executable so that `swift test` builds it: the command-line tests run it.
        .testTarget(
            name: "GeneratorTests",
            dependencies: ["BindgenCore", "sqltk-bindgen"],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
