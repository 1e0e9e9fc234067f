import Foundation

/// The real extensions the extension tests load, installed by `scripts/install-test-peers`:
/// - sqlite-vec 0.1.9's `vec0.so`, from the `sqlite-vec` wheel in the virtual environment at
///   `$SQLTK_TEST_PEERS_VENV` (default `~/.cache/sqltk-test-peers/venv`);
/// - Debian's `mod_spatialite.so` (package `libsqlite3-mod-spatialite`), which links the system `libsqlite3`;
/// - the `sqlite3` shell, the oracle that loads the same `vec0.so` with `.load`.
enum ExtensionPeers {
    /// The path of sqlite-vec's `vec0.so`, or `nil` when it is not installed.
    static let sqliteVec: String? = {
        let environment = ProcessInfo.processInfo.environment
        let venv =
            environment["SQLTK_TEST_PEERS_VENV"]
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/sqltk-test-peers/venv")
            .path
        let lib = URL(fileURLWithPath: venv).appendingPathComponent("lib")
        let pythons = (try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? []
        for python in pythons.sorted() where python.hasPrefix("python") {
            for suffix in ["so", "dylib"] {
                let candidate = lib.appendingPathComponent("\(python)/site-packages/sqlite_vec/vec0.\(suffix)").path
                if FileManager.default.fileExists(atPath: candidate) {
                    keepMapped(candidate)
                    return candidate
                }
            }
        }
        return nil
    }()

    /// Opens `library` once more, never to be unloaded (`RTLD_NODELETE`), so that it stays mapped after the last
    /// connection that loaded it closes: the leak checker then names it in a stack, and `Tests/lsan-suppressions.txt`
    /// can set aside sqlite-vec's own leaks (`leak:vec0.so`) without hiding any of the toolkit's.
    private static func keepMapped(_ library: String) {
        #if os(Linux)
            _ = dlopen(library, RTLD_NOW | RTLD_NODELETE)
        #endif
    }

    /// The path of SpatiaLite's `mod_spatialite.so`, or `nil` when it is not installed.
    static let spatialite: String? = {
        let folders = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"]
        return folders.map { $0 + "/mod_spatialite.so" }.first { FileManager.default.fileExists(atPath: $0) }
    }()

    /// The sqlite3 shell, or `nil` when it is not on the `PATH`.
    static let sqlite3Shell: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { String($0) + "/sqlite3" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    static let missingSQLiteVec =
        "sqlite-vec missing: run scripts/install-test-peers (pip package sqlite-vec 0.1.9 in a venv)"
    static let missingSQLiteVecOrShell =
        "sqlite-vec or the sqlite3 shell missing: run scripts/install-test-peers (pip package sqlite-vec 0.1.9, "
        + "Debian package sqlite3)"
    static let missingSpatialite =
        "SpatiaLite missing: run scripts/install-test-peers (Debian package libsqlite3-mod-spatialite)"

    /// Runs the sqlite3 shell on an in-memory database with `script` on its standard input and returns its
    /// standard output; throws with its error output when it fails.
    static func runShell(_ script: String) throws -> String {
        guard let shell = sqlite3Shell else { throw SQLCipherPeers.PeerError(message: "no sqlite3 shell") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shell)
        process.arguments = ["-batch", "-bail", ":memory:"]
        let output = Pipe()
        let errors = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        try process.run()
        // The script is written from another thread: a large one would fill the pipe while the shell's output
        // fills the other.
        let writer = Thread { [script] in
            input.fileHandleForWriting.write(Data(script.utf8))
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SQLCipherPeers.PeerError(
                message: "sqlite3 exited with \(process.terminationStatus): "
                    + String(decoding: errorData, as: UTF8.self))
        }
        return String(decoding: outputData, as: UTF8.self)
    }
}
