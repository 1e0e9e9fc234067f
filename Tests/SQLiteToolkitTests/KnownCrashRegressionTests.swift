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
        try db.trace { _ in db.close() }
        do { try db.execute("SELECT 1") } catch is DatabaseError {}
        do { try db.execute("SELECT 2") } catch is DatabaseError {}
        db.close()
        #expect(!db.isOpen)
    }

    @Test("closing the connection inside a progress handler does not free the running statement")
    func closeInsideProgressHandler() throws {
        let db = try Database()
        try db.setProgressHandler(every: 1) {
            db.close()
            return false
        }
        do {
            _ = try db.queryValue(
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000) SELECT count(*) FROM c",
                as: Int.self)
        } catch is DatabaseError {}
        db.close()
        #expect(!db.isOpen)
    }

    @Test("a Date read from text with 20 fraction digits is a date or a typed error")
    func dateWithLongFraction() throws {
        let db = try Database()
        let text = "2026-01-01 00:00:00." + String(repeating: "9", count: 20)
        let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01 00:00:00 UTC
        do {
            let date = try #require(try db.queryValue("SELECT ?", text, as: Date.self))
            #expect(date >= start && date <= start.addingTimeInterval(1))
        } catch is DatabaseError {}
        do { _ = try db.queryValue("SELECT ?", text, as: ISO8601Date.self) } catch is DatabaseError {}
    }

    @Test("SQL after an embedded NUL is not silently dropped")
    func embeddedNULInSQL() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        do {
            try db.executeScript("INSERT INTO t VALUES (1);\u{0}INSERT INTO t VALUES (2)")
            #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 2)
        } catch is DatabaseError {
            // Rejecting the NUL with a typed error is the other correct answer.
        }
    }
}
