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

    /// The network namespaces of the nodes (node 1 first) when started with `namespaces: true`.
    private(set) var namespaces: [String] = []

    /// Three nodes, each in a network namespace of its own on a bridge (scripts/dqlite-cluster start-netns; root).
    init(namespaces: Bool) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("sqltk-dqlite-\(UUID().uuidString)")
        do {
            let output = try DqliteCluster.script(["start-netns", directory.path])
            addresses = output.split(separator: "\n").map(String.init)
            let names = try String(contentsOf: directory.appendingPathComponent("namespaces"), encoding: .utf8)
            self.namespaces = names.split(separator: "\n").map(String.init)
        } catch {
            stop()
            throw error
        }
    }

    /// Cuts node `index` (0-based) from the others: only a client inside its namespace still reaches it.
    func partition(_ index: Int) throws {
        _ = try DqliteCluster.script(["partition", directory.path, "\(index + 1)"])
    }

    /// Joins node `index` (0-based) to the others again.
    func heal(_ index: Int) throws {
        _ = try DqliteCluster.script(["heal", directory.path, "\(index + 1)"])
    }

    /// Starts the nodes; a second and third time with other ports when a port was taken meanwhile.
    init(nodes: Int = 3) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("sqltk-dqlite-\(UUID().uuidString)")
        var attempt = 1
        while true {
            do {
                let output = try DqliteCluster.script(["start", directory.path, "\(nodes)"])
                addresses = output.split(separator: "\n").map(String.init)
                break
            } catch {
                stop()
                if attempt == 3 { throw error }
                attempt += 1
            }
        }
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

    /// Runs the script and returns what it printed; throws with its error output when it fails.
    ///
    /// Not `Process`: the nodes the script starts in the background inherit a descriptor that `Process` watches, so
    /// waiting through `Process` would last as long as the nodes. Output goes to files for the same reason.
    @discardableResult
    static func script(_ arguments: [String]) throws -> String {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("dqlite-cluster-\(UUID())").path
        let outputPath = base + ".out"
        let errorPath = base + ".err"
        defer {
            unlink(outputPath)
            unlink(errorPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv: [UnsafeMutablePointer<CChar>?] = ([scriptPath] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, scriptPath, &actions, nil, argv, environ)
        guard code == 0 else { throw ScriptFailure(message: "dqlite-cluster did not start: error \(code)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            throw ScriptFailure(
                message: "dqlite-cluster \(arguments.joined(separator: " ")) failed: "
                    + ((try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""))
        }
        return (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }

    struct ScriptFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
