import CSQLiteToolkit
import Foundation
import SQLiteBindings
import Testing

// MARK: - Helpers shared with FunctionTests.swift

/// A failed SQLite call in a test, with the connection's message.
struct CallbackTestFailure: Error, CustomStringConvertible {
    var code: ResultCode
    var message: String

    var description: String { "\(code): \(message)" }
}

/// A connection for one test, opened through the C API so these tests depend only on the callback wrappers they
/// test. In memory unless given a path; closed on deinit when the test did not close it.
final class CallbackTestDatabase {
    let handle: ConnectionHandle
    private var isOpen = true

    init(path: String = ":memory:") throws {
        var connection: OpaquePointer?
        let code = sqltk_sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
        guard code == SQLITE_OK, let connection else {
            sqltk_sqlite3_close(connection)
            throw CallbackTestFailure(code: ResultCode(rawValue: code), message: "cannot open \(path)")
        }
        handle = ConnectionHandle(rawValue: connection)
    }

    deinit {
        if isOpen { sqltk_sqlite3_close(handle.rawValue) }
    }

    /// Closes the connection with `sqlite3_close`.
    func close() -> ResultCode {
        isOpen = false
        return ResultCode(rawValue: sqltk_sqlite3_close(handle.rawValue))
    }

    /// The connection's last error message.
    var errorMessage: String { String(cString: sqltk_sqlite3_errmsg(handle.rawValue)) }

    /// Runs every statement of `sql`, throwing on failure.
    func execute(_ sql: String) throws {
        let code = handle.exec(sql: sql)
        guard code == .ok else { throw CallbackTestFailure(code: code, message: errorMessage) }
    }

    /// Prepares one statement, returning the code and, on success, the statement.
    func prepare(_ sql: String) -> (code: ResultCode, statement: OpaquePointer?) {
        var statement: OpaquePointer?
        let code = sqltk_sqlite3_prepare_v2(handle.rawValue, sql, -1, &statement, nil)
        return (ResultCode(rawValue: code), statement)
    }

    /// Runs one statement to completion and returns what its last step returned (`.done` on success).
    func run(_ sql: String) -> ResultCode {
        let (code, statement) = prepare(sql)
        guard code == .ok, let statement else { return code }
        defer { sqltk_sqlite3_finalize(statement) }
        var result = SQLITE_ROW
        while result == SQLITE_ROW { result = sqltk_sqlite3_step(statement) }
        return ResultCode(rawValue: result)
    }

    /// The rows of one query, each column as text (`nil` for NULL).
    func rows(_ sql: String, bind: (OpaquePointer) -> Void = { _ in }) throws -> [[String?]] {
        let (code, prepared) = prepare(sql)
        guard code == .ok, let statement = prepared else {
            throw CallbackTestFailure(code: code, message: errorMessage)
        }
        defer { sqltk_sqlite3_finalize(statement) }
        bind(statement)
        var rows: [[String?]] = []
        while true {
            let step = sqltk_sqlite3_step(statement)
            if step == SQLITE_DONE { return rows }
            guard step == SQLITE_ROW else {
                throw CallbackTestFailure(code: ResultCode(rawValue: step), message: errorMessage)
            }
            rows.append(
                (0..<sqltk_sqlite3_column_count(statement)).map { column in
                    sqltk_sqlite3_column_text(statement, column).map { String(cString: $0) }
                }
            )
        }
    }

    /// The first column of every row of a query, as text.
    func column(_ sql: String) throws -> [String?] {
        try rows(sql).map { $0.first ?? nil }
    }
}

/// Counts the deinits of ``Canary`` instances, to prove that callback closures are released.
final class DeinitCounter {
    var count = 0
}

/// An object a callback closure captures: its deinit shows that the closure was released.
final class Canary {
    let counter: DeinitCounter

    init(_ counter: DeinitCounter) {
        self.counter = counter
    }

    deinit {
        counter.count += 1
    }

    /// Does nothing; a closure calls it to capture the canary.
    func touch() {}
}

/// A unique temporary database file, removed with its journal and WAL files.
struct TemporaryDatabaseFile {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("sqltk-callbacks-\(UUID().uuidString).sqlite").path

