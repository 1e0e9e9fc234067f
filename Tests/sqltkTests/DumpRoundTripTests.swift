import Foundation
import SQLiteToolkit
import Testing

@Suite("sqltk dumps, both ways with the sqlite3 shell")
struct DumpRoundTripTests {
    /// What the sqlite3 shell 3.40 writes for `.dump` of a database holding one FTS5 table with two rows: the
    /// virtual table as a row written into sqlite_schema, its shadow tables as ordinary tables.
    static let sqlite3FullTextDump = """
        PRAGMA foreign_keys=OFF;
        BEGIN TRANSACTION;
        PRAGMA writable_schema=ON;
        INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table','ft','ft',0,'CREATE VIRTUAL TABLE ft USING fts5(title, body)');
        CREATE TABLE IF NOT EXISTS 'ft_data'(id INTEGER PRIMARY KEY, block BLOB);
        INSERT INTO ft_data VALUES(1,X'020204');
        INSERT INTO ft_data VALUES(10,X'000000000101010001010101');
        INSERT INTO ft_data VALUES(137438953473,X'0000003c0630616c706861010601010201046265746101060101030106010102010567616d6d61020601010301036f6e65010202010374776f020202040c100c08');
        CREATE TABLE IF NOT EXISTS 'ft_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID;
        INSERT INTO ft_idx VALUES(1,X'',2);
        CREATE TABLE IF NOT EXISTS 'ft_content'(id INTEGER PRIMARY KEY, c0, c1);
        INSERT INTO ft_content VALUES(1,'One','alpha beta');
        INSERT INTO ft_content VALUES(2,'Two','beta gamma');
        CREATE TABLE IF NOT EXISTS 'ft_docsize'(id INTEGER PRIMARY KEY, sz BLOB);
        INSERT INTO ft_docsize VALUES(1,X'0102');
        INSERT INTO ft_docsize VALUES(2,X'0102');
        CREATE TABLE IF NOT EXISTS 'ft_config'(k PRIMARY KEY, v) WITHOUT ROWID;
        INSERT INTO ft_config VALUES('version',4);
        PRAGMA writable_schema=OFF;
        COMMIT;

        """

    /// The tables of `db` by kind (`table`, `virtual`, `shadow`), as `pragma_table_list` tells them apart.
    static func tableKinds(_ db: Database) throws -> [String: String] {
        var kinds: [String: String] = [:]
        let rows = try db.query("SELECT name, type FROM pragma_table_list WHERE schema = 'main'")
        while let row = try rows.next() {
            kinds[try row.value(at: 0)] = try row.value(at: 1) as String
        }
        return kinds
    }

    @Test(
        "a sqlite3 dump of a full-text table loads with a working virtual table and no orphan shadow tables",
        arguments: [[], ["--bail"]])
    func sqlite3FullTextDumpLoads(options: [String]) throws {
        let folder = try TemporaryFolder()
        let path = folder.path("loaded.sqlite")
        let load = try ShellProcess.run(options + [path], input: Self.sqlite3FullTextDump)
        #expect(load.error == "")
        #expect(load.status == 0)
        let db = try Database(path: path)
        let kinds = try Self.tableKinds(db)
        #expect(kinds["ft"] == "virtual")
        for shadow in ["ft_data", "ft_idx", "ft_content", "ft_docsize", "ft_config"] {
            #expect(kinds[shadow] == "shadow", "\(shadow) is \(kinds[shadow] ?? "missing")")
        }
        #expect(try db.queryValue("SELECT title FROM ft WHERE ft MATCH 'gamma'", as: String.self) == "Two")
        #expect(try db.queryValue("PRAGMA integrity_check", as: String.self) == "ok")
        // The loaded file is protected again: shadow tables refuse ordinary writes.
        #expect(throws: DatabaseError.self) { try db.execute("DELETE FROM ft_data") }
    }

    @Test("after a dump's virtual table loads, the same input can search it, and defensive mode is back on")
    func sameInputUsesIt() throws {
        let result = try ShellProcess.run(
            [":memory:"],
            input: Self.sqlite3FullTextDump
                + "SELECT title FROM ft WHERE ft MATCH 'alpha';\nDELETE FROM ft_data;\nSELECT count(*) FROM ft_data;\n")
        #expect(result.output == "One\n3\n")
        #expect(result.error.contains("Error at line 22: table ft_data may not be modified"))
    }

