import Foundation
import SQLiteToolkit
import Testing

/// Closing a connection from inside one of its own callbacks is deferred until the statement that runs the callback
/// returns from SQLite. Before, the trace case finalized the running statement under SQLite (a crash in the VDBE) and
/// the progress-handler case released the running closure (a crash on an unowned reference).
@Suite("Closing from inside a callback")
struct CloseInCallbackTests {
    @Test("closing from a trace lets the traced statement finish, then the connection is closed")
    func closeFromTrace() throws {
        let db = try Database()
        var traced: [String] = []
        try db.trace { statement in
            traced.append(statement.sql)
            db.close()
        }
        try db.execute("CREATE TABLE t (x)")
        #expect(traced == ["CREATE TABLE t (x)"])
        #expect(!db.isOpen)
        let error = #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (1)") }
        #expect(error?.reason == .connectionClosed)
    }

    @Test("closing from a trace while a cursor reads: the next read throws, and nothing is freed under SQLite")
    func closeFromTraceDuringCursor() throws {
        let db = try Database()
        try db.trace { _ in db.close() }
        let rows = try db.query("SELECT 1 UNION ALL SELECT 2")
        let row = try #require(try rows.next())
        #expect(!db.isOpen)
        let readError = #expect(throws: DatabaseError.self) { _ = try row.value(at: 0, as: Int.self) }
        #expect(readError?.reason == .connectionClosed)
        let nextError = #expect(throws: DatabaseError.self) { _ = try rows.next() }
        #expect(nextError?.reason == .connectionClosed)
    }

    @Test("closing from a trace during queryValue and a kept statement")
    func closeFromTraceDuringQueryValue() throws {
        let db = try Database()
        let statement = try db.prepare("SELECT 42")
        try db.trace { _ in db.close() }
        let error = #expect(throws: DatabaseError.self) { _ = try db.queryValue("SELECT 1", as: Int.self) }
        #expect(error?.reason == .connectionClosed)
        let statementError = #expect(throws: DatabaseError.self) { _ = try statement.step() }
        #expect(statementError?.reason == .connectionClosed)
    }

    @Test("closing from a trace during COMMIT or BEGIN of a connection's kept transaction statements")
    func closeFromTraceDuringTransactionStatements() throws {
        for closingStatement in ["COMMIT", "BEGIN"] {
            let db = try Database()
            try db.execute("CREATE TABLE t (x)")
            // A first transaction prepares BEGIN and COMMIT; the second runs the kept statements.
            try db.transaction { db in try db.execute("INSERT INTO t VALUES (1)") }
            try db.trace { statement in
                if statement.sql.hasPrefix(closingStatement) { db.close() }
            }
            if closingStatement == "COMMIT" {
                // The traced COMMIT runs to its end, then the connection closes.
                try db.transaction { db in try db.execute("INSERT INTO t VALUES (2)") }
            } else {
                // BEGIN runs to its end; the body finds the connection closed.
                let error = #expect(throws: DatabaseError.self) {
                    try db.transaction { db in try db.execute("INSERT INTO t VALUES (2)") }
                }
                #expect(error?.reason == .connectionClosed)
            }
            #expect(!db.isOpen)
            let later = #expect(throws: DatabaseError.self) { try db.beginTransaction() }
            #expect(later?.reason == .connectionClosed)
        }
    }

    @Test("closing from a progress handler lets the statement finish")
    func closeFromProgressHandler() throws {
        let db = try Database()
        var calls = 0
        try db.setProgressHandler(every: 10) {
            calls += 1
            db.close()
            return false
        }
        // The statement runs to its end: the handler keeps being called after the close.
        try db.execute(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) SELECT count(*) FROM n")
        #expect(calls > 1)
        #expect(!db.isOpen)
        let error = #expect(throws: DatabaseError.self) { try db.execute("SELECT 1") }
        #expect(error?.reason == .connectionClosed)
    }

    @Test(
        "closing from a progress handler during queryValue or queryRequiredValue: the value is not read from the closed connection",
        arguments: [false, true])
    func closeFromProgressHandlerDuringQueryValue(required: Bool) throws {
        let db = try Database()
        try db.setProgressHandler(every: 10) {
            db.close()
            return false
        }
        let sql =
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100) SELECT count(*) FROM n"
        let error = #expect(throws: DatabaseError.self) {
            if required {
                _ = try db.queryRequiredValue(sql, as: Int.self)
            } else {
                _ = try db.queryValue(sql, as: Int.self)
            }
        }
        #expect(error?.reason == .connectionClosed)
        #expect(!db.isOpen)
    }

    @Test("closing from a progress handler that also interrupts")
    func closeAndInterruptFromProgressHandler() throws {
        let db = try Database()
        try db.setProgressHandler(every: 10) {
            db.close()
            return true
        }
        let error = #expect(throws: DatabaseError.self) {
            try db.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n")
        }
        #expect(error?.code == .interrupt)
        #expect(!db.isOpen)
    }

    @Test("closing from a busy handler fails the waiting statement with SQLITE_BUSY and closes afterwards")
    func closeFromBusyHandler() throws {
        try TemporaryFile.withDatabasePath { path in
            let holder = try Database(path: path)
            try holder.execute("CREATE TABLE t (x)")
            try holder.beginTransaction(.immediate)
            defer { try? holder.rollback() }
            nonisolated(unsafe) let waiter = try Database(path: path)
            nonisolated(unsafe) var calls = 0
            try waiter.setBusyMode(
                .handler { _ in
                    calls += 1
                    waiter.close()
                    return true
                })
            let error = #expect(throws: DatabaseError.self) { try waiter.execute("INSERT INTO t VALUES (1)") }
            #expect(error?.code == .busy || error?.reason == .connectionClosed)
            #expect(calls >= 1)
            #expect(!waiter.isOpen)
            let later = #expect(throws: DatabaseError.self) { try waiter.execute("SELECT 1") }
            #expect(later?.reason == .connectionClosed)
        }
    }

    @Test("closing from an executeScript row handler stops the script")
    func closeFromRowHandler() throws {
        let db = try Database()
        let error = #expect(throws: DatabaseError.self) {
            try db.executeScript("SELECT 1; SELECT 2; CREATE TABLE t (x)") { _ in db.close() }
        }
        #expect(error?.reason == .connectionClosed)
        #expect(!db.isOpen)
    }

    @Test(
        "a close deferred inside a callback releases the connection once the statement returned, also from a prepare"
    )
    func deferredCloseReleasesTheConnection() throws {
        weak var released: Database?
        do {
            let db = try Database()
            released = db
            // The handler captures its connection: only a completed close breaks that cycle.
            try db.setProgressHandler(every: 1) {
                db.close()
                return false
            }
            // The handler first runs while the statement is prepared: the close made there reaches that statement,
            // which throws instead of running on the closed connection.
            let error = #expect(throws: DatabaseError.self) {
                try db.queryValue(
                    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000) SELECT count(*) FROM c",
                    as: Int.self)
            }
            #expect(error?.reason == .connectionClosed)
            #expect(!db.isOpen)
            db.close()
        }
        #expect(released == nil)
    }

}
