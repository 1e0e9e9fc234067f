import Testing

@testable import SQLiteToolkit

/// Keys spelled out in SQL text never reach an error or a trace.
@Suite("Keys written into SQL are left out of errors and traces")
struct AttachKeyLiteralTests {
    @Test(
        "the literal after KEY or a key pragma, and a file: URI's key parameters, are hidden",
        arguments: [
            ("ATTACH 'a.db' AS e KEY 'secret'", "ATTACH 'a.db' AS e KEY '…'"),
            ("attach 'a.db' as e key x'00ff'", "attach 'a.db' as e key '…'"),
            ("ATTACH 'a.db' AS e KEY /* c */ 'it''s'", "ATTACH 'a.db' AS e KEY /* c */ '…'"),
            ("PRAGMA key = 'secret'", "PRAGMA key = '…'"),
            ("PRAGMA rekey('secret')", "PRAGMA rekey('…')"),
            ("ATTACH 'file:a.db?cipher=aes256cbc&key=secret' AS e", "ATTACH 'file:a.db?cipher=aes256cbc' AS e"),
            ("VACUUM INTO 'file:b.db?hexkey=00ff&kdf_iter=1'", "VACUUM INTO 'file:b.db?kdf_iter=1'"),
            ("ATTACH 'a.db' AS e KEY ?", "ATTACH 'a.db' AS e KEY ?"),
            ("SELECT 'key' FROM \"KEY\" WHERE x = 'secret'", "SELECT 'key' FROM \"KEY\" WHERE x = 'secret'"),
        ])
    func hidden(sql: String, expected: String) {
        #expect(DatabaseError.hidingKeys(in: sql).sql == expected)
    }

    @Test("an error offset into or past a hidden key is dropped, one before it kept")
    func errorOffset() {
        let sql = "ATTACH 'a.db' AS e KEY 'secret' junk"
        let before = DatabaseError(extendedCode: .error, message: "m", sql: sql, errorOffset: 7)
        #expect(before.errorOffset == 7)
        let after = DatabaseError(extendedCode: .error, message: "m", sql: sql, errorOffset: 32)
        #expect(after.errorOffset == nil)
        #expect(after.sql == "ATTACH 'a.db' AS e KEY '…' junk")
    }

    @Test("a trace and an error do not show the key parameter of a file: URI written into an ATTACH")
    func uriKeyInAttach() throws {
        try TemporaryFile.withDatabasePath { path in
            let db = try Database()
            let traced = TracedText()
            try db.trace(options: [.expandedSQL]) { traced.append($0.sql) }
            try db.execute("ATTACH 'file:\(path)?cipher=chacha20&kdf_iter=1&key=uri-secret' AS e")
            try db.execute("CREATE TABLE e.t(x)")
            #expect(traced.text.contains("ATTACH 'file:"), "\(traced.text)")
            #expect(!traced.text.contains("uri-secret"), "\(traced.text)")
            let error = try #require(throws: DatabaseError.self) {
                try db.execute("ATTACH 'file:\(path)?cipher=chacha20&kdf_iter=1&key=uri-secret' AS e")
            }
            #expect(!KeyChangeAdversarialTests.reveals(error, "uri-secret"), "\(error)")
        }
    }
}

/// A key in the URI that opens a database is refused at open, whatever its spelling.
@Suite("Keys in the URI given to open a database")
struct AttachKeyURIOpenTests {
    @Test(
        "key, hexkey and textkey parameters, in any case or percent-escaped, are refused at open",
        arguments: ["key=a-secret", "HexKey=00ff", "textkey=a-secret", "k%65y=a-secret", "mode=rwc&key=a-secret"])
    func refused(parameter: String) throws {
        try TemporaryFile.withDatabasePath { path in
            let error = try #require(throws: DatabaseError.self) { try Database(path: "file:\(path)?\(parameter)") }
            #expect(error.reason == .keyInURI)
            #expect(!error.description.contains("a-secret") && !error.description.contains("00ff"), "\(error)")
            #expect(error.path == nil)
        }
    }

    @Test("a URI without a key parameter still opens, and a queue refuses a URI key too")
    func otherParametersOpen() throws {
        try TemporaryFile.withDatabasePath { path in
            let db = try Database(path: "file:\(path)?mode=rwc&keyring=x&cache=private")
            try db.execute("CREATE TABLE t(x)")
            db.close()
            let error = try #require(throws: DatabaseError.self) {
                try DatabaseQueue(path: "file:\(path)?key=a-secret")
            }
            #expect(error.reason == .keyInURI)
        }
    }
}
