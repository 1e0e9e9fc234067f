import Foundation
import Testing

@testable import BindgenCore

/// Paths and helpers shared by the generator's tests.
enum Fixtures {
    /// The `Fixtures` folder copied into the test bundle: `fixture.h`, `Spec/`, `Golden/`.
    static var directory: URL {
        get throws {
            try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        }
    }

    /// The repository root, found from this file's path (`Generator/Tests/GeneratorTests/Fixtures.swift`): the
    /// generator's package lives in `Generator/`, its inputs and outputs in the repository around it.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The repository's `swift format` configuration, which every generated file is formatted with.
    static var formatConfiguration: String {
        repositoryRoot.appendingPathComponent(Repository.formatConfiguration).path
    }

    /// The clang the generator runs; the Swift toolchain ships one.
    static let clang = ProcessInfo.processInfo.environment["CLANG"] ?? "clang"

    /// The made-up header's model, read through clang as the generator reads the real one.
    static func header() throws -> CHeader {
        try CHeader.read(header: directory.appendingPathComponent("fixture.h").path, clang: clang)
    }

    /// A generator over `fixture.h` and `Fixtures/Spec`.
    static func generator() throws -> Generator {
        try Generator(header: header(), specDirectory: directory.appendingPathComponent("Spec").path)
    }

    /// Runs `body` with a fresh temporary folder, removed afterwards, so tests can run in parallel.
    static func withTemporaryDirectory<Result>(_ body: (URL) throws -> Result) throws -> Result {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("sqltk-generator-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory)
    }

    /// A generator over a header and spec files given as text, written to a temporary folder.
    static func generator(header: String, specs: [String: String]) throws -> Generator {
        try withTemporaryDirectory { directory in
            let headerURL = directory.appendingPathComponent("header.h")
            try Data(header.utf8).write(to: headerURL)
            let specDirectory = directory.appendingPathComponent("Spec")
            try FileManager.default.createDirectory(at: specDirectory, withIntermediateDirectories: true)
            for (name, text) in specs {
                try Data(text.utf8).write(to: specDirectory.appendingPathComponent(name))
            }
            return try Generator(header: headerURL.path, specDirectory: specDirectory.path, clang: clang)
        }
    }
}
