import Foundation
import SQLiteToolkit
import Testing

/// Hostile values and SQL through the public API: each gives a typed error or the correct result, never a crash.
@Suite("Hostile input: names, sizes, text and integer extremes")
struct HostileValueTests {
    static let hostileNames = [
        "has space", "quote\"inside", "''", "\"\"", "x\"; DROP TABLE t; --", "'; DELETE FROM t; --", "Ünïcødé 名前",
        "semi;colon", "back`tick", "[bracket]", "tab\there", "new\nline", "percent%_like", "?", ":name", "$dollar",
    ]

    /// `name` as an SQL identifier: in double quotes, inner quotes doubled.
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    // MARK: Identifiers

    @Test(
        "tables and columns named with quotes, spaces and SQL: created, written and read by name",
        arguments: hostileNames)
    func hostileIdentifiers(name: String) throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        let table = Self.quoted(name)
        let column = Self.quoted(name)
        try db.execute("CREATE TABLE \(table) (\(column) TEXT, other INTEGER)")
        try db.execute("INSERT INTO \(table) (\(column), other) VALUES (?, ?)", name, 1)
        let rows = try db.query("SELECT \(column), other FROM \(table)")
        let row = try #require(try rows.next())
        #expect(try row.value(named: name, as: String.self) == name)
        #expect(row.dictionary[name] == .text(name))
        #expect(try rows.next() == nil)
        // A name that is not a column is an error, whatever SQL it holds; nothing runs.
        #expect(throws: DatabaseError.self) { try row.value(named: name + "x\"; DROP TABLE t; --", as: String.self) }
        #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 0)
        #expect(try db.queryValue("SELECT count(*) FROM sqlite_schema WHERE name = ?", name, as: Int.self) == 1)
    }

    @Test("named arguments whose keys hold SQL are unknown names: a typed error, nothing runs")
    func hostileArgumentNames() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        for key in ["x); DROP TABLE t; --", "a b", "", ":", "\"x\"", "x'"] {
            #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (:x)", arguments: [key: 1]) }
        }
        #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 0)
        #expect(try db.queryValue("SELECT count(*) FROM sqlite_schema WHERE name = 't'", as: Int.self) == 1)
    }

    @Test("interpolated values that look like SQL are bound, never pasted", arguments: hostileNames)
    func interpolationBinds(value: String) throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        try db.execute(sql: "INSERT INTO t VALUES (\(value))")
        #expect(try db.queryValue("SELECT x FROM t", as: String.self) == value)
        #expect(try db.queryValue("SELECT count(*) FROM sqlite_schema", as: Int.self) == 1)
    }

    // MARK: Sizes

    @Test("1 MB of SQL: a string literal, a script of 40,000 statements, a long comment tail")
    func megabyteSQL() throws {
        let db = try Database()
        let megabyte = String(repeating: "abcdefghijklmnop", count: 65_536)
        #expect(try db.queryValue("SELECT '\(megabyte)'", as: String.self) == megabyte)
        #expect(try db.queryValue("SELECT length('\(megabyte)')", as: Int.self) == 1 << 20)

        try db.execute("CREATE TABLE t (x)")
        let script = String(repeating: "INSERT INTO t VALUES (1);\n", count: 40_000)
        #expect(script.utf8.count > 1_000_000)
        try db.transaction { db in try db.executeScript(script) }
        #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 40_000)

        let tail = "SELECT 1 /*" + megabyte + "*/ -- end"
        #expect(try db.queryValue(tail, as: Int.self) == 1)
    }

    @Test("1 MB of nested SQL: a typed error (expression or parser depth), no stack overflow")
    func deeplyNestedSQL() throws {
        let db = try Database()
        let depth = 200_000
        let nested = "SELECT " + String(repeating: "(", count: depth) + "1" + String(repeating: ")", count: depth)
        #expect(throws: DatabaseError.self) { try db.queryValue(nested, as: Int.self) }
        let long = "SELECT 1" + String(repeating: " + 1", count: 250_000)
        #expect(throws: DatabaseError.self) { try db.queryValue(long, as: Int.self) }
        #expect(try db.queryValue("SELECT 2", as: Int.self) == 2)
    }

    @Test("10,000 bound parameters: every one bound; one short or one too many is a typed error")
    func tenThousandParameters() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x INTEGER)")
        let count = 10_000
        let sql = "INSERT INTO t (x) VALUES " + Array(repeating: "(?)", count: count).joined(separator: ", ")
        let values = (0..<count).map { Int64($0) * 3 - 7 }
        try db.execute(sql, arguments: StatementArguments(values.map(DatabaseValue.integer)))
        #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == count)
        #expect(try db.queryValue("SELECT sum(x) FROM t", as: Int64.self) == values.reduce(0, +))
        #expect(throws: DatabaseError.self) {
            try db.execute(sql, arguments: StatementArguments(values.dropLast().map(DatabaseValue.integer)))
        }
        #expect(throws: DatabaseError.self) {
            try db.execute(sql, arguments: StatementArguments((values + [1]).map(DatabaseValue.integer)))
        }
        #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == count)
        // Past SQLite's limit on parameter numbers (32,766): a typed error at prepare.
        #expect(throws: DatabaseError.self) { try db.execute("SELECT ?40000") }
    }

    @Test("a 16 MB blob and text round-trip; reading them as every type gives a result or a typed error")
    func largeValues() throws {
        let db = try Database()
        let blob = Data((0..<(16 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let text = String(repeating: "ü", count: 8 << 20)
        #expect(try db.queryValue("SELECT ?", blob, as: Data.self) == blob)
        #expect(try db.queryValue("SELECT ?", text, as: String.self) == text)
    }

    // MARK: Text

    @Test(
        "invalid UTF-8 stored as text: String throws naming the column and the offset; bytes and DatabaseValue read",
        arguments: [
            ([0x80], 0), ([0xFF, 0xFE], 0), ([0xC3], 0), ([0xED, 0xA0, 0x80], 0), ([0x61, 0xF4, 0x90, 0x80, 0x80], 1),
            ([0x61, 0x62, 0xC3, 0x28], 2),
        ] as [([UInt8], Int)])
    func invalidUTF8(bytes: [UInt8], offset: Int) throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x TEXT)")
        do {
            try db.execute("INSERT INTO t VALUES (CAST(? AS TEXT))", Data(bytes))
            #expect(try db.queryValue("SELECT typeof(x) FROM t", as: String.self) == "text")
            #expect(try db.queryValue("SELECT x FROM t", as: [UInt8].self) == bytes)
            let error = try #require(throws: DatabaseError.self) {
                try db.queryValue("SELECT x AS label FROM t", as: String.self)
            }
            #expect(error.code == .mismatch)
            #expect(error.reason == .invalidUTF8(column: "label", byteOffset: offset))
            #expect(error.message.contains("\"label\"") && error.message.contains("offset \(offset)"))
            // The same bytes as a BLOB read as String are checked too.
            let blob = try #require(throws: DatabaseError.self) {
                try db.queryValue("SELECT CAST(x AS BLOB) AS b FROM t", as: String.self)
            }
            #expect(blob.reason == .invalidUTF8(column: "b", byteOffset: offset))
            // The lenient read: a DatabaseValue holds the text with U+FFFD in place of the bad bytes.
            let lenient = try db.query("SELECT x FROM t")
            let row = try #require(try lenient.next())
            #expect(row[0] == .text(String(decoding: bytes, as: UTF8.self)))
            // A function's String argument is checked as well; nothing names a column there.
            try db.createFunction("echo") { (text: String) in text }
            let argument = try #require(throws: DatabaseError.self) {
                try db.queryValue("SELECT echo(x) FROM t", as: String.self)
            }
            #expect(argument.message.contains("not valid UTF-8"))
            let rows = try db.query("SELECT x, upper(x), length(x), hex(x) FROM t")
            while let row = try rows.next() {
                for column in 0..<row.count { readEveryType(row, at: column) }
            }
        }
    }

    @Test("text with an embedded NUL round-trips whole when bound")
    func embeddedNULInBoundText() throws {
        let db = try Database()
        let text = "before\u{0}after"
        #expect(try db.queryValue("SELECT ?", text, as: String.self) == text)
        #expect(try db.queryValue("SELECT length(CAST(? AS BLOB))", text, as: Int.self) == 12)
    }

    // MARK: Int64.min

    @Test("Int64.min through every integer path: bound, read, named, interpolated, as a rowid, in arithmetic")
    func int64Min() throws {
        let db = try Database()
        let min = Int64.min
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, x INTEGER, y ANY, z TEXT)")
        try db.execute("INSERT INTO t (id, x, y, z) VALUES (?, ?, ?, ?)", min, min, Int(min), String(min))
        #expect(db.lastInsertRowID == min)
        try db.execute("INSERT INTO t (id, x) VALUES (:id, :x)", arguments: ["id": min + 1, "x": min])
        try db.execute(sql: "INSERT INTO t (id, x) VALUES (\(min + 2), \(min))")
        #expect(try db.queryValue("SELECT count(*) FROM t WHERE x = ?", min, as: Int.self) == 3)
        #expect(try db.queryValue("SELECT min(id) FROM t", as: Int64.self) == min)
        #expect(try db.queryValue("SELECT x FROM t WHERE id = ?", min, as: Int.self) == Int(min))
        #expect(try db.queryValue("SELECT z FROM t WHERE id = ?", min, as: Int64.self) == min)
        #expect(try db.queryValue("SELECT x FROM t WHERE id = ?", min, as: String.self) == "-9223372036854775808")
        #expect(try db.queryValue("SELECT x FROM t WHERE id = ?", min, as: Double.self) == -9_223_372_036_854_775_808.0)
        #expect(try db.queryValue("SELECT x FROM t WHERE id = ?", min, as: Bool.self) == true)
        #expect(try db.queryValue("SELECT x FROM t WHERE id = ?", min, as: DatabaseValue.self) == .integer(min))
        // Narrower and unsigned types: a typed error, never a trap or a wrapped value.
        #expect(throws: DatabaseError.self) { try db.queryValue("SELECT ?", min, as: Int32.self) }
        #expect(throws: DatabaseError.self) { try db.queryValue("SELECT ?", min, as: Int8.self) }
        #expect(throws: DatabaseError.self) { try db.queryValue("SELECT ?", min, as: UInt64.self) }
        #expect(throws: DatabaseError.self) { try db.queryValue("SELECT ?", min, as: UInt.self) }
        #expect(throws: DatabaseError.self) { try db.queryValue("SELECT ?", min, as: UUID.self) }
        // SQLite's arithmetic: negation and subtraction overflow into REAL; abs() is an error.
        #expect(try db.queryValue("SELECT typeof(-?)", min, as: String.self) == "real")
        #expect(try db.queryValue("SELECT typeof(? - 1)", min, as: String.self) == "real")
        let abs = try #require(throws: DatabaseError.self) { try db.queryValue("SELECT abs(?)", min, as: Int64.self) }
        #expect(abs.message.contains("integer overflow"))
        // One below Int64.min, as text: SQLite's conversion to an integer clamps it to Int64.min, never traps.
        #expect(try db.queryValue("SELECT '-9223372036854775809'", as: Int64.self) == min)
        #expect(try db.queryValue("SELECT '9223372036854775808'", as: Int64.self) == Int64.max)
        #expect(try db.queryValue("SELECT CAST('-9223372036854775808' AS INTEGER)", as: Int64.self) == min)
        // As a date: far in the past, no trap.
        #expect(try db.queryValue("SELECT ?", min, as: Date.self) == Date(timeIntervalSince1970: Double(min)))
        let rows = try db.query("SELECT id, x, y, z, -x, x / -1, x % -1 FROM t")
        while let row = try rows.next() {
            for column in 0..<row.count { readEveryType(row, at: column) }
        }
    }
}