    @Test(
        "only the schema row a dump writes for a virtual table is written; any other write to sqlite_schema fails",
        arguments: [
            // Not a virtual table.
            "INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table','x','x',2,'CREATE TABLE x(a)');",
            // A second statement hidden in the SQL.
            "INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table','v','v',0,"
                + "'CREATE VIRTUAL TABLE v USING fts5(a); CREATE TABLE w(b)');",
            // Two rows.
            "INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table','v','v',0,"
                + "'CREATE VIRTUAL TABLE v USING fts5(a)'),('table','u','u',0,'CREATE VIRTUAL TABLE u USING fts5(a)');",
            // A name that exists.
            "INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table','keep','keep',0,"
                + "'CREATE VIRTUAL TABLE keep USING fts5(a)');",
            "UPDATE sqlite_schema SET sql = 'CREATE TABLE keep (changed)' WHERE name = 'keep';",
            "DELETE FROM sqlite_schema WHERE name = 'keep';",
        ])
    func otherSchemaWritesFail(statement: String) throws {
        let folder = try TemporaryFolder()
        let path = folder.path("db.sqlite")
        let result = try ShellProcess.run(
            [path],
            input: "CREATE TABLE keep (a);\nPRAGMA writable_schema=ON;\n\(statement)\nPRAGMA writable_schema=OFF;\n")
        #expect(result.status == 1)
        #expect(result.error.hasPrefix("Error at line 3: "))
        let db = try Database(path: path)
        let schema = try db.query("SELECT type, name, sql FROM sqlite_schema").map { row in
            try (0..<3).map { try row.value(at: $0) as String }
        }
        #expect(schema == [["table", "keep", "CREATE TABLE keep (a)"]])
    }

    @Test("a schema row given as a SQL argument, not read from a script, fails as on any defensive connection")
    func notFromArguments() throws {
        let result = try ShellProcess.run([
            ":memory:",
            "INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table','ft','ft',0,"
                + "'CREATE VIRTUAL TABLE ft USING fts5(a)')",
        ])
        #expect(result.status == 1)
        #expect(result.error.contains("may not be modified"))
    }

    /// The schema (without root pages) and the rows of every table, shadow tables included when asked, in a
    /// stable order; values in hexadecimal with their storage class, so equal means byte for byte equal.
    static func content(of path: String, includingShadowTables: Bool) throws -> [String] {
        let db = try Database(path: path)
        defer { db.close() }
        var lines = try db.query("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name").map { row in
            row.values.map(\.description).joined(separator: " | ")
        }
        let kinds = includingShadowTables ? "'table', 'virtual', 'shadow'" : "'table', 'virtual'"
        let tables = try db.query(
            "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type IN (\(kinds)) "
                + "AND name NOT IN ('sqlite_schema', 'sqlite_temp_schema') ORDER BY name"
        ).map { try $0.value(at: 0) as String }
        for table in tables {
            let quoted = try Database.quoteIdentifier(table)
            let columns = try db.query("SELECT name FROM pragma_table_info(?)", table).map {
                try Database.quoteIdentifier(try $0.value(at: 0) as String)
            }
            let select = columns.map { "typeof(\($0)) || ':' || hex(\($0))" }.joined(separator: " || ', ' || ")
            lines += try db.query("SELECT \(select) FROM \(quoted)").map { table + ": " + (try $0.value(at: 0)) }
                .sorted()
        }
        return lines
    }

    /// A database with ordinary, full-text and R*Tree tables, an index, a trigger, a view, an AUTOINCREMENT
    /// counter, and text of every kind, written by the sqlite3 shell or by the toolkit.
    static let schemaScript = """
        CREATE TABLE item (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, price REAL, data BLOB);
        CREATE INDEX item_name ON item (name);
        CREATE VIEW cheap AS SELECT name FROM item WHERE price < 1;
        CREATE TRIGGER item_count AFTER INSERT ON item BEGIN UPDATE counter SET n = n + 1; END;
        CREATE TABLE counter (n INTEGER);
        INSERT INTO counter VALUES (0);
        CREATE VIRTUAL TABLE doc USING fts5(title, body);
        CREATE VIRTUAL TABLE box USING rtree(id, minX, maxX, minY, maxY);
        INSERT INTO box VALUES (1, 0, 10, 0, 5), (2, -3.5, 2.25, 1, 8);
        INSERT INTO item (name, price, data) VALUES ('it''s', 0.1, X'00FF'), (NULL, 1e300, NULL), ('x', -0.5, X'');
        """

