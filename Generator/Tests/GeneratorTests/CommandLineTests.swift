import Foundation
import Testing

@testable import BindgenCore

/// Runs the built `sqltk-bindgen`, the executable target the test target depends on, in a folder laid out as a
/// repository (`Generator/Spec`, `sqlite-amalgamation`, `.swift-format`), so its default paths point there.
enum BindgenProcess {
    /// `sqltk-bindgen` beside the test binary (SwiftPM puts every product of a build in one folder).
    static func executable() throws -> URL {
        var folders = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            folders.append(bundle.bundleURL.deletingLastPathComponent())
        }
        let found = folders.map { $0.appendingPathComponent("sqltk-bindgen") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
        return try #require(found, "sqltk-bindgen not found beside the tests in \(folders.map(\.path))")
    }

    /// Runs `sqltk-bindgen arguments` in `directory`; returns its exit status and standard error.
    static func run(_ arguments: [String], in directory: URL) throws -> (status: Int32, errors: String) {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A temporary folder with the layout the generator recognises as a repository root, and the repository's
    /// `.swift-format`.
    static func withRepository<Result>(_ body: (URL) throws -> Result) throws -> Result {
        try Fixtures.withTemporaryDirectory { root in
            for folder in ["Generator/Spec", "sqlite-amalgamation"] {
                try FileManager.default.createDirectory(
                    at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
            }
            try FileManager.default.copyItem(
                atPath: Fixtures.formatConfiguration, toPath: root.appendingPathComponent(".swift-format").path)
            return try body(root)
        }
    }
}

@Suite("The sqltk-bindgen command line")
struct CommandLineTests {
    static let overloadFiles = [
        ArgumentOverloads.statementFile, ArgumentOverloads.databaseFile, ArgumentOverloads.callsFile,
    ]

    @Test("overloads --check fails naming each stale file, and passes once overloads has written them")
    func overloadsCheck() throws {
        try BindgenProcess.withRepository { root in
            let missing = try BindgenProcess.run(["overloads", "--check"], in: root)
            #expect(missing.status == 1)
            for path in Self.overloadFiles { #expect(missing.errors.contains(path), "\(path) not named") }

            // Written from inside Generator/: the files land in the repository around it.
            let write = try BindgenProcess.run(["overloads"], in: root.appendingPathComponent("Generator"))
            #expect(write.status == 0, "\(write.errors)")
            for path in Self.overloadFiles {
                #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path))
            }
            #expect(try BindgenProcess.run(["overloads", "--check"], in: root).status == 0)

            let edited = root.appendingPathComponent(ArgumentOverloads.callsFile)
            try Data("// edited by hand\n".utf8).write(to: edited)
            let stale = try BindgenProcess.run(["overloads", "--check"], in: root)
            #expect(stale.status == 1)
            #expect(stale.errors.contains("stale: \(ArgumentOverloads.callsFile);"))
            #expect(!stale.errors.contains(ArgumentOverloads.statementFile))
            #expect(stale.errors.contains("swift run --package-path Generator sqltk-bindgen overloads"))
            #expect(try String(contentsOf: edited, encoding: .utf8) == "// edited by hand\n", "--check rewrote it")
        }
    }

    @Test("outside any repository the generator stops and says where it looked")
    func outsideRepository() throws {
        try Fixtures.withTemporaryDirectory { directory in
            let result = try BindgenProcess.run(["overloads", "--check"], in: directory)
            #expect(result.status == 1)
            #expect(result.errors.contains("no repository root"))
        }
    }

    @Test("an option the overloads do not take is a usage error naming it")
    func overloadsUsage() throws {
        try BindgenProcess.withRepository { root in
            let result = try BindgenProcess.run(["overloads", "--coverage"], in: root)
            #expect(result.status == 2)
            #expect(result.errors.contains("unknown argument --coverage for overloads"))
        }
    }
}
