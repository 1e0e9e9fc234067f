import Foundation
import SQLiteToolkit
import Testing

/// Every path that reaches a statement handle checks that the connection is still open. Before these checks, a
/// transaction after `close()` ran `sqlite3_step` on the finalized `BEGIN` statement (heap-use-after-free).
/// Run under `swift test --sanitize=address` to see a regression as a crash rather than a flaky result.
@Suite("Use after close")
struct UseAfterCloseTests {
    /// Checks that `body` throws the closed-connection error.
    private func expectClosed(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: DatabaseError.self, sourceLocation: sourceLocation) { try body() }
        #expect(error?.reason == .connectionClosed, sourceLocation: sourceLocation)
        #expect(error?.code == .misuse, sourceLocation: sourceLocation)
    }

    @Test("a transaction after close throws instead of stepping the finalized BEGIN")
    func transactionAfterClose() throws {
        let db = try Database()
        try db.transaction { _ in }
        db.close()
        expectClosed { try db.transaction { _ in } }
        expectClosed { try db.inTransaction { _ in .commit } }
        expectClosed { try db.beginTransaction() }
        expectClosed { try db.commit() }
        // With no transaction open, rollback has nothing to do, closed or not.
        try db.rollback()
    }

    @Test(
        "each transaction kind's cached statement is dropped on close",
        arguments: [
            Database.TransactionKind.deferred, .immediate, .exclusive,
        ])
    func everyTransactionKind(_ kind: Database.TransactionKind) throws {
        let db = try Database()
        try db.inTransaction(kind) { _ in .rollback }
        try db.inTransaction(kind) { _ in .commit }
        db.close()
        expectClosed { try db.inTransaction(kind) { _ in .commit } }
    }

    @Test("a cached statement after close throws")
    func cachedStatementAfterClose() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        try db.execute("INSERT INTO t VALUES (?)", 1)
        #expect(try db.queryValue("SELECT x FROM t", as: Int.self) == 1)
        db.close()
        expectClosed { try db.execute("INSERT INTO t VALUES (?)", 1) }
        expectClosed { _ = try db.queryValue("SELECT x FROM t", as: Int.self) }
        expectClosed { _ = try db.queryRequiredValue("SELECT x FROM t", as: Int.self) }
        expectClosed { _ = try db.query("SELECT x FROM t") }
        expectClosed { try db.executeScript("SELECT 1") }
    }

    @Test("a savepoint after close throws")
    func savepointAfterClose() throws {
        let db = try Database()
        try db.savepoint { _ in }
        db.close()
        expectClosed { try db.savepoint { _ in } }
    }

    @Test("a cursor left open across close throws on its next row")
    func cursorAfterClose() throws {
        let db = try Database()
        let rows = try db.query("SELECT 1 UNION ALL SELECT 2")
        let row = try #require(try rows.next())
        db.close()
        expectClosed { _ = try row.value(at: 0, as: Int.self) }
        expectClosed { _ = try rows.next() }
        #expect(row[0] == .null)
    }

    @Test("a statement kept by the user throws on every use after close")
    func userStatementAfterClose() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        let insert = try db.prepare("INSERT INTO t VALUES (?)")
        try insert.execute(1)
        let select = try db.prepare("SELECT x FROM t")
        #expect(try select.step())
        db.close()
        expectClosed { try insert.execute(2) }
        expectClosed { try insert.execute(arguments: [2]) }
        expectClosed { try insert.bind(2) }
        expectClosed { try insert.reset() }
        expectClosed { try insert.clearBindings() }
        expectClosed { _ = try select.step() }
        expectClosed { _ = try select.query() }
        expectClosed { _ = try select.currentRow.value(at: 0, as: Int.self) }
        expectClosed { _ = try select.columnIndex(forName: "x") }
        #expect(select.columnNames == ["x"])
        #expect(select.expandedSQL == nil)
    }

    @Test("a statement that outlives its connection is released without touching it")
    func statementOutlivesConnection() throws {
        var db: Database? = try Database()
        let statement = try #require(try db?.prepare("SELECT 1"))
        db = nil
        expectClosed { _ = try statement.step() }
    }
}
