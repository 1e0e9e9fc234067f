import Foundation
import Testing

/// One command line and standard input, given to both shells in the same folder.
struct ParityCase: CustomTestStringConvertible, Sendable {
    var name: String
    /// The arguments; `DB` stands for `db.sqlite` in the folder.
    var arguments: [String]
    var input = ""
    /// SQL the sqlite3 shell runs on `db.sqlite` before each shell's run (a fresh copy for each).
    var setup: String?
    /// Files written into the folder before each run, by name.
    var files: [String: String] = [:]

    var testDescription: String { name }
}

/// The version of the sqlite3 shell the tests found (`3.40.1`), or `nil` without one.
let sqlite3Version: String? = {
    guard let sqlite3 = ShellProcess.sqlite3,
        let result = try? ShellProcess.run(sqlite3, ["-version"], input: Data())
    else { return nil }
    return result.output.split(separator: " ").first.map(String.init)
}()

/// The same command line and script given to sqltk and to the sqlite3 shell: standard output byte for byte and the
/// exit status must be alike. The reference is sqlite3 3.40, Debian 12's, which `.ci/run` installs; other versions
/// (macOS's own sqlite3 is newer) write some modes differently, so the suite runs only against 3.40.
/// docs/sqltk.md lists what deliberately differs.
@Suite(
    "sqltk against the sqlite3 shell",
    .enabled(
        if: sqlite3Version?.hasPrefix("3.40.") == true,
        "needs the sqlite3 shell 3.40 (Debian 12's), the reference of these comparisons: scripts/install-test-peers"))
struct SQLite3ParityTests {
    /// Every storage class, a quote, a line break, a tab, an empty text, a non-ASCII letter and a long text.
    static let query = """
        SELECT 1 AS a, 'hello' AS bb, NULL AS c, 2.5 AS d, x'41' AS e
        UNION ALL SELECT 22, 'x''y', 'line1
        line2', 1e20, 'tab\there'
        UNION ALL SELECT -3, '', 'café', 0.1, 'a "quoted" word'
        """

    static let modes = [
        "box", "column", "markdown", "table", "quote", "tabs", "html", "ascii", "csv", "line", "list", "json",
    ]

    static let people = "name,age\nAda,36\n\"Lovelace, A\",\"3\"\"6\"\n"

