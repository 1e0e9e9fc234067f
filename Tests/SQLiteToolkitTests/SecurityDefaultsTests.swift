import Foundation
import SQLiteToolkit
import Testing

/// The defaults that protect a program from hostile SQL and hostile database files (README, "Security").
@Suite("Security defaults")
struct SecurityDefaultsTests {
    @Test("defensive mode: SQL cannot write the schema table, even after PRAGMA writable_schema")
    func defensiveRefusesSchemaWrites() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        try db.execute("PRAGMA writable_schema = ON")
        #expect(throws: DatabaseError.self) {
            try db.execute("UPDATE sqlite_schema SET sql = 'CREATE TABLE t (y)' WHERE name = 't'")
        }
        #expect(
            try db.queryValue("SELECT sql FROM sqlite_schema WHERE name = 't'", as: String.self) == "CREATE TABLE t (x)"
        )
    }

    @Test("defensive mode: PRAGMA journal_mode = OFF is refused, so a crash cannot leave a half-written file")
    func defensiveKeepsTheJournal() throws {
        try TemporaryFile.withDatabasePath { path in
            let db = try Database(path: path)
            defer { db.close() }
            let mode = try db.queryValue("PRAGMA journal_mode = OFF", as: String.self)
            #expect(mode != "off")
        }
    }

    @Test("trusted_schema is off: PRAGMA trusted_schema reads 0 on a new connection")
    func trustedSchemaOff() throws {
        let db = try Database()
        #expect(try db.queryValue("PRAGMA trusted_schema", as: Int.self) == 0)
    }

    @Test("trusted_schema off: a view cannot call a function not marked innocuous; PRAGMA trusted_schema=ON allows it")
    func untrustedSchemaRefusesFunctions() throws {
        try TemporaryFile.withDatabasePath { path in
            let db = try Database(path: path)
            defer { db.close() }
            let handle = try #require(db.handle)
            let flags: FunctionFlags = [.utf8]
            #expect(
                handle.createScalarFunction(name: "side_effect", argumentCount: 0, flags: flags) { context, _ in
                    context.resultInt64(42)
                } == .ok)
            #expect(
                handle.createScalarFunction(name: "harmless", argumentCount: 0, flags: [.utf8, .innocuous]) {
                    context, _ in context.resultInt64(7)
                } == .ok)
            try db.execute("CREATE VIEW risky AS SELECT side_effect() AS v")
            try db.execute("CREATE VIEW safe AS SELECT harmless() AS v")
            // Called directly, by the program's own SQL, the function runs.
            #expect(try db.queryValue("SELECT side_effect()", as: Int.self) == 42)
            // Called by the file's schema, it is refused: the file is not trusted.
            let error = try #require(throws: DatabaseError.self) {
                try db.queryValue("SELECT v FROM risky", as: Int.self)
            }
            #expect(error.message.contains("unsafe use of side_effect"))
            #expect(try db.queryValue("SELECT v FROM safe", as: Int.self) == 7)
            try db.execute("PRAGMA trusted_schema = ON")
            #expect(try db.queryValue("SELECT v FROM risky", as: Int.self) == 42)
        }
    }

    @Test("loading extensions is compiled in but off: load_extension() is not authorized")
    func loadExtensionOff() throws {
        #expect(!SQLiteLibrary.isCompileOptionUsed("OMIT_LOAD_EXTENSION"))
        let db = try Database()
        let error = try #require(throws: DatabaseError.self) {
            try db.execute("SELECT load_extension('libc.so.6')")
        }
        #expect(error.message.contains("not authorized"))
    }

    @Test("temporary tables and indices are kept in memory, never in an (unencrypted) temporary file")
    func temporaryStoreInMemory() throws {
        #expect(SQLiteLibrary.isCompileOptionUsed("TEMP_STORE=2"))
        let db = try Database()
        // 0 is "the compile-time default", which TEMP_STORE=2 makes memory.
        #expect(try db.queryValue("PRAGMA temp_store", as: Int.self) == 0)
    }

    @Test("double-quoted strings are identifiers: a typo is an error, not a string")
    func doubleQuotedStringsOff() throws {
        #expect(SQLiteLibrary.isCompileOptionUsed("DQS=0"))
        let db = try Database()
        try db.execute("CREATE TABLE t (name)")
        #expect(throws: DatabaseError.self) { try db.execute("SELECT \"nme\" FROM t") }
    }

    @Test("an error never carries the bound values unless the connection opted in")
    func errorsCarryNoUserData() throws {
        let secret = "correct horse battery staple"
        let db = try Database()
        try db.execute("CREATE TABLE t (x UNIQUE)")
        try db.execute("INSERT INTO t VALUES (?)", secret)
        let error = try #require(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (?)", secret) }
        #expect(!error.description.contains(secret))
        #expect(!"\(error)".contains("horse"))
    }
}