    func remove() {
        for suffix in ["", "-journal", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}

// MARK: - Tests

@Suite("Connection callbacks")
struct CallbackTests {
    @Test("the busy handler is called with increasing retry counts while another connection holds a write lock")
    func busyHandlerRetries() throws {
        let file = TemporaryDatabaseFile()
        defer { file.remove() }
        let writer = try CallbackTestDatabase(path: file.path)
        let waiter = try CallbackTestDatabase(path: file.path)
        try writer.execute("CREATE TABLE t(x); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)")

        var retryCounts: [Int32] = []
        #expect(
            waiter.handle.setBusyHandler { retryCount in
                retryCounts.append(retryCount)
                return retryCount < 3
            } == .ok
        )
        #expect(waiter.handle.exec(sql: "BEGIN IMMEDIATE") == .busy)
        #expect(retryCounts == [0, 1, 2, 3])

        try writer.execute("COMMIT")
        #expect(waiter.handle.exec(sql: "BEGIN IMMEDIATE; COMMIT") == .ok)
    }

    @Test("a busy handler closure is released when replaced, removed, and when the connection closes")
    func busyHandlerReleased() throws {
        let database = try CallbackTestDatabase()
        let counter = DeinitCounter()
        do {
            let first = Canary(counter)
            #expect(
                database.handle.setBusyHandler { _ in
                    first.touch()
                    return false
                } == .ok)
        }
        #expect(counter.count == 0)
        do {
            let second = Canary(counter)
            #expect(
                database.handle.setBusyHandler { _ in
                    second.touch()
                    return false
                } == .ok)
        }
        #expect(counter.count == 1)
        #expect(database.handle.setBusyHandler(nil) == .ok)
        #expect(counter.count == 2)
        do {
            let third = Canary(counter)
            #expect(
                database.handle.setBusyHandler { _ in
                    third.touch()
                    return false
                } == .ok)
        }
        #expect(database.close() == .ok)
        #expect(counter.count == 3)
    }

    @Test("the trace handler reports statements, rows, profiles and the close")
    func traceEvents() throws {
        let database = try CallbackTestDatabase()
        var statements: [String] = []
        var rows = 0
        var profiles = 0
        var closes = 0
        #expect(
            database.handle.setTraceHandler(events: [.stmt, .profile, .row, .close]) { event in
                switch event {
                case .statement(_, let sql): statements.append(sql)
                case .profile(_, let nanoseconds): if nanoseconds >= 0 { profiles += 1 }
                case .row(let statement):
                    // SQLite's own statements (reloading the schema after CREATE TABLE) report rows too.
                    if sqltk_sqlite3_sql(statement.rawValue).map({ String(cString: $0) })
                        == "SELECT x FROM t ORDER BY x"
                    {
                        rows += 1
                    }
                case .close: closes += 1
                }
            } == .ok
        )
        try database.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)")
        #expect(try database.column("SELECT x FROM t ORDER BY x") == ["1", "2"])
        #expect(statements == ["CREATE TABLE t(x);", "INSERT INTO t VALUES (1), (2)", "SELECT x FROM t ORDER BY x"])
        #expect(rows == 2)
        #expect(profiles == 3)
        #expect(database.close() == .ok)
        #expect(closes == 1)
    }

    @Test("a trace handler closure is released when replaced and when the connection closes")
    func traceHandlerReleased() throws {
        let database = try CallbackTestDatabase()
        let counter = DeinitCounter()
        var firstCalls = 0
        var secondCalls = 0
        do {
            let canary = Canary(counter)
            #expect(
                database.handle.setTraceHandler(events: .stmt) { _ in
                    canary.touch()
                    firstCalls += 1
                } == .ok
            )
        }
        try database.execute("SELECT 1")
        do {
            let canary = Canary(counter)
            #expect(
                database.handle.setTraceHandler(events: .stmt) { _ in
                    canary.touch()
                    secondCalls += 1
                } == .ok
            )
        }
        #expect(counter.count == 1)
        try database.execute("SELECT 2")
        #expect(firstCalls == 1)
        #expect(secondCalls == 1)
        #expect(database.close() == .ok)
        #expect(counter.count == 2)
    }

    @Test("a progress handler that returns true interrupts a long query")
    func progressHandlerInterrupts() throws {
        let database = try CallbackTestDatabase()
        var calls = 0
        database.handle.setProgressHandler(every: 100) {
            calls += 1
            return calls >= 10
        }
        let code = database.run(
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c")
        #expect(code == .interrupt)
        #expect(calls == 10)

        database.handle.setProgressHandler(every: 100, nil)
        #expect(
            database.run(
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 5000) SELECT count(*) FROM c")
                == .done)
        #expect(calls == 10)
    }

    @Test("a commit hook that returns true turns the commit into a rollback")
    func commitHookRollsBack() throws {
        let database = try CallbackTestDatabase()
        try database.execute("CREATE TABLE t(x)")
        var rollbacks = 0
        database.handle.setCommitHook { true }
        database.handle.setRollbackHook { rollbacks += 1 }

        let code = database.handle.exec(sql: "INSERT INTO t VALUES (1)")
        #expect(code == .constraint)
        #expect(sqltk_sqlite3_extended_errcode(database.handle.rawValue) == ResultCode.constraintCommithook.rawValue)
        #expect(rollbacks == 1)

        database.handle.setCommitHook(nil)
        #expect(try database.column("SELECT count(*) FROM t") == ["0"])
        try database.execute("INSERT INTO t VALUES (2)")
        #expect(try database.column("SELECT x FROM t") == ["2"])
    }

    @Test("the update hook sees inserts, updates and deletes with their rowids")
    func updateHookSeesChanges() throws {
        let database = try CallbackTestDatabase()
        try database.execute("CREATE TABLE t(x)")
        var changes: [String] = []
        database.handle.setUpdateHook { operation, schema, table, rowid in
            changes.append("\(operation.name ?? "?") \(schema).\(table) \(rowid)")
        }
        try database.execute("INSERT INTO t VALUES ('a'), ('b'); UPDATE t SET x = 'c' WHERE rowid = 2")
        try database.execute("DELETE FROM t WHERE rowid = 1")
        #expect(
            changes == [
                "SQLITE_INSERT main.t 1", "SQLITE_INSERT main.t 2", "SQLITE_UPDATE main.t 2", "SQLITE_DELETE main.t 1",
            ]
        )
    }

    @Test("an authorizer that denies inserts makes their prepare fail with SQLITE_AUTH")
    func authorizerDenies() throws {
        let database = try CallbackTestDatabase()
        try database.execute("CREATE TABLE t(x)")
        var readColumns: [String] = []
        #expect(
            database.handle.setAuthorizer { action, first, second, _, _ in
                if action == .read { readColumns.append("\(first ?? "").\(second ?? "")") }
                return action == .insert ? .deny : .ok
            } == .ok
        )
        let (code, statement) = database.prepare("INSERT INTO t VALUES (1)")
        #expect(code == .auth)
        #expect(statement == nil)
        #expect(database.errorMessage == "not authorized")
        #expect(try database.column("SELECT x FROM t") == [])
        #expect(readColumns == ["t.x"])

        #expect(database.handle.setAuthorizer(nil) == .ok)
        try database.execute("INSERT INTO t VALUES (1)")
    }

    @Test("every hook closure is released when the connection closes")
    func hooksReleasedOnClose() throws {
        let database = try CallbackTestDatabase()
        let counter = DeinitCounter()
        do {
            let canaries = (0..<7).map { _ in Canary(counter) }
            #expect(
                database.handle.setBusyHandler { _ in
                    canaries[0].touch()
                    return false
                } == .ok)
            #expect(database.handle.setTraceHandler(events: .stmt) { _ in canaries[1].touch() } == .ok)
            #expect(
                database.handle.setProgressHandler(every: 1000) {
                    canaries[2].touch()
                    return false
                } == .ok)
            #expect(
                database.handle.setCommitHook {
                    canaries[3].touch()
                    return false
                } == .ok)
            #expect(database.handle.setRollbackHook { canaries[4].touch() } == .ok)
            #expect(database.handle.setUpdateHook { _, _, _, _ in canaries[5].touch() } == .ok)
            #expect(
                database.handle.setAuthorizer { _, _, _, _, _ in
                    canaries[6].touch()
                    return .ok
                } == .ok)
        }
        try database.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        #expect(counter.count == 0)
        #expect(database.close() == .ok)
        #expect(counter.count == 7)
    }

    @Test("closing in a transaction releases the rollback hook without calling it after release")
    func rollbackHookAtClose() throws {
        let database = try CallbackTestDatabase()
        let counter = DeinitCounter()
        var rollbacks = 0
        do {
            let canary = Canary(counter)
            database.handle.setRollbackHook {
                canary.touch()
                rollbacks += 1
            }
        }
        try database.execute("CREATE TABLE t(x); BEGIN; INSERT INTO t VALUES (1)")
        #expect(database.close() == .ok)
        #expect(counter.count == 1)
        #expect(rollbacks == 0)
    }
}
