import Foundation
import SQLiteToolkit
import Testing

/// Every kind of text a CSV export or a dump must carry through unchanged.
let roundTripTexts: [String] = [
    "plain", "c\r\nd", "cr\ronly", "lf\nonly", "both\r\n\r\nlines", "say \"hi\"", "\"", "a,b", ",", "  leading spaces",
    "trailing spaces  ", "", "ünïcödé", "e\u{301}", "漢字", "emoji 😀👍🏽🇫🇷", "tab\there", "'quote'", "end\r",
    "\nstart",
]

/// The test table: `t (id INTEGER PRIMARY KEY, v TEXT)`, one row per text of `roundTripTexts`.
func makeTextTable(at path: String) throws {
    let db = try Database(path: path)
    try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
    for (index, text) in roundTripTexts.enumerated() {
        try db.execute("INSERT INTO t (id, v) VALUES (?, ?)", index + 1, text)
    }
    db.close()
}

/// The bytes of column `v` of `table` at `path`, in hexadecimal, by `id`: equal only when byte for byte equal.
func textBytes(in path: String, table: String) throws -> [String] {
    let db = try Database(path: path)
    defer { db.close() }
    return try db.query("SELECT hex(v) FROM \(try Database.quoteIdentifier(table)) ORDER BY CAST(id AS INTEGER)")
        .map { try $0.value(at: 0) as String }
}

@Suite("sqltk CSV round trips, alone and with the sqlite3 shell")
struct CSVRoundTripTests {
    @Test("CSV quotes as sqlite3 does: CR, LF, quote, apostrophe, comma, space, non-ASCII byte, empty text")
    func quoting() throws {
        let result = try ShellProcess.run([
            "--mode", "csv", ":memory:",
            "SELECT 'c'||char(13)||char(10)||'d', 'a'||char(13), char(10), 'x\"y', 'p,q', ' lead', 'plain', 'it''s',"
                + " 'é', '', NULL",
        ])
        #expect(result.status == 0)
        #expect(
            result.output
                == "\"c\r\nd\",\"a\r\",\"\n\",\"x\"\"y\",\"p,q\",\" lead\",plain,\"it's\",\"é\",\"\",\r\n")
    }

    /// Exports the test table as CSV with `exporter`, imports the file into a new table with `importer`, and
    /// checks that the import ran without a message and stored the same bytes.
    static func roundTrip(exporter: SQLShell, importer: SQLShell) throws {
        let folder = try TemporaryFolder()
        let source = folder.path("source.sqlite")
        try makeTextTable(at: source)
        let query = "SELECT id, v FROM t ORDER BY id"
        let export =
            exporter == .sqltk
            ? try ShellProcess.run(["--mode", "csv", "--header", source, query])
            : try ShellProcess.runSQLite3(["-csv", "-header", source, query])
        #expect(export.status == 0)
        let csv = folder.path("t.csv")
        try Data(export.output.utf8).write(to: URL(fileURLWithPath: csv))
        let target = folder.path("target.sqlite")
        let load = try importer.run([target, ".import --csv \(csv) copy"])
        #expect(load.error == "")
        #expect(load.status == 0)
        #expect(try textBytes(in: target, table: "copy") == textBytes(in: source, table: "t"))
    }

    @Test("sqltk imports its own CSV export to the same bytes, for every text of the test table")
    func sqltkToSqltk() throws {
        try Self.roundTrip(exporter: .sqltk, importer: .sqltk)
    }

    @Test(
        "sqlite3 .import --csv reads sqltk's CSV export to the same bytes",
        .enabled(if: ShellProcess.sqlite3 != nil, "needs the sqlite3 shell: scripts/install-test-peers"))
    func sqltkToSQLite3() throws {
        try Self.roundTrip(exporter: .sqltk, importer: .sqlite3)
    }

    @Test(
        "sqltk .import reads the sqlite3 shell's CSV export to the same bytes",
        .enabled(if: ShellProcess.sqlite3 != nil, "needs the sqlite3 shell: scripts/install-test-peers"))
    func sqlite3ToSqltk() throws {
        try Self.roundTrip(exporter: .sqlite3, importer: .sqltk)
    }
}
