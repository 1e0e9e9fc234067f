import Foundation
import SQLiteBindings
import SQLiteToolkit
import Testing

@Suite("Transactions")
struct TransactionTests {
    /// A database with an empty table `t (x UNIQUE)`.
    private func makeDatabase() throws -> Database {
        let db = try Database()
        try db.execute("CREATE TABLE t (x UNIQUE)")
        return db
    }

    private func count(_ db: Database) throws -> Int? {
        try db.queryValue("SELECT count(*) FROM t", as: Int.self)
    }

    private struct TestError: Error, Equatable {
        var value: Int
    }

    // MARK: Begin, commit, rollback

    @Test("a deferred transaction takes no lock until it reads or writes")
    func beginDeferred() throws {
        let db = try makeDatabase()
        try db.beginTransaction(.deferred)
        #expect(db.isInTransaction)
        #expect(db.handle?.transactionState(schema: "main") == TransactionState.none)
        _ = try count(db)
        #expect(db.handle?.transactionState(schema: "main") == .read)
        try db.execute("INSERT INTO t VALUES (1)")
        #expect(db.handle?.transactionState(schema: "main") == .write)
        try db.commit()
        #expect(!db.isInTransaction)
        #expect(try count(db) == 1)
    }

    @Test(
        "immediate and exclusive transactions take the write lock at once",
        arguments: [
            Database.TransactionKind.immediate, .exclusive,
        ])
    func beginWriting(kind: Database.TransactionKind) throws {
        let db = try makeDatabase()
        try db.beginTransaction(kind)
        #expect(db.isInTransaction)
        #expect(db.handle?.transactionState(schema: "main") == .write)
        try db.execute("INSERT INTO t VALUES (1)")
        try db.commit()
        #expect(!db.isInTransaction)
        #expect(try count(db) == 1)
    }

    @Test("beginTransaction() defaults to immediate")
    func beginDefaultsToImmediate() throws {
        let db = try makeDatabase()
        try db.beginTransaction()
        #expect(db.handle?.transactionState(schema: "main") == .write)
        try db.rollback()
    }

