import Foundation
import Testing

@Suite("sqltk reading standard input")
struct StandardInputTests {
    static let script = """
        CREATE TABLE t (a);
        INSERT INTO t VALUES (1),
          (2);
        -- a comment on its own line
        .mode csv
        SELECT a FROM t ORDER BY a;
        SELECT nope;
        SELECT 3;

        """

    @Test("statements over several lines run when complete; an error is reported and the input goes on")
    func goesOnAfterErrors() throws {
        let result = try ShellProcess.run([":memory:"], input: Self.script)
        #expect(result.status == 1)
        #expect(result.output == "1\r\n2\r\n3\r\n")
        #expect(result.error.hasPrefix("Error at line 7: no such column: nope (code 1: SQLITE_ERROR)\n"))
    }

    @Test("--bail stops at the first error")
    func bail() throws {
        let result = try ShellProcess.run(["--bail", ":memory:"], input: Self.script)
        #expect(result.status == 1)
        #expect(result.output == "1\r\n2\r\n")
    }

    @Test("an unfinished statement at the end of the input is still run, and SQLite says what is wrong")
    func unfinishedStatement() throws {
        let result = try ShellProcess.run([":memory:"], input: "SELECT 1;\nSELECT (2\n")
        #expect(result.status == 1)
        #expect(result.output == "1\n")
        #expect(result.error.contains("incomplete input"))
    }

    @Test(".read runs a file's SQL and dot-commands")
    func readFile() throws {
        let folder = try TemporaryFolder()
        let file = folder.path("script.sql")
        try Data("SELECT 'from file';\n.mode json\nSELECT 2 AS two;\n".utf8).write(to: URL(fileURLWithPath: file))
        let result = try ShellProcess.run([":memory:", ".read \(file)"])
        #expect(result.status == 0)
        #expect(result.output == "from file\n[{\"two\":2}]\n")
    }

    /// A script whose errors sit on known lines: a parse error in a statement over lines 3 to 5, a
    /// runtime error (line 7), an unknown dot-command (line 9), a statement after a CRLF line end (line 11).
    static let errorScript =
        "CREATE TABLE t (a UNIQUE);\n\nSELECT 1,\n  nope\n  FROM t;\nINSERT INTO t VALUES (1);\nINSERT INTO t VALUES (1);\n"
        + "-- a comment\n.nonsense\r\nSELECT 2;\r\nSELEC 3;\n"

    @Test("an error in standard input names the line where the failing statement starts, or the dot-command's")
    func errorLines() throws {
        let result = try ShellProcess.run([":memory:"], input: Self.errorScript)
        #expect(result.status == 1)
        #expect(result.output == "2\n")
        let lines = result.error.split(separator: "\n").filter { $0.hasPrefix("Error") }
        #expect(
            lines == [
                "Error at line 3: no such column: nope (code 1: SQLITE_ERROR)",
                "Error at line 7: UNIQUE constraint failed: t.a (code 2067: SQLITE_CONSTRAINT_UNIQUE)",
                "Error at line 9: unknown command .nonsense; enter .help for the list",
                "Error at line 11: near \"SELEC\": syntax error (code 1: SQLITE_ERROR)",
            ])
    }

    @Test("an error in a .read file names the file and its line; .read of a missing file says why")
    func readErrors() throws {
        let folder = try TemporaryFolder()
        let file = folder.path("script.sql")
        try Data(Self.errorScript.utf8).write(to: URL(fileURLWithPath: file))
        let result = try ShellProcess.run(
            [":memory:"], input: "SELECT 0;\n.read \(file)\n.read \(folder.path("nosuch.sql"))\n")
        #expect(result.output == "0\n2\n")
        let lines = result.error.split(separator: "\n").filter { $0.hasPrefix("Error") }
        #expect(lines.first == "Error at line 3 of \(file): no such column: nope (code 1: SQLITE_ERROR)")
        #expect(
            lines.dropFirst(3).first
                == "Error at line 11 of \(file): near \"SELEC\": syntax error (code 1: SQLITE_ERROR)")
        #expect(lines.last == "Error at line 3: cannot read \(folder.path("nosuch.sql")): No such file or directory")
    }

    @Test(
        "error lines agree with the sqlite3 shell's on the same script",
        .enabled(if: ShellProcess.sqlite3 != nil, "needs the sqlite3 shell: scripts/install-test-peers"))
    func linesAgreeWithSQLite3() throws {
        // sqlite3 names the line where the failing statement starts; dot-commands it does not know differ.
        let script = Self.errorScript.replacingOccurrences(of: ".nonsense\r\n", with: "\r\n")
        let ours = try ShellProcess.run([":memory:"], input: script)
        let theirs = try ShellProcess.runSQLite3([":memory:"], input: script)
        func lineNumbers(_ text: String, after marker: String) -> [Int] {
            text.components(separatedBy: marker).dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
        }
        let sqlite3Lines = lineNumbers(theirs.error, after: "near line ")
        #expect(sqlite3Lines.count == 3)
        #expect(lineNumbers(ours.error, after: "Error at line ") == [3, 7, 11])
        #expect(sqlite3Lines == [3, 7, 11])
    }

    @Test("a database that does not open is named in the message")
    func openErrorNamesPath() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("no such folder/db.sqlite")
        let result = try ShellProcess.run([path, "SELECT 1"])
        #expect(result.status == 1)
        #expect(result.error.hasPrefix("Error: cannot open \(path): unable to open database file"))
    }
}
