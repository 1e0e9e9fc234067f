import Foundation
import SQLiteToolkit
import Testing

/// A seeded randomized test of the public API against a model in Swift: random sequences of writes (positional,
/// named and interpolated arguments), scans, typed reads of every type from every storage class, transactions that
/// commit or roll back, nested savepoints, cursors left open, statements kept by the caller, close, reopen and use
/// after close, callbacks (a function, a trace) that query the same connection, and callbacks (trace, progress
/// handler, function) that close it while their statement runs. After every step it checks invariants: the table equals the model, typed reads give what SQLite's
/// conversions promise, the open-cursor count matches the cursors still reading, and a closed connection (and
/// everything it made) throws `connectionClosed` instead of crashing.
///
/// The normal run uses seeds 0..<`SQLTK_MODEL_SEEDS` (default 6) of 250 steps; `SQLTK_SEED` adds one seed to replay.
@Suite("Randomized model of the public API")
struct RandomizedModelTests {
    static var seeds: [UInt64] {
        var seeds = (0..<UInt64(environmentInteger("SQLTK_MODEL_SEEDS") ?? 6)).map { $0 }
        if let replay = environmentInteger("SQLTK_SEED") { seeds.append(UInt64(truncatingIfNeeded: replay)) }
        return seeds
    }

    static let steps = environmentInteger("SQLTK_MODEL_STEPS") ?? 250

    @Test("random API sequences keep the database equal to the model", arguments: seeds)
    func randomSequence(seed: UInt64) throws {
        try TemporaryFile.withDatabasePath { path in
            var model = try Model(path: path, random: SeededRandom(seed: seed))
            for _ in 0..<Self.steps {
                try model.step()
            }
            try model.checkTable()
            model.db.close()
        }
    }

    @Test("a value of every storage class reads as every type as SQLite's conversions say", arguments: 0..<64)
    func typedReadsOfEveryStorageClass(index: Int) throws {
        var random = SeededRandom(seed: UInt64(index) &* 7919)
        let value = Model.randomValue(&random)
        let db = try Database()
        try db.execute("CREATE TABLE kv (id INTEGER PRIMARY KEY, v)")
        try db.execute("INSERT INTO kv (id, v) VALUES (1, ?)", value)
        try Model.checkTypedReads(db, id: 1, expected: Model.stored(value))
    }
}

/// The state of one randomized run: the connection under test and what the table should hold.
struct Model {
    let path: String
    var random: SeededRandom
    var db: Database
    /// The rows of `kv` by id, as SQLite stores them.
    var rows: [Int64: DatabaseValue] = [:]
    var nextID: Int64 = 1
    /// Cursors opened and left part-read, and whether they belong to the current connection.
    var cursors: [(rows: Rows, current: Bool)] = []
    /// A statement the caller keeps across steps.
    var kept: (statement: Statement, current: Bool)?
    /// Changes made inside an open transaction or savepoint that a rollback undoes.
    var depth = 0

    init(path: String, random: SeededRandom) throws {
        self.path = path
        self.random = random
        self.db = try Self.connect(path)
    }

    static func connect(_ path: String) throws -> Database {
        let db = try Database(path: path)
        try db.execute("CREATE TABLE IF NOT EXISTS kv (id INTEGER PRIMARY KEY, v)")
        return db
    }

    /// Opens a new connection; the cursors and statement of the old one are kept, to be used after its close.
    mutating func open() throws {
        db = try Self.connect(path)
        for index in cursors.indices { cursors[index].current = false }
        kept?.current = false
    }

    // MARK: Values

    static let sampleTexts = [
        "", "a", "ü", "名前", "'", "\"", "a\u{0}b", "  12  ", "12", "-7", "1e3", "0x10", "2026-01-01 00:00:00",
        "2026-01-01T10:30:00.123Z", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "true", "NULL", "x'00'",
    ]
    static let sampleIntegers: [Int64] = [
        0, 1, -1, 2, 255, 256, -129, Int64(Int32.max), Int64(Int32.max) + 1, Int64(Int32.min) - 1, Int64.max, Int64.min,
        1_700_000_000,
    ]
    static let sampleReals: [Double] = [
        0, -0.0, 0.5, -1.5, 1e300, -1e-300, .infinity, -.infinity, .leastNonzeroMagnitude, 9.007_199_254_740_993e15,
        1_700_000_000.25, 3.0,
    ]

