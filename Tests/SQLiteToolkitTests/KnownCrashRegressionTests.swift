import Foundation
import SQLiteToolkit
import Testing

/// Crashes that were reachable through the public API, found by a randomized probe of the connection layer: each
/// took the whole test process down before its fix (use after close, close inside a callback, the date parser's
/// overflow, SQL after a NUL), and each test states the behaviour the fix gives.
@Suite("Regression tests: crashes found by the randomized probe")
struct KnownCrashRegressionTests {
    @Test("a transaction after close() throws connectionClosed")
    func transactionAfterClose() throws {
        let db = try Database()
        try db.transaction { _ in }
        db.close()
        for call: (Database) throws -> Void in [
            { try $0.transaction { _ in } }, { try $0.beginTransaction() }, { try $0.commit() },
            { try $0.inTransaction { _ in .commit } },
        ] {
            let error = try #require(throws: DatabaseError.self) { try call(db) }
            #expect(error.reason == .connectionClosed)
        }
    }

    @Test("closing the connection inside a trace callback does not free the running statement")
    func closeInsideTrace() throws {
        let db = try Database()
        var traced = 0
        try db.trace { _ in
            traced += 1
            db.close()
        }
        // The traced statement runs to its end on the connection the close retired, then the close completes.
        try db.execute("SELECT 1")
        #expect(traced == 1)
        #expect(!db.isOpen)
        let error = try #require(throws: DatabaseError.self) { try db.execute("SELECT 2") }
        #expect(error.reason == .connectionClosed)
        #expect(traced == 1)
    }

    @Test("closing the connection inside a progress handler does not free the running statement")
    func closeInsideProgressHandler() throws {
        let db = try Database()
        var calls = 0
        try db.setProgressHandler(every: 1) {
            calls += 1
            db.close()
            return false
        }
        let sql =
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000) SELECT count(*) FROM c"
        // Called every instruction, the handler first runs while SQLite prepares the statement (it reads the schema
        // then), before the statement exists: the close it makes there reaches the statement prepared after it,
        // which never runs on the closed connection. A close from the handler once the statement runs throws too
        // (CloseInCallbackTests).
        let error = #expect(throws: DatabaseError.self) { try db.queryValue(sql, as: Int.self) }
        #expect(error?.reason == .connectionClosed)
        #expect(calls >= 1)
        #expect(!db.isOpen)
        let later = try #require(throws: DatabaseError.self) { try db.execute("SELECT 1") }
        #expect(later.reason == .connectionClosed)
    }

    @Test("a Date read from text with 20 fraction digits is the instant its first nine digits name")
    func dateWithLongFraction() throws {
        let db = try Database()
        let text = "2026-01-01 00:00:00." + "123456789" + String(repeating: "9", count: 11)
        let expected = 1_767_225_600.123_456_789  // 2026-01-01 00:00:00.123456789 UTC
        let date = try #require(try db.queryValue("SELECT ?", text, as: Date.self))
        #expect(abs(date.timeIntervalSince1970 - expected) < 1e-6)
        let iso = try #require(try db.queryValue("SELECT ?", text, as: ISO8601Date.self))
        #expect(iso.date == date)
    }

    @Test("SQL after an embedded NUL is not silently dropped: the script is refused before anything runs")
    func embeddedNULInSQL() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        let error = try #require(throws: DatabaseError.self) {
            try db.executeScript("INSERT INTO t VALUES (1);\u{0}INSERT INTO t VALUES (2)")
        }
        #expect(error.code == .misuse)
        #expect(error.reason == .embeddedNUL(offset: 25))
        #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 0)
    }
}
