import Foundation

/// The real SQLCipher builds the interoperability tests compare against, installed by
/// `scripts/install-test-peers` (which `.ci/run` calls before the tests):
/// - SQLCipher 4.12, the Python module `sqlcipher3` of the `sqlcipher3-binary` wheel, in a virtual environment at
///   `$SQLTK_TEST_PEERS_VENV` (default `~/.cache/sqltk-test-peers/venv`);
/// - SQLCipher 3.4.1, the `sqlcipher` command-line shell of the Debian package, on the `PATH`.
enum SQLCipherPeers {
    /// The Python interpreter that can import `sqlcipher3`, or `nil` when it is not installed.
    static let sqlcipher4Python: String? = {
        let environment = ProcessInfo.processInfo.environment
        let venv =
            environment["SQLTK_TEST_PEERS_VENV"]
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/sqltk-test-peers/venv")
            .path
        let python = venv + "/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python),
            (try? run(python, ["-c", "import sqlcipher3"], input: nil)) != nil
        else { return nil }
        return python
    }()

    /// The SQLCipher 3 shell, or `nil` when it is not installed.
    static let sqlcipher3Shell: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = String(directory) + "/sqlcipher"
            if FileManager.default.isExecutableFile(atPath: candidate),
                let version = try? run(candidate, ["-version"], input: nil), version.hasPrefix("3.")
            {
                return candidate
            }
        }
        return nil
    }()

    /// Why a test is skipped, naming what to install.
    static let missingSQLCipher4 =
        "SQLCipher 4 missing: run scripts/install-test-peers (pip package sqlcipher3-binary 0.6.0 in a venv)"
    static let missingSQLCipher3 =
        "SQLCipher 3 missing: run scripts/install-test-peers (Debian package sqlcipher, 3.4.1)"

    /// Runs `statements` in order on the database at `path` with SQLCipher 4 and returns the rows of each, every
    /// value as text. With `copyTo`, copies the file and its `-wal` there before closing (before the checkpoint a
    /// close makes).
    static func sqlcipher4(_ path: String, _ statements: [String], copyTo: String? = nil) throws -> [[[String]]] {
        guard let python = sqlcipher4Python else { throw PeerError(message: missingSQLCipher4) }
        let script = """
            import json, os, shutil, sys
            import sqlcipher3
            path, statements, copy_to = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
            connection = sqlcipher3.connect(path, isolation_level=None)
            results = []
            for sql in statements:
                results.append([[str(value) for value in row] for row in connection.execute(sql).fetchall()])
            if copy_to:
                shutil.copyfile(path, copy_to)
                if os.path.exists(path + "-wal"):
                    shutil.copyfile(path + "-wal", copy_to + "-wal")
            print(json.dumps(results))
            """
        let arguments = String(decoding: try JSONEncoder().encode(statements), as: UTF8.self)
        let output = try run(python, ["-c", script, path, arguments, copyTo ?? ""], input: nil)
        return try JSONDecoder().decode([[[String]]].self, from: Data(output.utf8))
    }

    /// Runs `script` in the SQLCipher 3 shell on the database at `path`; returns its output lines.
    static func sqlcipher3(_ path: String, _ script: String) throws -> [String] {
        guard let shell = sqlcipher3Shell else { throw PeerError(message: missingSQLCipher3) }
        let output = try run(shell, ["-bail", path], input: script)
        return output.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// A peer that failed, with its error output.
    struct PeerError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// Runs `executable` and returns its standard output; throws with its error output when it fails.
    private static func run(_ executable: String, _ arguments: [String], input: String?) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        let standardInput = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = standardInput
        try process.run()
        if let input { standardInput.fileHandleForWriting.write(Data(input.utf8)) }
        try standardInput.fileHandleForWriting.close()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PeerError(
                message: "\(executable) exited with \(process.terminationStatus): "
                    + String(decoding: errorData, as: UTF8.self))
        }
        return String(decoding: outputData, as: UTF8.self)
    }
}
