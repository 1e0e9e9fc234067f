import SQLiteBindings
import SQLiteToolkit
import Testing

@Suite("Savepoints")
struct SavepointTests {
    private struct TestError: Error, Equatable {
        var value: Int
    }

    private func makeDatabase() throws -> Database {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        return db
    }

    private func values(_ db: Database) throws -> [Int] {
        try db.query("SELECT x FROM t ORDER BY x").map { try $0.value(at: 0, as: Int.self) }
    }

    @Test("three deep with a throw in the middle: the outer changes survive, the middle and inner are undone")
    func threeDeepWithRollbackInTheMiddle() throws {
        let db = try makeDatabase()
        try db.savepoint { db in
            try db.execute("INSERT INTO t VALUES (1)")
            #expect(throws: TestError(value: 2)) {
                try db.savepoint { db in
                    try db.execute("INSERT INTO t VALUES (2)")
                    try db.savepoint { db in
                        try db.execute("INSERT INTO t VALUES (3)")
                    }
                    #expect(try values(db) == [1, 2, 3])
                    throw TestError(value: 2)
                }
            }
            #expect(try values(db) == [1])
            try db.execute("INSERT INTO t VALUES (4)")
        }
        #expect(!db.isInTransaction)
        #expect(try values(db) == [1, 4])
    }

    @Test("three deep with a throw in the innermost: only the innermost is undone")
    func threeDeepWithRollbackInside() throws {
        let db = try makeDatabase()
        try db.savepoint { db in
            try db.execute("INSERT INTO t VALUES (1)")
            try db.savepoint { db in
                try db.execute("INSERT INTO t VALUES (2)")
                try? db.savepoint { db in
                    try db.execute("INSERT INTO t VALUES (3)")
                    throw TestError(value: 3)
                }
            }
        }
        #expect(try values(db) == [1, 2])
    }

    @Test("a throw from the outermost savepoint undoes everything and is rethrown")
    func outermostThrow() throws {
        let db = try makeDatabase()
        #expect(throws: TestError(value: 1)) {
            try db.savepoint { db in
                try db.execute("INSERT INTO t VALUES (1)")
                try db.savepoint { db in try db.execute("INSERT INTO t VALUES (2)") }
                throw TestError(value: 1)
            }
        }
        #expect(!db.isInTransaction)
        #expect(try values(db) == [])
    }

    @Test("an outermost savepoint whose release fails (deferred foreign key) rolls back and leaves no transaction")
    func failedReleaseOfOutermost() throws {
        let db = try Database()
        try db.executeScript(
            """
            CREATE TABLE parent (id INTEGER PRIMARY KEY);
            CREATE TABLE child (parentID INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);
            """)
        let error = try #require(throws: DatabaseError.self) {
            try db.savepoint { db in try db.execute("INSERT INTO child VALUES (42)") }
        }
        #expect(error.extendedCode == .constraintForeignkey)
        #expect(!db.isInTransaction)
        #expect(try db.queryValue("SELECT count(*) FROM child", as: Int.self) == 0)
    }

    @Test("a savepoint returns its closure's value")
    func returnsValue() throws {
        let db = try makeDatabase()
        let count = try db.savepoint { db in
            try db.execute("INSERT INTO t VALUES (1)")
            return try db.queryValue("SELECT count(*) FROM t", as: Int.self)
        }
        #expect(count == 1)
    }

    @Test("outside a transaction a savepoint is one: its changes are committed when it returns")
    func savepointAsTransaction() throws {
        let db = try makeDatabase()
        try db.savepoint { db in
            #expect(db.isInTransaction)
            try db.execute("INSERT INTO t VALUES (1)")
        }
        #expect(!db.isInTransaction)
        #expect(try values(db) == [1])
    }

    @Test("in a transaction, a failed savepoint keeps the transaction open with its earlier changes")
    func savepointInsideTransaction() throws {
        let db = try makeDatabase()
        try db.transaction { db in
            try db.execute("INSERT INTO t VALUES (1)")
            #expect(throws: TestError(value: 5)) {
                try db.savepoint { db in
                    try db.execute("INSERT INTO t VALUES (2)")
                    throw TestError(value: 5)
                }
            }
            #expect(db.isInTransaction)
            try db.execute("INSERT INTO t VALUES (3)")
        }
        #expect(try values(db) == [1, 3])
    }

    @Test("sibling savepoints one after another each commit or roll back on their own")
    func siblings() throws {
        let db = try makeDatabase()
        try db.transaction { db in
            try db.savepoint { db in try db.execute("INSERT INTO t VALUES (1)") }
            try? db.savepoint { db in
                try db.execute("INSERT INTO t VALUES (2)")
                throw TestError(value: 2)
            }
            try db.savepoint { db in try db.execute("INSERT INTO t VALUES (3)") }
        }
        #expect(try values(db) == [1, 3])
    }

    @Test("savepoint names are generated per connection: nesting on one does not affect another")
    func namesArePerConnection() throws {
        let first = try makeDatabase()
        let second = try makeDatabase()

        var alone: [String] = []
        try second.trace { alone.append($0.sql) }
        try second.savepoint { db in try db.savepoint { db in try db.execute("INSERT INTO t VALUES (0)") } }

        var interleaved: [String] = []
        try second.trace { interleaved.append($0.sql) }
        try first.savepoint { first in
            try first.execute("INSERT INTO t VALUES (1)")
            try first.savepoint { first in
                try second.savepoint { db in
                    try db.savepoint { db in try db.execute("INSERT INTO t VALUES (0)") }
                }
                // The second connection's savepoints did not disturb the first's.
                try first.execute("INSERT INTO t VALUES (2)")
                #expect(throws: TestError(value: 3)) {
                    try first.savepoint { first in
                        try first.execute("INSERT INTO t VALUES (3)")
                        throw TestError(value: 3)
                    }
                }
            }
        }
        try second.trace(nil)
        #expect(interleaved == alone)
        #expect(alone.count == 5)
        #expect(try values(first) == [1, 2])
        #expect(try values(second) == [0, 0])
    }

    // MARK: Explicit rollback

    @Test("inSavepoint: .rollback undoes only the savepoint, .commit keeps it, a throw rolls back and rethrows")
    func explicitRollback() throws {
        let db = try makeDatabase()
        try db.transaction { db in
            try db.execute("INSERT INTO t VALUES (1)")
            try db.inSavepoint { db in
                try db.execute("INSERT INTO t VALUES (2)")
                return .rollback
            }
            #expect(db.isInTransaction)
            try db.inSavepoint { db in
                try db.execute("INSERT INTO t VALUES (3)")
                return .commit
            }
            #expect(throws: TestError(value: 4)) {
                try db.inSavepoint { db in
                    try db.execute("INSERT INTO t VALUES (4)")
                    throw TestError(value: 4)
                }
            }
        }
        #expect(try values(db) == [1, 3])
        // Outside a transaction, the savepoint is the transaction.
        try db.inSavepoint { db in
            try db.execute("DELETE FROM t")
            return .rollback
        }
        #expect(!db.isInTransaction)
        #expect(try values(db) == [1, 3])
    }

    @Test("inSavepoint on a queue, blocking and async, rolls back on request")
    func queueExplicitRollback() async throws {
        let queue = try DatabaseQueue()
        try blockingSavepoints(queue)
        try await queue.inSavepoint { db in
            try db.execute("INSERT INTO t VALUES (3)")
            return .rollback
        }
        try await queue.inSavepoint { db in
            try db.execute("INSERT INTO t VALUES (4)")
            return .commit
        }
        #expect(try await queue.read { db in try values(db) } == [1, 4])
    }

    /// The blocking calls of ``queueExplicitRollback()``, from synchronous code, where they are the ones chosen.
    private func blockingSavepoints(_ queue: DatabaseQueue) throws {
        try queue.write { db in try db.execute("CREATE TABLE t (x)") }
        try queue.inSavepoint { db in
            try db.execute("INSERT INTO t VALUES (1)")
            return .commit
        }
        try queue.inSavepoint { db in
            try db.execute("INSERT INTO t VALUES (2)")
            return .rollback
        }
    }

    @Test("savepoint and inSavepoint on a pool, blocking and async, roll back on request and on a throw")
    func poolSavepoints() async throws {
        try await TemporaryFile.withDatabasePathAsync { path in
            let pool = try DatabasePool(path: path)
            defer { pool.close() }
            try blockingSavepoints(pool)
            try await pool.savepoint { db in try db.execute("INSERT INTO t VALUES (5)") }
            try await pool.inSavepoint { db in
                try db.execute("INSERT INTO t VALUES (6)")
                return .rollback
            }
            await #expect(throws: TestError(value: 7)) {
                try await pool.savepoint { db in
                    try db.execute("INSERT INTO t VALUES (7)")
                    throw TestError(value: 7)
                }
            }
            #expect(try await pool.read { db in try values(db) } == [1, 4, 5])
        }
    }

    /// The blocking calls of ``poolSavepoints()``.
    private func blockingSavepoints(_ pool: DatabasePool) throws {
        try pool.write { db in try db.execute("CREATE TABLE t (x)") }
        try pool.savepoint { db in try db.execute("INSERT INTO t VALUES (1)") }
        #expect(throws: TestError(value: 2)) {
            try pool.savepoint { db in
                try db.execute("INSERT INTO t VALUES (2)")
                throw TestError(value: 2)
            }
        }
        try pool.inSavepoint { db in
            try db.execute("INSERT INTO t VALUES (3)")
            return .rollback
        }
        try pool.inSavepoint { db in
            try db.execute("INSERT INTO t VALUES (4)")
            return .commit
        }
    }
}
