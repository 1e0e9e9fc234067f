import Foundation
import SQLiteBindings
import SQLiteToolkit
import Testing

@Suite("Scripts")
struct ScriptTests {
    @Test("a script runs every statement separated by ;")
    func runsAll() throws {
        let db = try Database()
        try db.executeScript(
            """
            CREATE TABLE t (x);  -- a comment
            INSERT INTO t (x) VALUES (1);
            /* another */ INSERT INTO t (x) VALUES (2), (3);
            UPDATE t SET x = x * 10 WHERE x = 3;
            SELECT * FROM t;
            """)
        #expect(try db.query("SELECT x FROM t ORDER BY x").map { try $0.value(at: 0, as: Int.self) } == [1, 2, 30])
    }

    @Test("a script given as bytes stores text that is not UTF-8 as its bytes, and gives its rows")
    func bytesScript() throws {
        let db = try Database()
        var seen: [[DatabaseValue]] = []
        let latin1 = Array("CREATE TABLE t (x); INSERT INTO t VALUES ('caf".utf8) + [0xE9] + Array("');".utf8)
        try db.executeScript(bytes: latin1 + Array(" SELECT hex(x) FROM t".utf8)) { seen.append($0.values) }
        #expect(seen == [["636166E9"]])
        // A NUL is refused before anything runs, as in a String script.
        let error = try #require(throws: DatabaseError.self) {
            try db.executeScript(bytes: Array("INSERT INTO t VALUES (1);".utf8) + [0] + Array("DROP TABLE t;".utf8))
        }
        #expect(error.reason == .embeddedNUL(offset: 25))
        #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 1)
        // A failing statement is named, decoded with U+FFFD for the byte that is not UTF-8.
        let failure = try #require(throws: DatabaseError.self) {
            try db.executeScript(bytes: Array("SELECT '".utf8) + [0xE9] + Array("' FROM nowhere".utf8))
        }
        #expect(failure.sql == "SELECT '\u{FFFD}' FROM nowhere")
    }

    @Test("a statement prepared from bytes reads text that is not UTF-8 as its bytes and binds like any other")
    func preparedFromBytes() throws {
        let db = try Database()
        let statement = try db.prepare(bytes: Array("SELECT hex('caf".utf8) + [0xE9] + Array("'), ?".utf8))
        #expect(statement.sql == "SELECT hex('caf\u{FFFD}'), ?")
        #expect(try statement.query(arguments: [7]).map(\.values) == [["636166E9", 7]])
        // One statement only, as prepare(_:) takes; a trailing comment is fine.
        _ = try db.prepare(bytes: Array("SELECT 1; -- done".utf8))
        let second = try #require(throws: DatabaseError.self) {
            try db.prepare(bytes: Array("SELECT 1; SELECT 2".utf8))
        }
        #expect(second.reason == .multipleStatements(tail: "SELECT 2"))
        let nul = try #require(throws: DatabaseError.self) { try db.prepare(bytes: Array("SELECT 1".utf8) + [0]) }
        #expect(nul.reason == .embeddedNUL(offset: 8))
        let empty = try #require(throws: DatabaseError.self) { try db.prepare(bytes: Array(" -- nothing".utf8)) }
        #expect(empty.reason == .noStatement)
        let failure = try #require(throws: DatabaseError.self) {
            try db.prepare(bytes: Array("SELECT * FROM \"t".utf8) + [0xE9] + Array("\"".utf8))
        }
        #expect(failure.sql == "SELECT * FROM \"t\u{FFFD}\"")
    }

    @Test("the row handler receives the rows of every statement that returns some")
    func rowHandler() throws {
        let db = try Database()
        var seen: [[DatabaseValue]] = []
        var columns: [[String]] = []
        try db.executeScript(
            """
            SELECT 1 AS a, 'one' AS b;
            CREATE TABLE t (x);
            INSERT INTO t (x) VALUES (2), (3);
            SELECT x FROM t ORDER BY x;
            SELECT 'z' AS last
            """
        ) { row in
            seen.append(row.values)
            columns.append(row.statement.columnNames)
        }
        #expect(seen == [[1, "one"], [2], [3], ["z"]])
        #expect(columns == [["a", "b"], ["x"], ["x"], ["last"]])
        #expect(db.openCursors == 0)
    }

    @Test("a script stops at the first failing statement, reports its SQL, and keeps what ran before")
    func stopsAtFailure() throws {
        let db = try Database()
        let error = try #require(throws: DatabaseError.self) {
            try db.executeScript(
                """
                CREATE TABLE t (x UNIQUE);
                INSERT INTO t (x) VALUES (1);
                INSERT INTO t (x) VALUES (1);
                INSERT INTO t (x) VALUES (2);
                """)
        }
        #expect(error.extendedCode == .constraintUnique)
        let sql = try #require(error.sql)
        #expect(sql.trimmingCharacters(in: .whitespacesAndNewlines) == "INSERT INTO t (x) VALUES (1);")
        #expect(try db.query("SELECT x FROM t").map { try $0.value(at: 0, as: Int.self) } == [1])
    }

    @Test("a syntax error in a script reports the failing statement with the offset of the mistake in it")
    func syntaxError() throws {
        let db = try Database()
        let error = try #require(throws: DatabaseError.self) {
            try db.executeScript(
                "CREATE TABLE t (x); INSERT INTO t (x) VALUES (1); INSERT INTO t (x) VALUS (2); INSERT INTO t (x) VALUES (3)"
            )
        }
        #expect(error.code == .error)
        #expect(error.message.contains("near \"VALUS\": syntax error"))
        let sql = try #require(error.sql)
        #expect(sql.contains("INSERT INTO t (x) VALUS"))
        #expect(!sql.contains("VALUES (1)"))
        #expect(!sql.contains("VALUES (3)"))
        let offset = try #require(error.errorOffset)
        let bytes = Array(sql.utf8)
        #expect(offset < bytes.count)
        #expect(String(decoding: bytes[offset...].prefix(5), as: UTF8.self) == "VALUS")
        #expect(try db.query("SELECT x FROM t").map { try $0.value(at: 0, as: Int.self) } == [1])
    }

    @Test("a row handler that throws stops the script with its own error")
    func handlerThrows() throws {
        struct Stop: Error {}
        let db = try Database()
        #expect(throws: Stop.self) {
            try db.executeScript("CREATE TABLE t (x); SELECT 1; INSERT INTO t (x) VALUES (1)") { _ in throw Stop() }
        }
        #expect(try db.queryValue("SELECT COUNT(*) FROM t", as: Int.self) == 0)
        #expect(db.openCursors == 0)
    }

    @Test("scripts with nothing to run do nothing", arguments: ["", "  \n", ";;", "-- just a comment", "/* c */ ;"])
    func empty(_ script: String) throws {
        let db = try Database()
        var count = 0
        try db.executeScript(script) { _ in count += 1 }
        try db.executeScript(script)
        #expect(count == 0)
    }

    @Test("a script with a trailing comment and no final semicolon runs to its end")
    func trailingComment() throws {
        let db = try Database()
        try db.executeScript("CREATE TABLE t (x); INSERT INTO t (x) VALUES ('a;b') -- done")
        #expect(try db.queryValue("SELECT x FROM t", as: String.self) == "a;b")
    }

    @Test("a script in a transaction rolls back as a whole when a statement fails")
    func scriptInTransaction() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x UNIQUE)")
        #expect(throws: DatabaseError.self) {
            try db.executeScript("BEGIN; INSERT INTO t (x) VALUES (1); INSERT INTO t (x) VALUES (1); COMMIT")
        }
        #expect(db.isInTransaction)
        try db.execute("ROLLBACK")
        #expect(try db.queryValue("SELECT COUNT(*) FROM t", as: Int.self) == 0)
    }
}
