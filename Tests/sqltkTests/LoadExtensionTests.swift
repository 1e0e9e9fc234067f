import Foundation
import Testing

/// `.load FILE [ENTRY]`: loads an extension through the toolkit's API and answers as the sqlite3 shell does.
@Suite(".load")
struct LoadExtensionTests {
    /// sqlite-vec 0.1.9's `vec0.so` in the test peers' venv (`scripts/install-test-peers`), or `nil`.
    static let sqliteVec: String? = {
        let venv =
            ProcessInfo.processInfo.environment["SQLTK_TEST_PEERS_VENV"]
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/sqltk-test-peers/venv")
            .path
        let lib = URL(fileURLWithPath: venv).appendingPathComponent("lib")
        let pythons = (try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? []
        return pythons.sorted().filter { $0.hasPrefix("python") }
            .map { lib.appendingPathComponent("\($0)/site-packages/sqlite_vec/vec0.so").path }
            .first { FileManager.default.fileExists(atPath: $0) }
    }()

    /// The error lines of a run without their prefix (`Error: `, `Error at line N: `), which the two shells
    /// spell differently.
    static func messages(_ error: String) -> [String] {
        error.split(separator: "\n").map { line in
            guard line.hasPrefix("Error"), let colon = line.firstIndex(of: ":") else { return String(line) }
            return String(line[line.index(after: colon)...].dropFirst())
        }
    }

    @Test(
        ".load answers as sqlite3 does: vec0 loads and answers a k-NN query, and each failure prints SQLite's message",
        .enabled(
            if: sqliteVec != nil && ShellProcess.sqlite3 != nil,
            "sqlite-vec or the sqlite3 shell missing: run scripts/install-test-peers")
    )
    func parity() throws {
        let vec = try #require(Self.sqliteVec)
        let withoutSuffix = String(vec.dropLast(3))
        let script = """
            .load /nonexistent/sqltk-extension
            .load \(vec) sqlite3_no_such_init
            .load /etc/hostname
            .load \(withoutSuffix)
            SELECT vec_version();
            CREATE VIRTUAL TABLE v USING vec0(embedding float[3]);
            INSERT INTO v(rowid, embedding) VALUES (1, '[1,2,3]'), (2, '[0,0,0]'), (3, '[1,1,1]'), (4, '[1,1,2]');
            SELECT rowid, round(distance, 6) FROM v WHERE embedding MATCH '[1,1,1]' AND k = 3 ORDER BY distance;
            SELECT round(vec_distance_l2('[1,2]', '[0,0]'), 6);
            .load \(vec) sqlite3_vec_init

            """
        let ours = try ShellProcess.run([":memory:"], input: script)
        let theirs = try ShellProcess.runSQLite3([":memory:"], input: script)
        #expect(ours.output == "v0.1.9\n3|0.0\n4|1.0\n2|1.732051\n2.236068\n")
        #expect(ours.output == theirs.output)
        #expect(ours.status == 1)
        #expect(theirs.status == 1)
        let expected = [
            "/nonexistent/sqltk-extension.so: cannot open shared object file: No such file or directory",
            "\(vec): undefined symbol: sqlite3_no_such_init",
            "/etc/hostname.so: cannot open shared object file: No such file or directory",
        ]
        #expect(Self.messages(theirs.error) == expected)
        #expect(Self.messages(ours.error) == expected)
    }

    /// The one place sqltk answers otherwise: the sqlite3 shell turns the SQL function on for its connection, sqltk
    /// never does, so SQL read from a file or typed cannot load a library.
    @Test(
        "SELECT load_extension() is refused, before and after a .load",
        .enabled(if: sqliteVec != nil, "sqlite-vec missing: run scripts/install-test-peers")
    )
    func sqlFunctionRefused() throws {
        let vec = try #require(Self.sqliteVec)
        let script = "SELECT load_extension('\(vec)');\n.load \(vec)\nSELECT load_extension('\(vec)');\n"
        let result = try ShellProcess.run([":memory:"], input: script)
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(
            result.error
                == "Error at line 1: not authorized (code 1: SQLITE_ERROR)\n"
                + "Error at line 3: not authorized (code 1: SQLITE_ERROR)\n")
    }

    @Test(".load without a file, or with words after ENTRY, prints its usage and loads nothing")
    func usage() throws {
        for line in [".load", ".load ''", ".load a b c"] {
            let result = try ShellProcess.run([":memory:"], input: "\(line)\nSELECT 2;\n")
            #expect(result.status == 1)
            #expect(result.output == "2\n")
            #expect(result.error == "Error at line 1: usage: .load FILE [ENTRY]\n")
        }
        let bailed = try ShellProcess.run(["-bail", ":memory:"], input: ".load /nonexistent/x\nSELECT 2;\n")
        #expect(bailed.status == 1)
        #expect(bailed.output.isEmpty)
        #expect(bailed.error.contains("/nonexistent/x.so: cannot open shared object file"))
    }
}