    static let cases: [ParityCase] =
        modes.flatMap { mode in
            [
                ParityCase(name: "-\(mode) -header", arguments: ["-\(mode)", "-header", ":memory:", query]),
                ParityCase(name: "-\(mode)", arguments: ["-\(mode)", ":memory:", query]),
                ParityCase(name: ".mode \(mode)", arguments: [":memory:"], input: ".mode \(mode)\n\(query);\n"),
            ]
        } + [
            ParityCase(
                name: "-header creates the file and runs the SQL", arguments: ["-header", "DB", "CREATE TABLE q(x)"]),
            ParityCase(name: "-noheader after -header", arguments: ["-header", "-noheader", ":memory:", query]),
            ParityCase(name: "options after the database", arguments: [":memory:", "-csv", "-header", query]),
            ParityCase(name: "--header with two dashes", arguments: ["--header", "--csv", ":memory:", query]),
            ParityCase(
                name: "-separator and -newline",
                arguments: ["-separator", ";", "-newline", "\\n--\\n", ":memory:", query]),
            ParityCase(name: "-nullvalue", arguments: ["-nullvalue", "(null)", ":memory:", query]),
            ParityCase(name: "-box -nullvalue", arguments: ["-box", "-nullvalue", "(null)", ":memory:", query]),
            ParityCase(name: "-csv -nullvalue", arguments: ["-csv", "-nullvalue", "NULL", ":memory:", query]),
            ParityCase(
                name: "an empty result prints nothing, headers or not",
                arguments: [
                    "-header", "-box", ":memory:", "CREATE TABLE t (a)", "SELECT * FROM t", ".mode list",
                    "SELECT * FROM t", ".mode json", "SELECT * FROM t",
                ]),
            ParityCase(name: "-csv -separator", arguments: ["-csv", "-separator", ";", ":memory:", query]),
            ParityCase(
                name: "-cmd runs before the SQL",
                arguments: ["-cmd", ".mode csv", "-cmd", "SELECT 0", ":memory:", query]),
            ParityCase(
                name: "-cmd runs before standard input", arguments: ["-cmd", ".headers on", ":memory:"],
                input: "SELECT 1 AS one;\n"),
            ParityCase(
                name: "-init reads a file first", arguments: ["-init", "init.sql", ":memory:", "SELECT 2 AS two"],
                files: ["init.sql": ".headers on\n.mode csv\n"]),
            ParityCase(name: "-batch", arguments: ["-batch", ":memory:"], input: "SELECT 1;\nSELECT 2;\n"),
            ParityCase(
                name: "-bail stops at the first error", arguments: ["-bail", ":memory:"],
                input: "SELECT 1;\nSELEC 2;\nSELECT 3;\n"),
            ParityCase(
                name: "without -bail the input goes on, status 1", arguments: [":memory:"],
                input: "SELECT 1;\nSELEC 2;\nSELECT 3;\n"),
            ParityCase(
                name: ".bail on", arguments: [":memory:"], input: ".bail on\nSELECT 1;\nSELEC 2;\nSELECT 3;\n"),
            ParityCase(
                name: "-echo", arguments: ["-echo", ":memory:"],
                input: "SELECT 1;\n.print hi\n  SELECT\n2; SELECT 3;\n"),
            ParityCase(
                name: "-readonly refuses a write", arguments: ["-readonly", "DB", "INSERT INTO t VALUES (1)"],
                setup: "CREATE TABLE t (a);"),
            ParityCase(
                name: "-readonly reads", arguments: ["-readonly", "DB", "SELECT count(*) FROM t"],
                setup: "CREATE TABLE t (a); INSERT INTO t VALUES (1);"),
            ParityCase(name: "an unknown option", arguments: ["-no-such-option", ":memory:", "SELECT 1"]),
            ParityCase(name: "a missing option value", arguments: [":memory:", "-separator"]),
            ParityCase(
                name: "an unknown dot-command in a script goes on, status 1", arguments: [":memory:"],
                input: "SELECT 1;\n.nonsense\nSELECT 3;\n"),
            ParityCase(
                name: "an unknown dot-command under -bail stops", arguments: ["-bail", ":memory:"],
                input: "SELECT 1;\n.nonsense\nSELECT 3;\n"),
            ParityCase(
                name: "an unknown dot-command as an argument", arguments: [":memory:", ".nonsense", "SELECT 1"]),
        ] + dotCommandCases + importCases

