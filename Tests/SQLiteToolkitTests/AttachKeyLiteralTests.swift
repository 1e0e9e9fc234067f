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
