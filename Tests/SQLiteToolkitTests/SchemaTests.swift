import SQLiteBindings
import SQLiteToolkit
import Testing

@Suite("Schema introspection")
struct SchemaTests {
    /// Names that need quoting: a double quote, a leading digit and a space, SQL keywords, and SQL that would
    /// run if it were pasted into a statement.
    static let awkwardNames = [
        "a\"b", "234 fds", "select", "x\"; DROP TABLE victim; --", "it's", "\"", "[bracket]", "ünï cödé",
    ]

    private func makeDatabase() throws -> Database {
        let db = try Database()
        try db.execute("CREATE TABLE victim (id INTEGER PRIMARY KEY, x)")
        return db
    }

    // MARK: Existence

    @Test("tableExists is case-insensitive and tells tables from views")
    func tableAndViewExistence() throws {
        let db = try makeDatabase()
        try db.execute("CREATE TABLE Player (id INTEGER PRIMARY KEY)")
        try db.execute("CREATE VIEW best AS SELECT id FROM player")
        #expect(try db.tableExists("player"))
        #expect(try db.tableExists("PLAYER"))
        #expect(try !db.tableExists("best"))
        #expect(try db.viewExists("BEST"))
        #expect(try !db.viewExists("player"))
        #expect(try !db.tableExists("nothing"))
    }

    @Test("a temporary table is found in temp, or in main only when asked")
    func temporaryTables() throws {
        let db = try makeDatabase()
        try db.execute("CREATE TEMP TABLE scratch (x)")
        #expect(try !db.tableExists("scratch"))
        #expect(try db.tableExists("scratch", includingTemporary: true))
        #expect(try db.tableExists("scratch", in: "temp"))
        #expect(try !db.tableExists("victim", in: "temp"))
    }