    static func randomValue(_ random: inout SeededRandom) -> DatabaseValue {
        switch random.next() % 5 {
        case 0:
            return .null
        case 1:
            return random.next() % 2 == 0
                ? .integer(sampleIntegers[Int(random.next() % UInt64(sampleIntegers.count))])
                : .integer(Int64(bitPattern: random.next()) >> (random.next() % 64))
        case 2:
            if random.next() % 2 == 0 { return .real(sampleReals[Int(random.next() % UInt64(sampleReals.count))]) }
            let double = Double(bitPattern: random.next())
            return .real(double.isNaN ? 1.25 : double)
        case 3:
            if random.next() % 2 == 0 { return .text(sampleTexts[Int(random.next() % UInt64(sampleTexts.count))]) }
            let alphabet = Array("aZ09 -:.'\"ü名\u{1F600}\u{0}")
            return .text(
                String((0..<random.next() % 24).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }))
        default:
            return .blob(Data((0..<random.next() % 40).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
        }
    }

    /// What SQLite stores for `value` in a column without affinity: the value itself.
    static func stored(_ value: DatabaseValue) -> DatabaseValue { value }

    // MARK: Steps

    mutating func step() throws {
        switch random.next() % 22 {
        case 0, 1, 2: try insert()
        case 3: try update()
        case 4: try delete()
        case 5, 6: try checkTable()
        case 7, 8: try checkRandomRowReads()
        case 9, 10: try transaction()
        case 11: try savepoints()
        case 12: try openCursor()
        case 13: try useKeptStatement()
        case 14: closeCursors()
        case 15: db.clearStatementCache()
        case 16: try closeAndUse()
        case 17: try checkRandomRowReads()
        case 20: try reenterFromCallback()
        case 21: try closeFromCallback()
        default: try insert()
        }
        try checkCursorCount()
        let statistics = db.statementCacheStatistics
        #expect(statistics.count <= statistics.capacity)
    }

    mutating func insert() throws {
        let value = Self.randomValue(&random)
        let id = nextID
        nextID += 1
        switch random.next() % 3 {
        case 0: try db.execute("INSERT INTO kv (id, v) VALUES (?, ?)", id, value)
        case 1: try db.execute("INSERT INTO kv (id, v) VALUES (:id, $v)", arguments: ["id": id, "v": value])
        default: try db.execute(sql: "INSERT INTO kv (id, v) VALUES (\(id), \(value))")
        }
        #expect(db.lastInsertRowID == id)
        #expect(db.changes == 1)
        rows[id] = Self.stored(value)
    }

    mutating func randomID() -> Int64 {
        // Mostly existing rows, sometimes one that does not exist.
        if rows.isEmpty || random.next() % 5 == 0 { return nextID + 5 }
        return rows.keys.sorted()[Int(random.next() % UInt64(rows.count))]
    }

    mutating func update() throws {
        let id = randomID()
        let value = Self.randomValue(&random)
        try db.execute("UPDATE kv SET v = ? WHERE id = ?", value, id)
        #expect(db.changes == (rows[id] == nil ? 0 : 1))
        if rows[id] != nil { rows[id] = Self.stored(value) }
    }

    mutating func delete() throws {
        let id = randomID()
        try db.execute("DELETE FROM kv WHERE id = ?", id)
        #expect(db.changes == (rows[id] == nil ? 0 : 1))
        rows[id] = nil
    }

    /// The table, read through a cursor to its end, equals the model.
    func checkTable() throws {
        let before = db.openCursors
        var found: [Int64: DatabaseValue] = [:]
        let cursor = try db.query("SELECT id, v FROM kv ORDER BY id")
        while let row = try cursor.next() {
            found[try row.value(at: 0, as: Int64.self)] = row[1]
        }
        #expect(!cursor.isOpen)
        #expect(db.openCursors == before)
        #expect(found == rows)
        #expect(try db.queryValue("SELECT count(*) FROM kv", as: Int.self) == rows.count)
    }

    mutating func checkRandomRowReads() throws {
        guard let id = rows.keys.sorted().randomElement(using: &random), let value = rows[id] else { return }
        try Self.checkTypedReads(db, id: id, expected: value)
    }

    /// Reads row `id` as every type and checks what SQLite's documented conversions give. Each checked read uses a
    /// fresh cursor, so each type is checked alone; that one read does not change what the next read of the same
    /// column sees is `WrongResultRegressionTests`' subject.
    static func checkTypedReads(_ db: Database, id: Int64, expected: DatabaseValue) throws {
        func read<T: DatabaseValueConvertible>(_: T.Type) throws -> T {
            let cursor = try db.query("SELECT v FROM kv WHERE id = ?", id)
            defer { cursor.close() }
            let row = try #require(try cursor.next())
            return try row.value(at: 0, as: T.self)
        }
        #expect(try read(DatabaseValue.self) == expected)
        switch expected {
        case .null:
            #expect(try read(Int64?.self) == nil)
            #expect(try read(String?.self) == nil)
            #expect(try read(Data?.self) == nil)
            #expect(try read(Double?.self) == nil)
            #expect(try read(Date?.self) == nil)
            #expect(throws: DatabaseError.self) { try read(Int64.self) }
            #expect(throws: DatabaseError.self) { try read(String.self) }
        case .integer(let integer):
            #expect(try read(Int64.self) == integer)
            #expect(try read(Int64?.self) == integer)
            #expect(try read(Double.self) == Double(integer))
            #expect(try read(Bool.self) == (integer != 0))
            #expect(try read(String.self) == String(integer))
            if let narrow = Int32(exactly: integer) {
                #expect(try read(Int32.self) == narrow)
            } else {
                #expect(throws: DatabaseError.self) { try read(Int32.self) }
            }
            if let unsigned = UInt64(exactly: integer) {
                #expect(try read(UInt64.self) == unsigned)
            } else {
                #expect(throws: DatabaseError.self) { try read(UInt64.self) }
            }
            #expect(try read(Date.self) == Date(timeIntervalSince1970: Double(integer)))
        case .real(let real):
            #expect(try read(Double.self) == real)
            #expect(try read(Double?.self) == real)
            #expect(try read(Float.self) == Float(real))
            #expect(try read(Date.self) == Date(timeIntervalSince1970: real))
        case .text(let text):
            #expect(try read(String.self) == text)
            #expect(try read([UInt8].self) == Array(text.utf8))
            #expect(try read(Data.self) == Data(text.utf8))
        case .blob(let blob):
            #expect(try read(Data.self) == blob)
            #expect(try read([UInt8].self) == Array(blob))
            #expect(try read(Data?.self) == blob)
            if blob.count == 16 {
                #expect(try read(UUID.self).uuidString.count == 36)
            }
        }
        // Every type from one cursor: a value or a typed error each time, and the cursor still ends.
        let cursor = try db.query("SELECT v FROM kv WHERE id = ?", id)
        let row = try #require(try cursor.next())
        readEveryType(row, at: 0)
        #expect(try cursor.next() == nil)
    }

    /// A transaction of random writes that commits, rolls back by answer, or rolls back by a throw.
    mutating func transaction() throws {
        guard !db.isInTransaction else { return }
        let saved = (rows, nextID)
        let ending = random.next() % 3
        struct Abort: Error {}
        var model = self
        do {
            try db.inTransaction(random.next() % 2 == 0 ? .immediate : .deferred) { db in
                #expect(db.isInTransaction)
                // A transaction inside a transaction is refused before its body runs.
                var ranNested = false
                #expect(throws: DatabaseError.self) { try db.transaction { _ in ranNested = true } }
                #expect(!ranNested)
                for _ in 0..<(1 + model.random.next() % 4) {
                    switch model.random.next() % 3 {
                    case 0: try model.insert()
                    case 1: try model.update()
                    default: try model.delete()
                    }
                }
                try model.checkTable()
                if ending == 2 { throw Abort() }
                return ending == 0 ? .commit : .rollback
            }
        } catch is Abort {}
        random = model.random
        #expect(!db.isInTransaction)
        if ending == 0 {
            rows = model.rows
            nextID = model.nextID
        } else {
            (rows, nextID) = saved
            nextID = model.nextID  // ids are never reused, so later inserts cannot meet a rolled-back row
        }
        try checkTable()
    }

    /// Savepoints nested one or two deep, each releasing or rolling back.
    mutating func savepoints() throws {
        struct Abort: Error {}
        let outer = rows
        var model = self
        let throwsOuter = random.next() % 3 == 0
        let throwsInner = random.next() % 2 == 0
        do {
            try db.savepoint { _ in
                try model.insert()
                let middle = model.rows
                do {
                    try model.db.savepoint { _ in
                        try model.update()
                        try model.insert()
                        if throwsInner { throw Abort() }
                    }
                } catch is Abort {
                    model.rows = middle
                }
                try model.checkTable()
                if throwsOuter { throw Abort() }
            }
        } catch is Abort {
            model.rows = outer
        }
        random = model.random
        rows = model.rows
        nextID = model.nextID
        try checkTable()
    }

    mutating func openCursor() throws {
        let cursor = try db.query("SELECT id, v FROM kv WHERE id >= ? ORDER BY id", randomID())
        for _ in 0..<(random.next() % 3) {
            guard let row = try cursor.next() else { break }
            readEveryType(row, at: 1)
        }
        cursors.append((cursor, true))
    }

    mutating func closeCursors() {
        for (cursor, _) in cursors { cursor.close() }
        cursors.removeAll()
    }

    func checkCursorCount() throws {
        let reading = cursors.filter { $0.current && $0.rows.isOpen }.count
        #expect(db.openCursors == reading)
        // A cursor of a closed connection throws `connectionClosed`, every time.
        for (cursor, current) in cursors where !current && cursor.isOpen {
            let error = try #require(throws: DatabaseError.self) { try cursor.next() }
            #expect(error.reason == .connectionClosed)
        }
    }

    mutating func useKeptStatement() throws {
        guard let entry = kept else {
            kept = (try db.prepare("SELECT v FROM kv WHERE id = ?"), true)
            return
        }
        let (statement, current) = entry
        let id = randomID()
        guard current else {
            let error = try #require(throws: DatabaseError.self) { try statement.bind(id) }
            #expect(error.reason == .connectionClosed)
            #expect(throws: DatabaseError.self) { try statement.step() }
            #expect(throws: DatabaseError.self) { try statement.reset() }
            #expect(throws: DatabaseError.self) { try statement.currentRow.value(at: 0, as: DatabaseValue.self) }
            kept = nil
            return
        }
        try statement.bind(id)
        if try statement.step() {
            #expect(try statement.currentRow.value(at: 0, as: DatabaseValue.self) == rows[id])
        } else {
            #expect(rows[id] == nil)
        }
        try statement.reset()
    }

    /// Closes the connection (sometimes with a transaction or cursors open), checks every call on the closed
    /// connection throws `connectionClosed`, and reopens.
    mutating func closeAndUse() throws {
        if random.next() % 3 == 0, !db.isInTransaction {
            // Closing with an open transaction rolls it back.
            try db.beginTransaction()
            try db.execute("INSERT INTO kv (id, v) VALUES (?, 'lost')", nextID)
            nextID += 1
        }
        db.close()
        db.close()  // twice does nothing
        #expect(!db.isOpen)
        #expect(db.openCursors == 0)
        #expect(!db.isInTransaction)
        let calls: [(String, (Database) throws -> Void)] = [
            ("execute", { try $0.execute("INSERT INTO kv (v) VALUES (1)") }),
            ("execute arguments", { try $0.execute("SELECT ?", arguments: [1]) }),
            ("query", { _ = try $0.query("SELECT 1") }),
            ("queryValue", { _ = try $0.queryValue("SELECT 1", as: Int.self) }),
            ("queryRow", { _ = try $0.queryRow("SELECT 1") }),
            ("prepare", { _ = try $0.prepare("SELECT 1") }),
            ("executeScript", { try $0.executeScript("SELECT 1; SELECT 2") }),
            ("savepoint", { try $0.savepoint { _ in } }),
            ("setBusyMode", { try $0.setBusyMode(.immediateError) }),
            ("trace", { try $0.trace { _ in } }),
        ]
        for (name, call) in calls {
            let error = try #require(throws: DatabaseError.self, "\(name) after close") { try call(db) }
            #expect(error.reason == .connectionClosed, "\(name) after close")
        }
        db.interrupt()  // harmless on a closed connection
        #expect(db.lastInsertRowID == 0)
        try open()
        try checkTable()
    }

    // MARK: Callbacks

    /// A callback that uses its own connection while the statement that called it runs: a function that reads
    /// `kv`, a trace that counts `kv` before each statement, a function that writes to another table per row.
    mutating func reenterFromCallback() throws {
        // SQLite refuses to replace or remove a function while any statement of the connection is active (a
        // part-read cursor): SQLITE_BUSY.
        closeCursors()
        let db = self.db
        switch random.next() % 3 {
        case 0:
            try db.createFunction("model_value") { (id: Int64) -> DatabaseValue in
                try db.queryValue("SELECT v FROM kv WHERE id = ?", id, as: DatabaseValue.self) ?? .null
            }
            var found: [Int64: DatabaseValue] = [:]
            let cursor = try db.query("SELECT id, model_value(id) FROM kv ORDER BY id")
            while let row = try cursor.next() { found[try row.value(at: 0, as: Int64.self)] = row[1] }
            #expect(found == rows)
            try db.removeFunction("model_value", argumentCount: 1)
        case 1:
            // The trace's own query is traced too: the flag keeps it from recursing.
            var isInside = false
            var counts: [Int] = []
            try db.trace { _ in
                guard !isInside else { return }
                isInside = true
                defer { isInside = false }
                counts.append((try? db.queryValue("SELECT count(*) FROM kv", as: Int.self)) ?? -1)
            }
            let before = rows.count
            try insert()
            try db.trace(nil)
            #expect(counts == [before])
        default:
            try db.execute("CREATE TABLE IF NOT EXISTS calls (id INTEGER)")
            try db.execute("DELETE FROM calls")
            try db.createFunction("log_call") { (id: Int64) -> Int64 in
                try db.execute("INSERT INTO calls (id) VALUES (?)", id)
                return id
            }
            let ids = try db.query("SELECT log_call(id) FROM kv ORDER BY id").map {
                try $0.value(at: 0, as: Int64.self)
            }
            #expect(ids == rows.keys.sorted())
            #expect(try db.queryValue("SELECT count(*) FROM calls", as: Int.self) == rows.count)
            try db.removeFunction("log_call", argumentCount: 1)
        }
        try checkTable()
    }

    /// Closes the connection from inside a callback while a statement runs: a trace during an insert (the insert
    /// finishes), a progress handler during a count, a function while a cursor reads, a trace while a cursor
    /// reads. Afterwards the connection reports closed, every later use throws `connectionClosed`, nothing it
    /// made is still counted open, and a new connection sees the model.
    mutating func closeFromCallback() throws {
        guard !db.isInTransaction else { return }
        let db = self.db
        /// A statement interrupted by the close may throw, and then only `connectionClosed`.
        func expectClosedOrSuccess(_ body: () throws -> Void) {
            do {
                try body()
            } catch let error as DatabaseError {
                #expect(error.reason == .connectionClosed, "\(error)")
            } catch {
                Issue.record("\(type(of: error)) is not a DatabaseError")
            }
        }
        switch random.next() % 4 {
        case 0:
            // The traced insert runs to its end and commits; the close follows it.
            try db.trace { _ in db.close() }
            let value = Self.randomValue(&random)
            try db.execute("INSERT INTO kv (id, v) VALUES (?, ?)", nextID, value)
            rows[nextID] = Self.stored(value)
            nextID += 1
        case 1:
            try db.setProgressHandler(every: 1) {
                db.close()
                return false
            }
            expectClosedOrSuccess { _ = try db.queryValue("SELECT count(*) FROM kv", as: Int.self) }
        case 2:
            try db.createFunction("close_now") { (value: DatabaseValue) -> DatabaseValue in
                db.close()
                return value
            }
            expectClosedOrSuccess {
                let cursor = try db.query("SELECT close_now(x) FROM (SELECT 0 AS x UNION ALL SELECT id FROM kv)")
                while try cursor.next() != nil {}
            }
        default:
            try db.trace { _ in db.close() }
            expectClosedOrSuccess {
                let cursor = try db.query("SELECT id, v FROM kv ORDER BY id")
                while let row = try cursor.next() { readEveryType(row, at: 1) }
            }
        }
        #expect(!db.isOpen)
        #expect(db.openCursors == 0)
        #expect(!db.isInTransaction)
        for (name, call) in [
            ("execute", { try db.execute("SELECT 1") }), ("query", { _ = try db.query("SELECT 1") }),
            ("createFunction", { try db.createFunction("f") { (x: Int) in x } }),
            ("trace", { try db.trace { _ in } }),
        ] as [(String, () throws -> Void)] {
            let error = try #require(throws: DatabaseError.self, "\(name) after a close in a callback") { try call() }
            #expect(error.reason == .connectionClosed, "\(name) after a close in a callback")
        }
        db.close()  // closing again does nothing
        try open()
        try checkTable()
    }
}
