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
        #expect(result.error.hasPrefix("Error: no such column: nope (code 1: SQLITE_ERROR)\n"))
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
}
