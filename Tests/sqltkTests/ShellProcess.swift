import Foundation
import Testing

/// The built `sqltk` executable, run as a subprocess the way a person runs it.
enum ShellProcess {
    /// What a run printed and how it ended.
    struct Result {
        var status: Int32
        var output: String
        var error: String
    }

    /// The executable beside the test bundle (the test target depends on `sqltk`, so the build makes it).
    static let executable: URL? = {
        var candidates: [URL] = [Bundle.main.bundleURL, Bundle.main.executableURL].compactMap { $0 }
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: path))
        }
        for candidate in candidates {
            var folder = candidate.deletingLastPathComponent()
            for _ in 0..<4 {
                let file = folder.appendingPathComponent("sqltk")
                if FileManager.default.isExecutableFile(atPath: file.path) { return file }
                folder = folder.deletingLastPathComponent()
            }
        }
        return nil
    }()

    /// The sqlite3 shell, which the round-trip tests compare against, or `nil` when it is not installed
    /// (`scripts/install-test-peers` installs it).
    static let sqlite3: URL? = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3", "/opt/homebrew/bin/sqlite3"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }.map { URL(fileURLWithPath: $0) }

    /// Runs `sqltk` with `arguments`, feeding it `input` on standard input (not a terminal).
    static func run(_ arguments: [String], input: String = "") throws -> Result {
        let executable = try #require(executable, "the sqltk executable was not built beside the tests")
        return try run(executable, arguments, input: Data(input.utf8))
    }

    /// Runs the sqlite3 shell with `arguments`, feeding it `input` on standard input.
    static func runSQLite3(_ arguments: [String], input: String = "") throws -> Result {
        let executable = try #require(sqlite3, "the sqlite3 shell is not installed")
        return try run(executable, arguments, input: Data(input.utf8))
    }

    /// Runs `executable` with `arguments`, feeding it `input` on standard input (not a terminal), in `directory`
    /// (the test process's own when `nil`).
    static func run(_ executable: URL, _ arguments: [String], input: Data, directory: URL? = nil) throws -> Result {
        let raw = try runRaw(executable, arguments, input: input, directory: directory)
        return Result(
            status: raw.status, output: String(decoding: raw.output, as: UTF8.self),
            error: String(decoding: raw.error, as: UTF8.self))
    }

    /// ``run(_:_:input:directory:)`` giving the output streams as bytes, for tests of bytes that are not UTF-8.
    static func runRaw(
        _ executable: URL, _ arguments: [String], input: Data, directory: URL? = nil
    ) throws -> (status: Int32, output: Data, error: Data) {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }  // the files must outlive the process
        let inputFile = folder.url.appendingPathComponent("stdin")
        let outputFile = folder.url.appendingPathComponent("stdout")
        let errorFile = folder.url.appendingPathComponent("stderr")
        try input.write(to: inputFile)
        try Data().write(to: outputFile)
        try Data().write(to: errorFile)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = try FileHandle(forReadingFrom: inputFile)
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, try Data(contentsOf: outputFile), try Data(contentsOf: errorFile))
    }
}

/// The shell a round-trip test exports, dumps, imports or loads with.
enum SQLShell {
    case sqltk
    case sqlite3

    /// Runs the shell with `arguments`, feeding it `input` on standard input.
    func run(_ arguments: [String], input: String = "") throws -> ShellProcess.Result {
        switch self {
        case .sqltk: return try ShellProcess.run(arguments, input: input)
        case .sqlite3: return try ShellProcess.runSQLite3(arguments, input: input)
        }
    }
}

/// A unique temporary folder, removed when released.
final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("sqltk-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The path of `name` in the folder.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}