    @Test("an unknown schema throws noSuchSchema")
    func unknownSchema() throws {
        let db = try makeDatabase()
        #expect {
            _ = try db.tableExists("victim", in: "nowhere")
        } throws: { ($0 as? DatabaseError)?.reason == .noSuchSchema("nowhere") }
    }

    @Test("awkward names are quoted everywhere and never run as SQL", arguments: awkwardNames)
    func awkwardIdentifiers(name: String) throws {
        let db = try makeDatabase()
        // The test's own SQL quotes by hand, independently of the toolkit.
        let quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        try db.execute("CREATE TABLE \(quoted) (\(quoted) INTEGER NOT NULL DEFAULT 7, other TEXT REFERENCES victim)")
        try db.execute(
            "CREATE INDEX \("\"" + "i" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"") ON \(quoted) (\(quoted))"
        )
        try db.execute("ATTACH DATABASE ':memory:' AS \(quoted)")

        #expect(try db.tableExists(name))
        let columns = try db.columns(in: name)
        #expect(columns.map(\.name) == [name, "other"])
        #expect(columns.first?.defaultValueSQL == "7")
        #expect(try db.indexes(on: name).map(\.columns) == [[name]])
        #expect(try db.foreignKeys(in: name).first?.destinationTable == "victim")
        #expect(try db.foreignKeyViolations(in: name).isEmpty)
        #expect(try db.userVersion(schema: name) == 0)
        try db.setUserVersion(3, schema: name)
        #expect(try db.userVersion(schema: name) == 3)
        #expect(try db.integrityCheck(schema: name).isOK)
        #expect(try db.schemaObjects(in: name).isEmpty)
        try db.detach(name)
        #expect(try db.tableExists("victim"))
    }

    @Test("a name holding NUL is refused with invalidIdentifier")
    func nulInIdentifier() throws {
        let db = try makeDatabase()
        #expect {
            try db.setUserVersion(1, schema: "main\0x")
        } throws: { ($0 as? DatabaseError)?.reason == .invalidIdentifier }
    }

    // MARK: Columns, indexes, foreign keys, schema

    @Test("columns report type, nullability, default and primary-key position")
    func columnInfo() throws {
        let db = try makeDatabase()
        try db.execute(
            """
            CREATE TABLE pair (
                a INTEGER NOT NULL, b TEXT DEFAULT 'x', c, d REAL GENERATED ALWAYS AS (a * 2),
                PRIMARY KEY (b, a))
            """)
        let columns = try db.columns(in: "pair")
        #expect(columns.map(\.name) == ["a", "b", "c", "d"])
        #expect(columns.map(\.declaredType) == ["INTEGER", "TEXT", "", "REAL"])
        #expect(columns.map(\.isNotNull) == [true, false, false, false])
        #expect(columns.map(\.defaultValueSQL) == [nil, "'x'", nil, nil])
        #expect(columns.map(\.primaryKeyPosition) == [2, 1, 0, 0])
        #expect(columns.map(\.isGenerated) == [false, false, false, true])
    }

    @Test("columns of a missing table throw noSuchTable")
    func columnsOfMissingTable() throws {
        let db = try makeDatabase()
        #expect {
            _ = try db.columns(in: "ghost")
        } throws: { ($0 as? DatabaseError)?.reason == .noSuchTable("ghost") }
    }

    @Test("indexes list their columns, uniqueness, origin and partiality")
    func indexInfo() throws {
        let db = try makeDatabase()
        try db.execute("CREATE TABLE t (id TEXT PRIMARY KEY, a UNIQUE, b, c)")
        try db.execute("CREATE INDEX t_bc ON t (b, c) WHERE b > 0")
        try db.execute("CREATE INDEX t_expr ON t (lower(c))")
        let indexes = try db.indexes(on: "t").sorted { $0.name < $1.name }
        #expect(indexes.count == 4)
        let byName = Dictionary(uniqueKeysWithValues: indexes.map { ($0.name, $0) })
        #expect(byName["t_bc"]?.columns == ["b", "c"])
        #expect(byName["t_bc"]?.isPartial == true)
        #expect(byName["t_bc"]?.origin == .createIndex)
        #expect(byName["t_expr"]?.columns == [nil])
        let constraintIndexes = indexes.filter { $0.origin != .createIndex }
        #expect(Set(constraintIndexes.map(\.origin)) == [.uniqueConstraint, .primaryKeyConstraint])
        #expect(constraintIndexes.allSatisfy { $0.isUnique })
    }

    @Test("foreign keys group their columns and report their actions")
    func foreignKeyInfo() throws {
        let db = try makeDatabase()
        try db.execute("CREATE TABLE parent (a, b, PRIMARY KEY (a, b))")
        try db.execute(
            "CREATE TABLE child (x, y, z REFERENCES victim ON DELETE CASCADE, FOREIGN KEY (x, y) REFERENCES parent (a, b))"
        )
        let keys = try db.foreignKeys(in: "child")
        #expect(keys.count == 2)
        let parentKey = try #require(keys.first { $0.destinationTable == "parent" })
        #expect(parentKey.columns.map(\.origin) == ["x", "y"])
        #expect(parentKey.columns.map(\.destination) == ["a", "b"])
        let victimKey = try #require(keys.first { $0.destinationTable == "victim" })
        #expect(victimKey.columns.map(\.destination) == [nil])
        #expect(victimKey.onDelete == "CASCADE")
        #expect(victimKey.onUpdate == "NO ACTION")
    }

    @Test("the schema listing holds every object in creation order")
    func schemaListing() throws {
        let db = try makeDatabase()
        try db.execute("CREATE TABLE t (a UNIQUE)")
        try db.execute("CREATE VIEW v AS SELECT a FROM t")
        try db.execute("CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1; END")
        let objects = try db.schemaObjects(includingInternal: true)
        #expect(objects.map(\.type) == [.table, .table, .index, .view, .trigger])
        #expect(objects.map(\.name) == ["victim", "t", "sqlite_autoindex_t_1", "v", "tr"])
        #expect(objects[2].sql == nil)
        #expect(objects[2].tableName == "t")
        #expect(objects[3].sql == "CREATE VIEW v AS SELECT a FROM t")
    }

    @Test("the schema listing leaves out SQLite's own objects unless asked for them")
    func schemaListingWithoutInternalObjects() throws {
        let db = try makeDatabase()
        try db.execute("CREATE TABLE counter (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE)")
        try db.execute("CREATE INDEX counter_name ON counter (name)")
        try db.execute("INSERT INTO counter (name) VALUES ('a')")
        try db.execute("ANALYZE")
        #expect(try db.schemaObjects().map(\.name) == ["victim", "counter", "counter_name"])
        let all = try db.schemaObjects(includingInternal: true).map(\.name)
        #expect(Set(all).isSuperset(of: ["sqlite_sequence", "sqlite_autoindex_counter_1", "sqlite_stat1"]))
        // A name that merely contains the prefix, or matches it with `_` as a wildcard, stays listed.
        try db.execute("CREATE TABLE sqlitex_notes (x)")
        try db.execute("CREATE TABLE my_sqlite_notes (x)")
        #expect(try db.schemaObjects().map(\.name).suffix(2) == ["sqlitex_notes", "my_sqlite_notes"])
    }

    @Test("columnExists: case-insensitive, false for a missing table or column, in any schema")
    func columnExistence() throws {
        let db = try makeDatabase()
        try db.execute("CREATE TABLE player (id INTEGER PRIMARY KEY, Name TEXT, total INT GENERATED ALWAYS AS (id))")
        try db.execute("CREATE VIEW names AS SELECT name AS label FROM player")
        #expect(try db.columnExists("name", in: "player"))
        #expect(try db.columnExists("NAME", in: "PLAYER"))
        #expect(try db.columnExists("total", in: "player"))
        #expect(try db.columnExists("label", in: "names"))
        #expect(try !db.columnExists("email", in: "player"))
        #expect(try !db.columnExists("name", in: "no_such_table"))
        try db.execute("ATTACH DATABASE ':memory:' AS other")
        try db.execute("CREATE TABLE other.archive (kept_at REAL)")
        try db.execute("CREATE TEMP TABLE scratch (note TEXT)")
        #expect(try db.columnExists("kept_at", in: "archive", schema: "other"))
        #expect(try !db.columnExists("kept_at", in: "archive"))
        #expect(try db.columnExists("NOTE", in: "scratch", schema: "temp"))
        let error = try #require(throws: DatabaseError.self) { try db.columnExists("x", in: "t", schema: "nope") }
        #expect(error.reason == .noSuchSchema("nope"))
        // A hidden column of a virtual table is not a column, as in columns(in:).
        try db.execute("CREATE VIRTUAL TABLE doc USING fts5(body)")
        #expect(try db.columnExists("body", in: "doc"))
        #expect(try !db.columnExists("rank", in: "doc"))
    }

    // MARK: Validation

    @Test("validate compiles every statement of a script without running any")
    func validateScript() throws {
        let db = try makeDatabase()
        try db.validate("INSERT INTO victim (x) VALUES (1); DELETE FROM victim; -- a comment")
        #expect(try db.queryValue("SELECT count(*) FROM victim", as: Int.self) == 0)
    }

    @Test("validate reports an error in a later statement, with its offset in the whole script")
    func validateLaterStatement() throws {
        let db = try makeDatabase()
        let script = "SELECT 1; SELECT x FROM victim; SELECT nope FROM victim"
        let error = try #require(throws: DatabaseError.self) { try db.validate(script) }
        #expect(error.code == .error)
        #expect(error.message.contains("nope"))
        let offset = try #require(error.errorOffset)
        #expect(script.utf8.dropFirst(offset).starts(with: "nope".utf8))
    }

    // MARK: Header values

    @Test("user_version and application_id round-trip, including the four-character form")
    func headerValues() throws {
        let db = try makeDatabase()
        #expect(try db.userVersion() == 0)
        try db.setUserVersion(42)
        #expect(try db.userVersion() == 42)
        try db.setUserVersion(-1)
        #expect(try db.userVersion() == -1)
        #expect(try db.applicationID() == 0)
        #expect(try db.applicationIDFourCharacterCode() == nil)
        try db.setApplicationID(fourCharacterCode: "SQTK")
        // 'S' 'Q' 'T' 'K' = 0x53 0x51 0x54 0x4B, big-endian.
        #expect(try db.applicationID() == 0x5351_544B)
        #expect(try db.applicationIDFourCharacterCode() == "SQTK")
        try db.setApplicationID(Int32(bitPattern: 0xFFFF_FFFF))
        #expect(try db.applicationID() == -1)
    }

    @Test("a four-character code of the wrong length or not ASCII is refused", arguments: ["", "ABC", "ABCDE", "ÄBC"])
    func invalidFourCharacterCode(code: String) throws {
        let db = try makeDatabase()
        #expect {
            try db.setApplicationID(fourCharacterCode: code)
        } throws: { ($0 as? DatabaseError)?.reason == .invalidApplicationID }
        #expect(try db.applicationID() == 0)
    }

    // MARK: Checks

    @Test("integrity and quick checks of a sound database are OK")
    func soundDatabase() throws {
        let db = try makeDatabase()
        try db.execute("CREATE TABLE t (a UNIQUE)")
        try db.execute("INSERT INTO t VALUES (1), (2)")
        #expect(try db.integrityCheck() == Database.IntegrityReport(problems: []))
        #expect(try db.quickCheck().isOK)
    }

    @Test("the integrity check reports a row that breaks a NOT NULL column added without checks")
    func integrityProblem() throws {
        try TemporaryFile.withDatabasePath { path in
            var configuration = Database.Configuration()
            configuration.isDefensive = false
            let db = try Database(path: path, configuration: configuration)
            try db.execute("CREATE TABLE t (a)")
            try db.execute("INSERT INTO t VALUES (NULL)")
            // Edit the stored schema directly, as only writable_schema allows: the existing row now breaks it.
            try db.execute("PRAGMA writable_schema = ON")
            try db.execute("UPDATE sqlite_schema SET sql = 'CREATE TABLE t (a NOT NULL)' WHERE name = 't'")
            try db.execute("PRAGMA writable_schema = OFF")
            db.close()
            let reopened = try Database(path: path)
            let report = try reopened.integrityCheck()
            #expect(!report.isOK)
            #expect(report.problems.contains { $0.contains("NULL value in t.a") })
            #expect(try reopened.integrityCheck(maximumProblems: 1).problems.count == 1)
        }
    }

    @Test("foreign-key violations name the table, the row and the referenced table")
    func foreignKeyViolations() throws {
        var configuration = Database.Configuration()
        configuration.foreignKeysEnabled = false
        let db = try Database(configuration: configuration)
        try db.execute("CREATE TABLE parent (id INTEGER PRIMARY KEY)")
        try db.execute("CREATE TABLE child (id INTEGER PRIMARY KEY, parent REFERENCES parent)")
        try db.execute("INSERT INTO parent VALUES (1)")
        try db.execute("INSERT INTO child VALUES (10, 1), (11, 2), (12, 3)")
        let violations = try db.foreignKeyViolations()
        #expect(violations.map(\.rowID) == [11, 12])
        #expect(
            violations.allSatisfy { $0.table == "child" && $0.destinationTable == "parent" && $0.foreignKeyID == 0 })
        #expect(try db.foreignKeyViolations(in: "parent").isEmpty)
    }
}
