import Foundation
import Testing

/// Whether Debian's `dqlite-demo` is installed (scripts/install-test-peers installs it).
let dqliteInstalled = ["/usr/bin/dqlite-demo", "/usr/local/bin/dqlite-demo"].contains {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// Three `dqlite-demo` nodes on loopback, run by scripts/dqlite-cluster in a temporary folder, stopped by `stop()`.
final class DqliteCluster {
    let directory: URL
    private(set) var addresses: [String] = []

    init(nodes: Int = 3) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("sqltk-dqlite-\(UUID().uuidString)")
        let output = try DqliteCluster.script(["start", directory.path, "\(nodes)"])
        addresses = output.split(separator: "\n").map(String.init)
        #expect(addresses.count == nodes)
    }

    /// SIGKILLs node `index` (0-based).
    func kill(_ index: Int) throws {
        _ = try DqliteCluster.script(["kill", directory.path, "\(index + 1)"])
    }

    /// Starts node `index` (0-based) again with its data.
    func restart(_ index: Int) throws {
        _ = try DqliteCluster.script(["restart", directory.path, "\(index + 1)"])
    }

    /// Kills every node and removes the data.
    func stop() {
        _ = try? DqliteCluster.script(["stop", directory.path])
        try? FileManager.default.removeItem(at: directory)
    }

    static let scriptPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/dqlite-cluster").path

    /// Runs the script and returns what it printed; throws with its error output when it fails. The output goes
    /// through files, not pipes: the nodes the script starts in the background would keep a pipe open, and
    /// reading it to its end would wait for them.
    @discardableResult
    static func script(_ arguments: [String]) throws -> String {
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("dqlite-cluster-\(UUID()).out")
        let errorURL = outputURL.appendingPathExtension("err")
        FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outputURL)
            try? FileManager.default.removeItem(at: errorURL)
        }
        let output = try FileHandle(forWritingTo: outputURL)
        let errors = try FileHandle(forWritingTo: errorURL)
        defer {
            try? output.close()
            try? errors.close()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: scriptPath)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ScriptFailure(
                message: "dqlite-cluster \(arguments.joined(separator: " ")) failed: "
                    + ((try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""))
        }
        return try String(contentsOf: outputURL, encoding: .utf8)
    }

    struct ScriptFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
