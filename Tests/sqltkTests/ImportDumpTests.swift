import Foundation
import SQLiteToolkit
import Testing

@Suite("sqltk .import and .dump")
struct ImportDumpTests {
    @Test(".import reads RFC 4180 CSV: quoted commas, line breaks and doubled quotes, CRLF or LF records")
    func importQuotedFields() throws {
        let folder = try TemporaryFolder()
        let csv = folder.path("people.csv")
        let text =
            "id,name,note\r\n1,\"Smith, Jane\",\"said \"\"hi\"\"\nthen left\"\r\n2,Plain,\r\n3,\"\",\"two\r\nlines\"\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: csv))
        let path = folder.path("people.sqlite")
        let result = try ShellProcess.run([path, ".import --csv \(csv) people"])
        #expect(result.status == 0)
        #expect(result.error == "")

        let db = try Database(path: path)
        let rows = try db.query("SELECT id, name, note, typeof(id) FROM people ORDER BY id").map { row in
            try (0..<4).map { try row.value(at: $0) as String }
        }
        #expect(
            rows == [
                ["1", "Smith, Jane", "said \"hi\"\nthen left", "text"],
                ["2", "Plain", "", "text"],
                ["3", "", "two\r\nlines", "text"],
            ])
    }

    @Test(".import into an existing table takes every record in column order; --skip 1 leaves out a header")
    func importIntoExistingTable() throws {
        let folder = try TemporaryFolder()
        let csv = folder.path("scores.csv")
        try Data("name,score\nAnn,10\n\"Bo, Jr.\",20".utf8).write(to: URL(fileURLWithPath: csv))
        let result = try ShellProcess.run([
            ":memory:", "CREATE TABLE s (name TEXT, score INTEGER)", ".import --csv --skip 1 \(csv) s",
            "SELECT name, score, typeof(score) FROM s ORDER BY score",
        ])
        #expect(result.status == 0)
        #expect(result.output == "Ann|10|integer\nBo, Jr.|20|integer\n")
    }

    @Test(".import refuses a record with the wrong number of fields, naming its line, and imports nothing")
    func importWrongFieldCount() throws {
        let folder = try TemporaryFolder()
        let csv = folder.path("bad.csv")
        try Data("a,b\n1,2\n\"3\n3\",4,5\n".utf8).write(to: URL(fileURLWithPath: csv))
        // Standard input goes on after an error, so the next statement can look for the table.
        let result = try ShellProcess.run(
            [":memory:"], input: ".import --csv \(csv) t\nSELECT count(*) FROM sqlite_schema WHERE name = 't';\n")
        #expect(result.status == 1)
        #expect(result.error.contains("line 3: 3 fields, but the table has 2 columns"))
        #expect(result.output == "0\n")
    }

    @Test(".dump prints SQL that rebuilds a database with the same schema and content")
    func dumpRebuildsDatabase() throws {
        let folder = try TemporaryFolder()
        let original = folder.path("original.sqlite")
        let db = try Database(path: original)
        try db.executeScript(
            """
            PRAGMA user_version = 7;
            CREATE TABLE item (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, price REAL, data BLOB);
            CREATE TABLE pair (k TEXT PRIMARY KEY, v ANY) WITHOUT ROWID;
            CREATE TABLE computed (a INTEGER, doubled INTEGER GENERATED ALWAYS AS (a * 2) STORED);
            CREATE TABLE "odd ""name"" x" ("a b" TEXT);
            CREATE INDEX item_name ON item (name);
            CREATE VIEW cheap AS SELECT name FROM item WHERE price < 1;
            CREATE TRIGGER item_log AFTER INSERT ON item BEGIN INSERT OR REPLACE INTO pair VALUES ('last', new.name); END;
            CREATE VIRTUAL TABLE doc USING fts5(title, body);
            """)
        let values: [(String, Double?, [UInt8]?)] = [
            ("it's", 0.1, [0, 255]), ("two\nlines", nil, []), ("", 1e300, nil), ("ünï 😀", -0.5, [1]),
        ]
        for (name, price, data) in values {
            try db.execute("INSERT INTO item (name, price, data) VALUES (?, ?, ?)", name, price, data)
        }
        try db.execute("DELETE FROM item WHERE id = 2")
        try db.execute("INSERT INTO pair VALUES (?, ?)", "big", Int64.max)
        try db.execute("INSERT INTO pair VALUES (?, ?)", "small", Int64.min)
        try db.execute("INSERT INTO pair VALUES (?, ?)", "infinite", Double.infinity)
        try db.execute("INSERT INTO pair VALUES (?, ?)", "nul", "a\u{0}b")
        try db.execute("INSERT INTO computed (a) VALUES (?), (?)", 1, 21)
        try db.execute(#"INSERT INTO "odd ""name"" x" VALUES (?)"#, "x")
        try db.execute("INSERT INTO doc VALUES (?, ?), (?, ?)", "One", "alpha beta", "Two", "beta gamma")
        db.close()

        let dump = try ShellProcess.run([original, ".dump"])
        #expect(dump.status == 0)
        #expect(dump.error == "")
        let rebuilt = folder.path("rebuilt.sqlite")
        let load = try ShellProcess.run([rebuilt], input: dump.output)
        #expect(load.status == 0)
        #expect(load.error == "")

        let first = try Database(path: original)
        let second = try Database(path: rebuilt)
        let expected = try Self.content(of: first)
        let actual = try Self.content(of: second)
        #expect(actual == expected)
        for (line, expectedLine) in zip(actual, expected) where line != expectedLine {
            Issue.record("first difference: \(line) instead of \(expectedLine)")
            break
        }
        #expect(try second.queryValue("PRAGMA user_version", as: Int.self) == 7)
        // The full-text index was rebuilt, not only its rows.
        #expect(try second.queryValue("SELECT title FROM doc WHERE doc MATCH 'gamma'", as: String.self) == "Two")
        // The trigger exists but did not fire while the rows were loaded.
        #expect(try second.queryValue("SELECT count(*) FROM pair WHERE k = 'last'", as: Int.self) == 1)
    }

    @Test(".backup copies a plain database page by page into a file that holds the same content")
    func backup() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("db.sqlite")
        let copy = folder.path("copy.sqlite")
        let result = try ShellProcess.run([
            path, "CREATE TABLE t (a, b); INSERT INTO t VALUES (1, 'one'), (2, X'02'); CREATE INDEX t_b ON t (b)",
            ".backup \(copy)",
        ])
        #expect(result.status == 0)
        #expect(result.error == "")
        let expected = try Self.content(of: Database(path: path))
        let actual = try Self.content(of: Database(path: copy))
        #expect(actual == expected)
    }

    /// The schema (without root pages) and every table's rows, with their storage classes, in a stable order.
    static func content(of db: Database) throws -> [String] {
        var lines = try db.query("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name").map { row in
            row.values.map(\.description).joined(separator: " | ")
        }
        let tables = try db.query(
            "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type IN ('table', 'virtual') AND name != 'sqlite_schema' ORDER BY name"
        ).map { try $0.value(at: 0) as String }
        for table in tables {
            let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            let rows = try db.query("SELECT * FROM \(quoted)").map { row in
                table + ": " + row.values.map { "\($0.datatype.rawValue):\($0)" }.joined(separator: ", ")
            }
            lines += rows.sorted()
        }
        return lines
    }
}