    static let dotCommandCases: [ParityCase] = [
        ParityCase(
            name: ".width and .mode column wrapping", arguments: [":memory:"],
            input: """
                .mode column
                .width 5 -3
                SELECT 'abcdefghijkl' AS x, 22 AS y, 'z' AS z;
                .width
                SELECT printf('%.70c', 'x') AS long, 'ab' AS n;
                .show

                """),
        ParityCase(
            name: ".mode box, table, markdown with .width", arguments: [":memory:"],
            input: ".width -6 3\n.mode box\n\(query);\n.mode table\n\(query);\n.mode markdown\n\(query);\n"),
        ParityCase(
            name: ".mode insert TABLE, with and without headers", arguments: [":memory:"],
            input: ".mode insert t1\n\(query);\n.headers on\n.mode insert 'my table'\n\(query);\n.mode\n"),
        ParityCase(
            name: ".mode with no argument, .headers, .nullvalue, .separator", arguments: [":memory:"],
            input: """
                .mode
                .mode box
                .mode
                .mode tabs
                .mode
                .headers on
                .nullvalue NULL
                .separator ; @
                \(query);
                .show

                """),
        ParityCase(
            name: ".output and .once", arguments: [":memory:"],
            input: """
                .output out.txt
                SELECT 1;
                .print to the file
                .output
                SELECT 2;
                .once once.txt
                SELECT 3;
                SELECT 4;
                .shell cat out.txt once.txt

                """),
        ParityCase(
            name: ".open, .databases", arguments: [":memory:"],
            input: """
                .databases
                .open other.db
                CREATE TABLE t (a);
                INSERT INTO t VALUES (7);
                .databases
                .open
                .databases
                .open other.db
                SELECT * FROM t;
                .open --new other.db
                SELECT count(*) FROM sqlite_schema;

                """),
        ParityCase(
            name: ".open --readonly", arguments: [":memory:"],
            input: ".open --readonly DB\n.databases\nSELECT count(*) FROM t;\nINSERT INTO t VALUES (1);\n",
            setup: "CREATE TABLE t (a);"),
        ParityCase(
            name: ".backup and .restore", arguments: ["DB"],
            input: """
                CREATE TABLE t (a);
                INSERT INTO t VALUES (1), (2);
                .backup copy.db
                DELETE FROM t;
                SELECT count(*) FROM t;
                .restore copy.db
                SELECT count(*) FROM t;

                """),
        ParityCase(
            name: ".changes", arguments: [":memory:"],
            input: """
                CREATE TABLE t (a);
                .changes on
                INSERT INTO t VALUES (1), (2); INSERT INTO t VALUES (3);
                SELECT 1;
                UPDATE t SET a = 0;
                .changes off
                DELETE FROM t;

                """),
        ParityCase(
            name: ".eqp", arguments: [":memory:"],
            input: """
                CREATE TABLE t (a, b);
                CREATE INDEX ta ON t (a);
                .eqp on
                SELECT * FROM t WHERE a = 1;
                .eqp off
                SELECT * FROM t WHERE a = 1;

                """),
        ParityCase(
            name: ".print", arguments: [":memory:"], input: ".print hello   world \"two words\" 'single'\n.print\n"),
        ParityCase(
            name: ".shell and .system", arguments: [":memory:"],
            input: "SELECT 1;\n.shell echo from the shell\n.system printf '%s\\n' \"a b\"\nSELECT 2;\n"),
        ParityCase(
            name: ".parameter set, list, unset, clear", arguments: [":memory:"],
            input: """
                .parameter set :x 2
                .parameter set @y 'hi there'
                .parameter set $z 1+2
                .parameter list
                SELECT :x, @y, $z, :missing;
                .parameter unset @y
                .parameter list
                .parameter clear
                .parameter list
                SELECT :x;

                """),
        ParityCase(name: ".timer off", arguments: [":memory:"], input: ".timer on\n.timer off\nSELECT 1;\n"),
        ParityCase(name: ".exit CODE in a script", arguments: [":memory:"], input: "SELECT 1;\n.exit 3\nSELECT 2;\n"),
        ParityCase(name: ".exit CODE as an argument", arguments: [":memory:", "SELECT 1", ".exit 4", "SELECT 2"]),
        ParityCase(
            name: ".backup DB FILE", arguments: [":memory:"],
            input: "ATTACH 'side.db' AS side;\nCREATE TABLE side.t (a);\nINSERT INTO side.t VALUES (3);\n"
                + ".backup side copy.db\n.open copy.db\nSELECT a FROM t;\n"),
        ParityCase(name: ".echo", arguments: [":memory:"], input: ".echo on\nSELECT 1;\n.echo off\nSELECT 2;\n"),
    ]

    static let importCases: [ParityCase] = [
        ParityCase(
            name: ".import --csv into a new table", arguments: [":memory:"],
            input: ".import --csv people.csv p\n.mode quote\nSELECT * FROM p;\nSELECT sql FROM sqlite_schema;\n",
            files: ["people.csv": people]),
        ParityCase(
            name: ".import in csv mode", arguments: [":memory:"],
            input: ".mode csv\n.import people.csv p\n.mode quote\nSELECT * FROM p;\n", files: ["people.csv": people]),
        ParityCase(
            name: ".import --skip 1 into an existing table", arguments: [":memory:"],
            input: "CREATE TABLE p (name, age);\n.import people.csv p --csv --skip 1\n.mode quote\nSELECT * FROM p;\n",
            files: ["people.csv": people]),
        ParityCase(
            name: ".import into an existing table takes the header as data", arguments: [":memory:"],
            input: "CREATE TABLE p (name, age);\n.import --csv people.csv p\nSELECT count(*) FROM p;\n",
            files: ["people.csv": people]),
        ParityCase(
            name: ".import --schema temp", arguments: [":memory:"],
            input: ".import --csv --schema temp people.csv p\nSELECT count(*) FROM temp.p;\n",
            files: ["people.csv": people]),
        ParityCase(
            name: ".import with the list mode's .separator", arguments: [":memory:"],
            input: ".separator ;\n.import data.txt t\n.mode quote\nSELECT * FROM t;\n",
            files: ["data.txt": "a;b\n1;2\n"]),
        ParityCase(
            name: ".import --ascii", arguments: [":memory:"],
            input: ".import --ascii data.txt t\n.mode quote\nSELECT * FROM t;\n",
            files: ["data.txt": "a\u{1F}b\u{1E}1\u{1F}\"2\"\u{1E}"]),
        ParityCase(
            name: ".import of a command's output", arguments: [":memory:"],
            input: ".import --csv '|cat people.csv' p\nSELECT count(*) FROM p;\n", files: ["people.csv": people]),
        ParityCase(name: ".import of a missing file fails", arguments: [":memory:", ".import --csv missing.csv p"]),
    ]

