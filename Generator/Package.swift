// swift-tools-version:6.1
// The code generator of SQLiteToolkit, in a package of its own so that a package depending on SQLiteToolkit never
// sees it among the products (nor resolves or builds it). Run it from the repository root:
//   swift run --package-path Generator sqltk-bindgen [--check]             Sources/SQLiteBindings/Generated
// and test it with `swift test --package-path Generator` (scripts/test runs both packages' tests).
import PackageDescription

let package = Package(
    name: "SQLiteToolkitGenerator",
    products: [
        .executable(name: "sqltk-bindgen", targets: ["sqltk-bindgen"])
    ],
    targets: [
        // Reads the prefixed headers through clang and Spec/, and emits the bindings.
        .target(name: "BindgenCore"),
        .executableTarget(
            name: "sqltk-bindgen",
            dependencies: ["BindgenCore"]
        ),
        .testTarget(
            name: "GeneratorTests",
            dependencies: ["BindgenCore"],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