    /// Writes the test database (`schemaScript`, then every text of `roundTripTexts` in the full-text and the
    /// ordinary table), dumps it with `dumper`, loads the dump into a new file with `loader`, checks that both
    /// ran without a message, and returns the two files (in `folder`) and the dump.
    static func dumpAndLoad(dumper: SQLShell, loader: SQLShell, in folder: TemporaryFolder) throws -> (
        original: String, loaded: String, dump: String
    ) {
        let original = folder.path("original.sqlite")
        let db = try Database(path: original)
        try db.executeScript(schemaScript)
        for (index, text) in roundTripTexts.enumerated() {
            try db.execute("INSERT INTO doc (title, body) VALUES (?, ?)", "t\(index)", text)
            try db.execute("INSERT INTO item (name, price) VALUES (?, ?)", text, Double(index) / 3)
        }
        db.close()
        let dump = try dumper.run([original, ".dump"])
        #expect(dump.status == 0)
        let loaded = folder.path("loaded.sqlite")
        let load = try loader.run([loaded], input: dump.output)
        #expect(load.error == "")
        #expect(load.status == 0)
        return (original, loaded, dump.output)
    }

    @Test(
        "a sqlite3 dump with FTS5 and R*Tree tables loads into sqltk with the same schema and the same bytes",
        .enabled(if: ShellProcess.sqlite3 != nil, "needs the sqlite3 shell: scripts/install-test-peers"))
    func sqlite3DumpIntoSqltk() throws {
        let folder = try TemporaryFolder()
        let (original, loaded, dump) = try Self.dumpAndLoad(dumper: .sqlite3, loader: .sqltk, in: folder)
        #expect(dump.contains("PRAGMA writable_schema=ON;"))
        #expect(
            try Self.content(of: loaded, includingShadowTables: true)
                == Self.content(of: original, includingShadowTables: true))
        let copy = try Database(path: loaded)
        #expect(try copy.queryValue("SELECT count(*) FROM doc WHERE doc MATCH 'emoji'", as: Int.self) == 1)
        #expect(try copy.queryValue("SELECT id FROM box WHERE minX >= -4 AND maxX <= 3", as: Int.self) == 2)
        #expect(try copy.queryValue("PRAGMA integrity_check", as: String.self) == "ok")
    }

    @Test(
        "sqltk's dump loads into the sqlite3 shell with the same schema and the same bytes",
        .enabled(if: ShellProcess.sqlite3 != nil, "needs the sqlite3 shell: scripts/install-test-peers"))
    func sqltkDumpIntoSQLite3() throws {
        let folder = try TemporaryFolder()
        let (original, loaded, _) = try Self.dumpAndLoad(dumper: .sqltk, loader: .sqlite3, in: folder)
        // The virtual tables' rows are inserted through them, so their shadow tables are rebuilt, not copied.
        #expect(
            try Self.content(of: loaded, includingShadowTables: false)
                == Self.content(of: original, includingShadowTables: false))
        let copy = try Database(path: loaded)
        #expect(try copy.queryValue("SELECT count(*) FROM doc WHERE doc MATCH 'emoji'", as: Int.self) == 1)
        #expect(try copy.queryValue("PRAGMA integrity_check", as: String.self) == "ok")
    }

    @Test("sqltk's dump loads into sqltk with the same bytes, text with CR and CRLF included")
    func sqltkDumpIntoSqltk() throws {
        let folder = try TemporaryFolder()
        let (original, loaded, _) = try Self.dumpAndLoad(dumper: .sqltk, loader: .sqltk, in: folder)
        #expect(
            try Self.content(of: loaded, includingShadowTables: false)
                == Self.content(of: original, includingShadowTables: false))
    }
}