    @Test("an exclusive transaction keeps other connections from reading a rollback-journal database")
    func exclusiveKeepsReadersOut() throws {
        try TemporaryFile.withDatabasePath { path in
            let writer = try Database(path: path)
            try writer.execute("CREATE TABLE t (x)")
            var configuration = Database.Configuration()
            configuration.busyMode = .immediateError
            let reader = try Database(path: path, configuration: configuration)

            try writer.beginTransaction(.immediate)
            #expect(try reader.queryValue("SELECT count(*) FROM t", as: Int.self) == 0)
            try writer.commit()

            try writer.beginTransaction(.exclusive)
            let error = try #require(throws: DatabaseError.self) {
                try reader.queryValue("SELECT count(*) FROM t", as: Int.self)
            }
            #expect(error.code == .busy)
            try writer.commit()
            #expect(try reader.queryValue("SELECT count(*) FROM t", as: Int.self) == 0)
        }
    }

    @Test("rollback undoes the transaction's changes")
    func rollbackUndoes() throws {
        let db = try makeDatabase()
        try db.execute("INSERT INTO t VALUES (1)")
        try db.beginTransaction()
        try db.execute("INSERT INTO t VALUES (2)")
        try db.execute("DELETE FROM t WHERE x = 1")
        try db.rollback()
        #expect(!db.isInTransaction)
        #expect(try db.queryValue("SELECT x FROM t", as: Int.self) == 1)
    }

    @Test("rollback with no open transaction does nothing")
    func rollbackWithoutTransaction() throws {
        let db = try makeDatabase()
        try db.rollback()
        #expect(!db.isInTransaction)
    }

    @Test("commit with no open transaction throws SQLite's error")
    func commitWithoutTransaction() throws {
        let db = try makeDatabase()
        let error = try #require(throws: DatabaseError.self) { try db.commit() }
        #expect(error.code == .error)
        #expect(error.message.contains("no transaction is active"))
    }

    @Test("beginTransaction inside an open transaction throws and keeps the open one")
    func beginInsideTransaction() throws {
        let db = try makeDatabase()
        try db.beginTransaction()
        try db.execute("INSERT INTO t VALUES (1)")
        let error = try #require(throws: DatabaseError.self) { try db.beginTransaction() }
        #expect(error.message.contains("within a transaction"))
        #expect(db.isInTransaction)
        try db.commit()
        #expect(try count(db) == 1)
    }

    // MARK: Closure forms

    @Test("transaction commits when the closure returns, and returns its value")
    func closureCommits() throws {
        let db = try makeDatabase()
        let value = try db.transaction { db in
            #expect(db.isInTransaction)
            try db.execute("INSERT INTO t VALUES (1)")
            try db.execute("INSERT INTO t VALUES (2)")
            return "done"
        }
        #expect(value == "done")
        #expect(!db.isInTransaction)
        #expect(try count(db) == 2)
    }

    @Test("transaction may return nil as its value", arguments: [Database.TransactionKind.deferred, .immediate])
    func closureReturnsNil(kind: Database.TransactionKind) throws {
        let db = try makeDatabase()
        let value: Int? = try db.transaction(kind) { db in
            try db.queryValue("SELECT x FROM t", as: Int.self)
        }
        #expect(value == nil)
    }

    @Test("transaction rolls back when the closure throws and rethrows the original error")
    func closureRollsBackAndRethrows() throws {
        let db = try makeDatabase()
        #expect(throws: TestError(value: 42)) {
            try db.transaction { db in
                try db.execute("INSERT INTO t VALUES (1)")
                throw TestError(value: 42)
            }
        }
        #expect(!db.isInTransaction)
        #expect(try count(db) == 0)
    }

    @Test("a database error inside the closure is rethrown unchanged after the rollback")
    func closureRethrowsDatabaseError() throws {
        let db = try makeDatabase()
        try db.execute("INSERT INTO t VALUES (1)")
        let error = try #require(throws: DatabaseError.self) {
            try db.transaction { db in
                try db.execute("INSERT INTO t VALUES (2)")
                try db.execute("INSERT INTO t VALUES (1)")
            }
        }
        #expect(error.extendedCode == .constraintUnique)
        #expect(error.sql == "INSERT INTO t VALUES (1)")
        #expect(error.message.contains("UNIQUE constraint failed: t.x"))
        #expect(!db.isInTransaction)
        #expect(try count(db) == 1)
    }

    @Test("when SQLite rolls back by itself inside the closure, the original error is rethrown")
    func closureAfterAutomaticRollback() throws {
        let db = try makeDatabase()
        try db.execute("INSERT INTO t VALUES (1)")
        let error = try #require(throws: DatabaseError.self) {
            try db.transaction { db in
                try db.execute("INSERT INTO t VALUES (2)")
                try db.execute("INSERT OR ROLLBACK INTO t VALUES (1)")
            }
        }
        #expect(error.extendedCode == .constraintUnique)
        #expect(!db.isInTransaction)
        #expect(try count(db) == 1)
    }

    @Test("inTransaction answering .rollback rolls back without an error")
    func inTransactionRollback() throws {
        let db = try makeDatabase()
        try db.inTransaction { db in
            try db.execute("INSERT INTO t VALUES (1)")
            return .rollback
        }
        #expect(!db.isInTransaction)
        #expect(try count(db) == 0)
    }

    @Test("inTransaction answering .commit commits")
    func inTransactionCommit() throws {
        let db = try makeDatabase()
        try db.inTransaction(.deferred) { db in
            try db.execute("INSERT INTO t VALUES (1)")
            return .commit
        }
        #expect(!db.isInTransaction)
        #expect(try count(db) == 1)
    }

    @Test("inTransaction rolls back and rethrows when its closure throws")
    func inTransactionThrows() throws {
        let db = try makeDatabase()
        #expect(throws: TestError(value: 7)) {
            try db.inTransaction { db in
                try db.execute("INSERT INTO t VALUES (1)")
                throw TestError(value: 7)
            }
        }
        #expect(!db.isInTransaction)
        #expect(try count(db) == 0)
    }

    @Test("a transaction inside an open one throws misuse before running the closure")
    func nestedTransactionThrowsBeforeRunning() throws {
        let db = try makeDatabase()
        try db.execute("BEGIN")
        try db.execute("INSERT INTO t VALUES (1)")
        var ran = false
        let error = try #require(throws: DatabaseError.self) {
            try db.transaction { _ in ran = true }
        }
        #expect(!ran)
        #expect(error.code == .misuse)
        #expect(error.message.contains("savepoint"))
        var answered = false
        #expect(throws: DatabaseError.self) {
            try db.inTransaction { _ in
                answered = true
                return .commit
            }
        }
        #expect(!answered)
        // The open transaction is untouched.
        #expect(db.isInTransaction)
        try db.execute("COMMIT")
        #expect(try count(db) == 1)
    }

    @Test("a transaction nested in a transaction closure fails, and the outer one rolls back")
    func nestedTransactionInsideClosure() throws {
        let db = try makeDatabase()
        var innerRan = false
        let error = try #require(throws: DatabaseError.self) {
            try db.transaction { db in
                try db.execute("INSERT INTO t VALUES (1)")
                try db.transaction { _ in innerRan = true }
            }
        }
        #expect(error.code == .misuse)
        #expect(!innerRan)
        #expect(!db.isInTransaction)
        #expect(try count(db) == 0)
    }

    // MARK: Failed commit

    @Test("a commit that fails on a deferred foreign key throws and leaves no transaction open")
    func failedCommitOnDeferredForeignKey() throws {
        let db = try Database()
        try db.executeScript(
            """
            CREATE TABLE parent (id INTEGER PRIMARY KEY);
            CREATE TABLE child (parentID INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);
            """)
        try db.beginTransaction()
        try db.execute("INSERT INTO child VALUES (?)", 42)  // allowed until COMMIT
        let error = try #require(throws: DatabaseError.self) { try db.commit() }
        #expect(error.extendedCode == .constraintForeignkey)
        #expect(!db.isInTransaction)
        #expect(try db.queryValue("SELECT count(*) FROM child", as: Int.self) == 0)

        // The closure form does the same.
        let closureError = try #require(throws: DatabaseError.self) {
            try db.transaction { db in try db.execute("INSERT INTO child VALUES (?)", 43) }
        }
        #expect(closureError.extendedCode == .constraintForeignkey)
        #expect(!db.isInTransaction)
        #expect(try db.queryValue("SELECT count(*) FROM child", as: Int.self) == 0)

        // The connection stays usable.
        try db.transaction { db in
            try db.execute("INSERT INTO parent VALUES (1)")
            try db.execute("INSERT INTO child VALUES (1)")
        }
        #expect(try db.queryValue("SELECT count(*) FROM child", as: Int.self) == 1)
    }

    @Test("a commit that fails on PRAGMA defer_foreign_keys throws and leaves no transaction open")
    func failedCommitWithDeferForeignKeysPragma() throws {
        let db = try Database()
        try db.executeScript(
            """
            CREATE TABLE parent (id INTEGER PRIMARY KEY);
            CREATE TABLE child (parentID INTEGER REFERENCES parent (id));
            """)
        let error = try #require(throws: DatabaseError.self) {
            try db.transaction { db in
                try db.execute("PRAGMA defer_foreign_keys = ON")
                try db.execute("INSERT INTO child VALUES (?)", 42)
            }
        }
        #expect(error.extendedCode == .constraintForeignkey)
        #expect(!db.isInTransaction)
        #expect(try db.queryValue("SELECT count(*) FROM child", as: Int.self) == 0)
    }

    @Test("a commit that fails with busy (a reader holds its lock) throws and leaves no transaction open")
    func failedCommitOnBusy() throws {
        try TemporaryFile.withDatabasePath { path in
            var configuration = Database.Configuration()
            configuration.busyMode = .immediateError
            let writer = try Database(path: path, configuration: configuration)
            try writer.execute("CREATE TABLE t (x)")
            let reader = try Database(path: path, configuration: configuration)

            try writer.beginTransaction(.immediate)
            try writer.execute("INSERT INTO t VALUES (1)")
            // The reader's open read transaction keeps its shared lock, so COMMIT cannot take the exclusive one.
            try reader.beginTransaction(.deferred)
            #expect(try reader.queryValue("SELECT count(*) FROM t", as: Int.self) == 0)

            let error = try #require(throws: DatabaseError.self) { try writer.commit() }
            #expect(error.code == .busy)
            #expect(error.sql == "COMMIT TRANSACTION")
            #expect(!writer.isInTransaction)

            try reader.commit()
            #expect(try writer.queryValue("SELECT count(*) FROM t", as: Int.self) == 0)
            #expect(try reader.queryValue("SELECT count(*) FROM t", as: Int.self) == 0)

            // The closure form does the same, and the writer can write once the reader is gone.
            try reader.beginTransaction(.deferred)
            _ = try reader.queryValue("SELECT count(*) FROM t", as: Int.self)
            let closureError = try #require(throws: DatabaseError.self) {
                try writer.transaction { db in try db.execute("INSERT INTO t VALUES (2)") }
            }
            #expect(closureError.code == .busy)
            #expect(!writer.isInTransaction)
            try reader.commit()
            try writer.transaction { db in try db.execute("INSERT INTO t VALUES (3)") }
            #expect(try reader.queryValue("SELECT x FROM t", as: Int.self) == 3)
            writer.close()
            reader.close()
        }
    }
}
