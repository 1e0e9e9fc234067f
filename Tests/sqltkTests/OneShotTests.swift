import Testing

@Suite("sqltk with SQL arguments")
struct OneShotTests {
    static let query = "SELECT 1 AS n, 'a,b' AS s, NULL AS z UNION ALL SELECT 22, 'say \"hi\"', 2.5"

    @Test(
        "each output mode",
        arguments: [
            (
                "table",
                """
                +----+----------+-----+
                | n  |    s     |  z  |
                +----+----------+-----+
                | 1  | a,b      |     |
                | 22 | say "hi" | 2.5 |
                +----+----------+-----+

                """
            ),
            ("csv", "n,s,z\r\n1,\"a,b\",\r\n22,\"say \"\"hi\"\"\",2.5\r\n"),
            ("json", "[{\"n\":1,\"s\":\"a,b\",\"z\":null},\n{\"n\":22,\"s\":\"say \\\"hi\\\"\",\"z\":2.5}]\n"),
            ("line", "    n = 1\n    s = a,b\n    z = \n\n    n = 22\n    s = say \"hi\"\n    z = 2.5\n"),
            ("list", "n|s|z\n1|a,b|\n22|say \"hi\"|2.5\n"),
        ])
    func outputMode(mode: String, expected: String) throws {
        let result = try ShellProcess.run(["--mode", mode, "--header", ":memory:", Self.query])
        #expect(result.status == 0)
        #expect(result.error == "")
        #expect(result.output == expected)
    }

    @Test(
        ".width past 100000 either way is refused, and the widths stay as they were",
        arguments: ["2147483647", "-2147483648", "9223372036854775807", "-9223372036854775808", "100001"])
    func widthTooWide(width: String) throws {
        let result = try ShellProcess.run([
            ":memory:", ".mode column", ".width 3", ".width \(width) 2", "SELECT 1 AS a",
        ])
        #expect(result.status == 1)
        #expect(result.error.contains(".width \(width) is too wide"))
        // The run stops at the failing argument, so the query shows nothing.
        #expect(result.output == "")
        let after = try ShellProcess.run(
            ["-cmd", ".mode column", "-cmd", ".width 3", ":memory:"],
            input: ".width \(width)\nSELECT 1 AS a;\n.width 100000 -100000\n")
        #expect(after.status == 1)
        // Still 3 wide, as the sqlite3 shell prints it after `.width 3`.
        #expect(after.output == "a  \n---\n1  \n")
    }

    @Test("piped output defaults to list mode without headers; NULL shows as --nullvalue")
    func pipedDefaults() throws {
        let result = try ShellProcess.run(["--nullvalue", "(null)", ":memory:", Self.query])
        #expect(result.output == "1|a,b|(null)\n22|say \"hi\"|2.5\n")
    }

    @Test("dot-commands change the mode, headers and NULL text between arguments")
    func dotCommandArguments() throws {
        let result = try ShellProcess.run([
            ":memory:", ".mode csv", ".headers on", ".nullvalue -", "SELECT NULL AS a, 1 AS b", ".headers off",
            ".mode list", ".separator ;", "SELECT 'x', 'y'",
        ])
        #expect(result.status == 0)
        #expect(result.output == "a,b\r\n-,1\r\nx;y\n")
    }

    @Test(
        "exit status",
        arguments: [
            (["SELECT 1"], 0),
            (["SELEC 1"], 1),
            (["SELECT * FROM missing"], 1),
            (["SELECT 1/0, abs(-9223372036854775808)"], 1),
            ([".nonsense"], 1),
            ([".mode sideways"], 1),
            ([".quit", "SELEC"], 0),
        ])
    func exitStatus(arguments: [String], status: Int) throws {
        let result = try ShellProcess.run([":memory:"] + arguments)
        #expect(result.status == Int32(status))
        #expect(result.error.isEmpty == (status == 0))
    }

    @Test("an unknown option is an error (status 1, as in sqlite3)")
    func unknownOption() throws {
        let result = try ShellProcess.run(["--no-such-option", ":memory:", "SELECT 1"])
        #expect(result.status == 1)
        #expect(result.error.contains("--no-such-option"))
    }

    @Test("SQL arguments run in order and stop at the first error")
    func stopsAtFirstError() throws {
        let result = try ShellProcess.run([":memory:", "SELECT 1", "SELEC 2", "SELECT 3"])
        #expect(result.status == 1)
        #expect(result.output == "1\n")
    }

    @Test("an error shows SQLite's message and code, and a caret under the offending token")
    func errorWithCaret() throws {
        let result = try ShellProcess.run([":memory:", "SELECT 1;\nSELECT nope FROM sqlite_schema"])
        #expect(result.status == 1)
        #expect(result.output == "1\n")
        #expect(
            result.error == """
                Error: no such column: nope (code 1: SQLITE_ERROR)
                  SELECT nope FROM sqlite_schema
                         ^--- error here

                """)
    }

    @Test("a runtime error has its code and no caret")
    func runtimeError() throws {
        let result = try ShellProcess.run([
            ":memory:", "CREATE TABLE t (a UNIQUE); INSERT INTO t VALUES (1); INSERT INTO t VALUES (1)",
        ])
        // sqlite3's status after a failing SQL argument: SQLite's primary result code (SQLITE_CONSTRAINT).
        #expect(result.status == 19)
        #expect(result.error == "Error: UNIQUE constraint failed: t.a (code 2067: SQLITE_CONSTRAINT_UNIQUE)\n")
    }

    @Test(".tables, .schema and .indexes list the schema; a full-text table's shadow tables are left out")
    func schemaCommands() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("schema.sqlite")
        let setup = try ShellProcess.run([
            path,
            """
            CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT);
            CREATE INDEX player_name ON player (name);
            CREATE VIEW named AS SELECT name FROM player;
            CREATE VIRTUAL TABLE doc USING fts5(body);
            """,
        ])
        #expect(setup.status == 0)
        #expect(try ShellProcess.run([path, ".tables"]).output == "doc     named   player\n")
        #expect(try ShellProcess.run([path, ".indexes"]).output == "player_name\n")
        #expect(
            try ShellProcess.run([path, ".schema play%"]).output
                == "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT);\n"
                + "CREATE INDEX player_name ON player (name);\n")
    }

    @Test("table mode measures CJK, emoji and combining marks as a terminal draws them; control characters break lines")
    func tableWidths() throws {
        let result = try ShellProcess.run([
            "--mode", "table", "--header", ":memory:",
            "SELECT char(27)||'[1;33m'||'key'||char(27)||'[0m' AS k, '漢字テスト' AS cjk, '😀👍🏽🇫🇷' AS emoji, "
                + "'a'||char(9)||'b'||char(13)||char(10)||'c' AS ctl, 'e'||char(769) AS mark, char(27)||'[2J' AS clear "
                + "UNION ALL SELECT 'x', 'y', 'z', 'w', 'v', 'u'",
        ])
        #expect(result.status == 0)
        #expect(!result.output.contains("\u{1B}"))
        #expect(
            result.output == """
                +-----------+------------+--------+-----------+------+-------+
                |     k     |    cjk     | emoji  |    ctl    | mark | clear |
                +-----------+------------+--------+-----------+------+-------+
                |           | 漢字テスト | 😀👍🏽🇫🇷 | a       b | e\u{301}    |       |
                | [1;33mkey |            |        | c         |      | [2J   |
                | [0m       |            |        |           |      |       |
                +-----------+------------+--------+-----------+------+-------+
                | x         | y          | z      | w         | v    | u     |
                +-----------+------------+--------+-----------+------+-------+

                """)
    }
}