    /// Runs `shell` on `parity` in `folder`, which it empties and fills first.
    static func run(_ shell: URL, _ parity: ParityCase, in folder: URL) throws -> ShellProcess.Result {
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in parity.files {
            try Data(text.utf8).write(to: folder.appendingPathComponent(name))
        }
        if let setup = parity.setup {
            let sqlite3 = try #require(ShellProcess.sqlite3)
            let made = try ShellProcess.run(sqlite3, ["db.sqlite"], input: Data(setup.utf8), directory: folder)
            try #require(made.status == 0, "setup: \(made.error)")
        }
        let arguments = parity.arguments.map { $0 == "DB" ? "db.sqlite" : $0 }
        return try ShellProcess.run(shell, arguments, input: Data(parity.input.utf8), directory: folder)
    }

    @Test("the same standard output, byte for byte, and exit status as sqlite3", arguments: cases)
    func sameAsSQLite3(_ parity: ParityCase) throws {
        let sqltk = try #require(ShellProcess.executable, "the sqltk executable was not built beside the tests")
        let sqlite3 = try #require(ShellProcess.sqlite3)
        // One folder for both, so paths the shells print (.databases) are the same.
        let folder = try TemporaryFolder()
        let work = folder.url.appendingPathComponent("work")
        let expected = try Self.run(sqlite3, parity, in: work)
        let actual = try Self.run(sqltk, parity, in: work)
        #expect(actual.output == expected.output, "sqlite3's stderr: \(expected.error)\nsqltk's: \(actual.error)")
        #expect(actual.status == expected.status, "sqlite3's stderr: \(expected.error)\nsqltk's: \(actual.error)")
    }
}

/// Random tables printed in every mode by both shells, from a seed: values the hand-written cases miss (every
/// storage class, quotes, separators, tabs, line breaks, empty text, NULL in any column).
@Suite(
    "sqltk against the sqlite3 shell on random values",
    .enabled(
        if: sqlite3Version?.hasPrefix("3.40.") == true,
        "needs the sqlite3 shell 3.40 (Debian 12's), the reference of these comparisons: scripts/install-test-peers"))
struct SQLite3RandomParityTests {
    /// A small linear congruential generator, so a failing seed reproduces.
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    /// An SQL literal of a random storage class: reals from 1e-30 to 1e36 or so, whose 15 and 20 digits sqlite3
    /// 3.40 computes in its own way (RealFormat.swift), blobs of printable bytes, text of quotes and separators.
    static func literal(_ random: inout Generator) -> String {
        let characters = Array("ab Z'\"\t\n\r,;|é<>&\\09")
        switch random.next(5) {
        case 0: return "NULL"
        case 1: return String(random.next(2_000_001) - 1_000_000)
        case 2:
            let mantissa = Double(random.next(2_000_001) - 1_000_000) / Double(1 + random.next(997))
            return String(mantissa * pow(10, Double(random.next(60) - 30)))
        case 3:
            let bytes = (0..<random.next(6)).map { _ in String(format: "%02x", 0x20 + random.next(0x5F)) }
            return "X'" + bytes.joined() + "'"
        default:
            let text = String((0..<random.next(12)).map { _ in characters[random.next(characters.count)] })
            return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        }
    }

    @Test("random values print in every mode, with and without headers, as sqlite3 prints them", arguments: 1...40)
    func randomValues(seed: Int) throws {
        var random = Generator(state: UInt64(seed))
        var script = "CREATE TABLE r (a, b, c);\n"
        for _ in 0..<(5 + random.next(12)) {
            script += "INSERT INTO r VALUES (\(Self.literal(&random)), \(Self.literal(&random)), "
            script += "\(Self.literal(&random)));\n"
        }
        for mode in SQLite3ParityTests.modes + ["insert"] {
            script += ".mode \(mode)\n.headers \(random.next(2) == 0 ? "on" : "off")\n"
            // Column widths, some right-aligned, some narrower than the values (which then wrap).
            let widths = (0..<3).map { _ in String(random.next(21) - 10) }
            script += random.next(3) == 0 ? ".width \(widths.joined(separator: " "))\n" : ".width\n"
            script += "SELECT * FROM r;\n"
        }
        let parity = ParityCase(name: "seed \(seed)", arguments: [":memory:"], input: script)
        let sqltk = try #require(ShellProcess.executable, "the sqltk executable was not built beside the tests")
        let sqlite3 = try #require(ShellProcess.sqlite3)
        let folder = try TemporaryFolder()
        let work = folder.url.appendingPathComponent("work")
        let expected = try SQLite3ParityTests.run(sqlite3, parity, in: work)
        let actual = try SQLite3ParityTests.run(sqltk, parity, in: work)
        #expect(actual.output == expected.output, "seed \(seed), script:\n\(script)")
        #expect(actual.status == expected.status)
    }
}

/// Random well-formed CSV files imported by both shells, from a seed: quoted fields with separators, quotes and
/// line breaks, LF or CRLF records, a last record with or without its line break, the list mode's separator.
@Suite(
    "sqltk .import against the sqlite3 shell on random files",
    .enabled(
        if: sqlite3Version?.hasPrefix("3.40.") == true,
        "needs the sqlite3 shell 3.40 (Debian 12's), the reference of these comparisons: scripts/install-test-peers"))
struct SQLite3RandomImportTests {
    @Test("random CSV imports to the same rows as sqlite3 imports it", arguments: 1...30)
    func randomImport(seed: Int) throws {
        var random = SQLite3RandomParityTests.Generator(state: UInt64(seed) &* 7919)
        let separator: Character = random.next(2) == 0 ? "," : ";"
        let characters = Array("ab Z'\"\t\n,;|é\\0")
        let lineEnd = random.next(2) == 0 ? "\n" : "\r\n"
        let columnCount = 1 + random.next(4)
        var file = ""
        for record in 0..<(2 + random.next(8)) {
            let fields = (0..<columnCount).map { column -> String in
                var text = String((0..<random.next(8)).map { _ in characters[random.next(characters.count)] })
                // Column names must differ and not be empty, as both shells need.
                if record == 0 { text = "c\(column)" + text.filter { $0.isLetter } }
                let needsQuotes = text.contains { "\"\n\r".contains($0) || $0 == separator } || text.first == " "
                return needsQuotes || random.next(4) == 0
                    ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
            }
            file += fields.joined(separator: String(separator)) + lineEnd
        }
        if random.next(2) == 0 { file.removeLast(lineEnd.count) }
        let command =
            separator == ","
            ? ".import --csv data.csv t" : ".separator ;\n.import data.csv t"
        let parity = ParityCase(
            name: "seed \(seed)", arguments: [":memory:"],
            input: "\(command)\n.mode quote\nSELECT * FROM t;\nSELECT sql FROM sqlite_schema;\n",
            files: ["data.csv": file])
        let sqltk = try #require(ShellProcess.executable, "the sqltk executable was not built beside the tests")
        let sqlite3 = try #require(ShellProcess.sqlite3)
        let folder = try TemporaryFolder()
        let work = folder.url.appendingPathComponent("work")
        let expected = try SQLite3ParityTests.run(sqlite3, parity, in: work)
        let actual = try SQLite3ParityTests.run(sqltk, parity, in: work)
        #expect(expected.status == 0 && !expected.output.isEmpty, "sqlite3 did not import: \(expected.error)")
        #expect(actual.output == expected.output, "seed \(seed), file:\n\(file.debugDescription)")
        #expect(actual.status == expected.status, "sqlite3: \(expected.error)\nsqltk: \(actual.error)")
    }
}
