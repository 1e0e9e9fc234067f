import Foundation
import SQLiteToolkit
import Testing

/// Counts the releases of the objects it hands out, to check that SQLite frees every closure it keeps.
final class ReleaseCounter {
    private(set) var released = 0
    private(set) var created = 0

    final class Token {
        let counter: ReleaseCounter
        init(_ counter: ReleaseCounter) { self.counter = counter }
        deinit { counter.released += 1 }
    }

    func token() -> Token {
        created += 1
        return Token(self)
    }
}

/// An error with a fixed description, as a user's function would throw.
struct FunctionFailure: Error, CustomStringConvertible {
    var description: String
}

@Suite("Scalar functions")
struct FunctionTests {
    @Test("the low-level form reads raw arguments and sets the result through the context")
    func lowLevel() throws {
        let db = try Database()
        try db.createFunction("double", argumentCount: 1, options: .deterministic) { context, arguments in
            context.resultInt64(arguments[0].valueInt64() * 2)
        }
        #expect(try db.queryValue("SELECT double(21)", as: Int.self) == 42)
        try db.createFunction("kind", argumentCount: 1) { context, arguments in
            switch arguments[0].valueType() {
            case .null: context.resultString("null")
            case .blob: context.resultString("blob of \(arguments[0].valueData()?.count ?? -1)")
            default: context.resultString("other")
            }
        }
        #expect(try db.queryValue("SELECT kind(NULL)", as: String.self) == "null")
        #expect(try db.queryValue("SELECT kind(x'')", as: String.self) == "blob of 0")
        #expect(try db.queryValue("SELECT kind(x'0102')", as: String.self) == "blob of 2")
        // NULL is nil, not empty bytes, as in the typed form; x'' is empty bytes.
        try db.createFunction("bytes", argumentCount: 1) { context, arguments in
            switch arguments[0].valueData() {
            case nil: context.resultString("nil")
            case let bytes?: context.resultString("\(bytes.count) bytes")
            }
        }
        #expect(try db.queryValue("SELECT bytes(NULL)", as: String.self) == "nil")
        #expect(try db.queryValue("SELECT bytes(x'')", as: String.self) == "0 bytes")
        #expect(try db.queryValue("SELECT bytes('')", as: String.self) == "0 bytes")
        #expect(try db.queryValue("SELECT bytes(x'0102')", as: String.self) == "2 bytes")
    }

    @Test("the high-level form reads typed arguments and returns a bindable value")
    func highLevel() throws {
        let db = try Database()
        try db.createFunction("plus") { (left: Int, right: Int) in left + right }
        try db.createFunction("greet") { (name: String) in "Hello, \(name)" }
        try db.createFunction("half") { (value: Double) in value / 2 }
        try db.createFunction("answer") { () -> Int in 42 }
        #expect(try db.queryValue("SELECT plus(40, 2)", as: Int.self) == 42)
        #expect(try db.queryValue("SELECT greet('Ann')", as: String.self) == "Hello, Ann")
        #expect(try db.queryValue("SELECT half(3)", as: Double.self) == 1.5)
        #expect(try db.queryValue("SELECT answer()", as: Int.self) == 42)
        #expect(
            try allValues(db, "SELECT typeof(plus(1, 2)), typeof(half(1)), typeof(greet('x'))") == [
                ["integer", "real", "text"]
            ])
    }

    @Test("arguments are read with the conversions of Row")
    func conversions() throws {
        let db = try Database()
        try db.createFunction("asInt") { (value: Int) in value }
        try db.createFunction("asText") { (value: String) in value }
        #expect(try db.queryValue("SELECT asInt('5')", as: Int.self) == 5)
        #expect(try db.queryValue("SELECT asInt(1.9)", as: Int.self) == 1)
        #expect(try db.queryValue("SELECT asText(5)", as: String.self) == "5")
        // NULL reads only as an optional: a non-optional argument fails the statement with SQLITE_MISMATCH.
        let error = try #require(throws: DatabaseError.self) {
            try db.queryValue("SELECT asText(NULL)", as: String.self)
        }
        #expect(error.extendedCode == .mismatch)
        #expect(error.message.contains("NULL cannot be read as String"))
    }

    @Test("NULL is nil and x'' is empty data, not nil; a nil result is NULL")
    func nullAndBlobArguments() throws {
        let db = try Database()
        try db.createFunction("size") { (data: Data?) -> Int? in data?.count }
        try db.createFunction("bytes") { (bytes: [UInt8]?) -> [UInt8]? in bytes.map { $0.reversed() } }
        #expect(
            try allValues(db, "SELECT size(NULL), size(x''), size(x'010203'), size('héllo')") == [
                [.null, 0, 3, 6]
            ])
        #expect(
            try allValues(db, "SELECT bytes(x'0102'), bytes(x''), bytes(NULL)") == [
                [.blob(Data([2, 1])), .blob(Data()), .null]
            ])
        #expect(try db.queryValue("SELECT typeof(bytes(x''))", as: String.self) == "blob")
    }

    @Test("variadic functions read any number of arguments")
    func variadic() throws {
        let db = try Database()
        try db.createFunction("joined", argumentCount: nil) { arguments in
            try (0..<arguments.count).compactMap { try arguments.value(at: $0, as: String?.self) }.joined(
                separator: "-")
        }
        #expect(try db.queryValue("SELECT joined()", as: String.self) == "")
        #expect(try db.queryValue("SELECT joined('a', NULL, 2, 'c')", as: String.self) == "a-2-c")
        try db.createFunction("listValues", argumentCount: nil) { arguments in arguments.values.description }
        #expect(try db.queryValue("SELECT listValues(1, 'x', NULL, x'0A')", as: String.self) == "[1, 'x', NULL, X'0A']")
        // Reading past the last argument throws a typed error, not a crash.
        try db.createFunction("third", argumentCount: nil) { arguments in try arguments.value(at: 2, as: Int.self) }
        let error = try #require(throws: DatabaseError.self) { try db.queryValue("SELECT third(1)", as: Int.self) }
        #expect(error.reason == .functionArgumentOutOfRange(index: 2, count: 1))
        #expect(error.code == .range)
    }

    @Test("calling a function with the wrong number of arguments fails to prepare")
    func wrongArity() throws {
        let db = try Database()
        try db.createFunction("plus") { (left: Int, right: Int) in left + right }
        let error = try #require(throws: DatabaseError.self) { try db.queryValue("SELECT plus(1)", as: Int.self) }
        #expect(error.code == .error)
        #expect(error.message.contains("wrong number of arguments to function plus()"))
    }

    @Test("a thrown error's description reaches the caller, with its code when it carries one")
    func thrownErrors() throws {
        let db = try Database()
        try db.createFunction("fail") { (message: String) -> Int in throw FunctionFailure(description: message) }
        let error = try #require(throws: DatabaseError.self) {
            try db.queryValue("SELECT fail('no luck')", as: Int.self)
        }
        #expect(error.extendedCode == .error)
        #expect(error.message == "no luck")
        #expect(error.sql == "SELECT fail('no luck')")

        try db.createFunction("failCheck", argumentCount: 0) { _, _ in throw ResultCode.constraintCheck }
        let coded = try #require(throws: DatabaseError.self) { try db.execute("SELECT failCheck()") }
        #expect(coded.extendedCode == .constraintCheck)

        try db.createFunction("lowLevelError", argumentCount: 0) { context, _ in context.resultError("set by hand") }
        let handError = try #require(throws: DatabaseError.self) { try db.execute("SELECT lowLevelError()") }
        #expect(handError.message == "set by hand")
    }

    @Test("a function in the WHERE of an UPDATE inside a rolled-back transaction changes nothing")
    func updateInRolledBackTransaction() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x INTEGER)")
        try db.execute("INSERT INTO t VALUES (1), (2), (3), (4)")
        var calls = 0
        try db.createFunction("isEven") { (value: Int) -> Bool in
            calls += 1
            return value.isMultiple(of: 2)
        }
        #expect(throws: FunctionFailure.self) {
            try db.transaction { db in
                try db.execute("UPDATE t SET x = x * 10 WHERE isEven(x)")
                #expect(db.changes == 2)
                throw FunctionFailure(description: "roll back")
            }
        }
        #expect(calls == 4)
        #expect(try allValues(db, "SELECT x FROM t ORDER BY x") == [[1], [2], [3], [4]])
    }

    @Test("deterministic functions may index expressions; others may not")
    func deterministicFlag() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x INTEGER)")
        // Both innocuous: with SQLITE_TRUSTED_SCHEMA=0 the schema may only call innocuous functions, and the
        // test is about determinism.
        try db.createFunction("pure", options: [.deterministic, .innocuous]) { (value: Int) in value * 2 }
        try db.createFunction("impure", options: .innocuous) { (value: Int) in value * 2 }
        try db.execute("CREATE INDEX t_pure ON t(pure(x))")
        let error = try #require(throws: DatabaseError.self) { try db.execute("CREATE INDEX t_impure ON t(impure(x))") }
        #expect(error.message.contains("non-deterministic functions prohibited"))
    }

    @Test("direct-only functions are refused inside views and triggers")
    func directOnlyFlag() throws {
        let db = try Database()
        try db.createFunction("secret", options: [.directOnly]) { () in 7 }
        try db.createFunction("harmless", options: [.innocuous, .deterministic]) { () in 8 }
        #expect(try db.queryValue("SELECT secret()", as: Int.self) == 7)
        try db.execute("CREATE VIEW v AS SELECT secret() AS s, harmless() AS h")
        let error = try #require(throws: DatabaseError.self) { try db.queryValue("SELECT s FROM v", as: Int.self) }
        #expect(error.message.contains("unsafe use of secret()"))
        try db.execute("CREATE VIEW w AS SELECT harmless() AS h")
        #expect(try db.queryValue("SELECT h FROM w", as: Int.self) == 8)
    }

    @Test("replacing, removing and closing each release the closure exactly once")
    func releases() throws {
        let counter = ReleaseCounter()
        let db = try Database()
        do {
            let first = counter.token()
            try db.createFunction("f") { () -> Int in
                _ = first
                return 1
            }
        }
        #expect(try db.queryValue("SELECT f()", as: Int.self) == 1)
        #expect(counter.released == 0)
        do {
            let second = counter.token()
            try db.createFunction("f") { () -> Int in
                _ = second
                return 2
            }
        }
        #expect(counter.released == 1)
        #expect(try db.queryValue("SELECT f()", as: Int.self) == 2)

        try db.removeFunction("f", argumentCount: 0)
        #expect(counter.released == 2)
        #expect(throws: DatabaseError.self) { try db.execute("SELECT f()") }
        try db.removeFunction("f", argumentCount: 0)  // removing again does nothing

        do {
            let third = counter.token()
            try db.createFunction("g", argumentCount: 1) { _, _ in _ = third }
            let fourth = counter.token()
            try db.createFunction("h", argumentCount: nil) { _ in
                _ = fourth
                return 0
            }
        }
        #expect(counter.released == 2)
        db.close()
        #expect(counter.released == 4)
    }

    @Test("typed functions of three, four and five arguments read each argument in order")
    func typedArities() throws {
        let db = try Database()
        try db.createFunction("three") { (a: Int, b: String, c: Double?) in "\(a)\(b)\(c ?? -1)" }
        try db.createFunction("four") { (a: Int, b: Int, c: Int, d: Int) in a * 1000 + b * 100 + c * 10 + d }
        try db.createFunction("five") { (a: Int, b: Int, c: Int, d: Int, e: Int) in "\([a, b, c, d, e])" }
        #expect(try db.queryValue("SELECT three(1, 'x', NULL)", as: String.self) == "1x-1.0")
        #expect(try db.queryValue("SELECT three('2', 'y', 0.5)", as: String.self) == "2y0.5")
        #expect(try db.queryValue("SELECT four(1, 2, 3, 4)", as: Int.self) == 1234)
        #expect(try db.queryValue("SELECT five(5, 4, 3, 2, 1)", as: String.self) == "[5, 4, 3, 2, 1]")
        // NULL for a non-optional argument fails the statement.
        #expect(throws: DatabaseError.self) { try db.queryValue("SELECT three(NULL, 'x', 1.0)", as: String.self) }
        // Each arity is its own function: three arguments define no two-argument `three`.
        #expect(throws: DatabaseError.self) { try db.queryValue("SELECT three(1, 'x')", as: String.self) }
    }

    @Test("the typed forms of every arity release their closure when replaced, removed and closed")
    func typedAritiesRelease() throws {
        let counter = ReleaseCounter()
        let db = try Database()
        do {
            let one = counter.token()
            let two = counter.token()
            let three = counter.token()
            let four = counter.token()
            try db.createFunction("one") { (a: Int) -> Int in
                _ = one
                return a
            }
            try db.createFunction("two") { (a: Int, b: Int) -> Int in
                _ = two
                return a + b
            }
            try db.createFunction("three") { (a: Int, b: Int, c: Int) -> Int in
                _ = three
                return a + b + c
            }
            try db.createFunction("four") { (a: Int, b: Int, c: Int, d: Int) -> Int in
                _ = four
                return a + b + c + d
            }
        }
        let sql = "SELECT one(1) + two(1, 2) + three(1, 2, 3) + four(1, 2, 3, 4)"
        #expect(try db.queryValue(sql, as: Int.self) == 20)
        #expect(counter.released == 0)
        do {
            let replacement = counter.token()
            try db.createFunction("one") { (a: Int) -> Int in
                _ = replacement
                return -a
            }
        }
        #expect(counter.released == 1)
        try db.removeFunction("two", argumentCount: 2)
        #expect(counter.released == 2)
        db.close()
        #expect(counter.released == 5)
    }

    @Test("a refused registration releases the closure and throws a typed error")
    func refusedRegistration() throws {
        let counter = ReleaseCounter()
        let db = try Database()
        do {
            let token = counter.token()
            let error = try #require(throws: DatabaseError.self) {
                try db.createFunction("many", argumentCount: 5000) { _, _ in _ = token }
            }
            #expect(error.reason == .invalidArgumentCount(5000))
        }
        #expect(counter.released == 1)
        for name in ["", String(repeating: "x", count: 256), "a\u{0}b"] {
            let error = try #require(throws: DatabaseError.self) { try db.createFunction(name) { () in 1 } }
            #expect(error.reason == .invalidFunctionName(name))
        }
        let negative = try #require(throws: DatabaseError.self) {
            try db.createFunction("negative", argumentCount: -2) { _ in 1 }
        }
        #expect(negative.reason == .invalidArgumentCount(-2))
        db.close()
        let closed = try #require(throws: DatabaseError.self) { try db.createFunction("late") { () in 1 } }
        #expect(closed.reason == .connectionClosed)
        #expect(throws: DatabaseError.self) { try db.removeFunction("late", argumentCount: 0) }
    }

    @Test("a function may query its own connection")
    func reentrantQuery() throws {
        let db = try Database()
        // The function captures its own connection: closing releases the function, and with it the cycle.
        defer { db.close() }
        try db.execute("CREATE TABLE name (id INTEGER PRIMARY KEY, text TEXT)")
        try db.execute("INSERT INTO name (id, text) VALUES (1, 'one'), (2, 'two')")
        try db.createFunction("nameOf") { (id: Int) -> String? in
            try db.queryValue("SELECT text FROM name WHERE id = ?", id, as: String.self)
        }
        #expect(try allValues(db, "SELECT nameOf(id) FROM name ORDER BY id") == [["one"], ["two"]])
    }

    @Test("closing the connection from inside a function closes it once the calling statement returns")
    func closeInsideFunction() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        try db.execute("INSERT INTO t VALUES (1), (2)")
        try db.createFunction("closer") { (value: Int) -> Int in
            db.close()
            return value
        }
        let error = try #require(throws: DatabaseError.self) { try allValues(db, "SELECT closer(x) FROM t") }
        #expect(error.reason == .connectionClosed)
        #expect(error.code == .misuse)
        #expect(!db.isOpen)
        let later = try #require(throws: DatabaseError.self) { try db.execute("SELECT 1") }
        #expect(later.reason == .connectionClosed)
    }

    @Test("replacing a function while a statement that uses it runs is refused")
    func replaceWhileRunning() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        try db.execute("INSERT INTO t VALUES (1), (2)")
        try db.createFunction("same") { (value: Int) in value }
        let rows = try db.query("SELECT same(x) FROM t")
        _ = try rows.next()
        let error = try #require(throws: DatabaseError.self) {
            try db.createFunction("same") { (value: Int) in -value }
        }
        #expect(error.code == .busy)
        rows.close()
        try db.createFunction("same") { (value: Int) in -value }
        #expect(try allValues(db, "SELECT same(x) FROM t ORDER BY x") == [[-1], [-2]])
    }

    @Test("a function the schema uses needs .innocuous; without it the unsafe-use error names the flag")
    func innocuousHint() throws {
        let db = try Database()
        try db.execute("CREATE TABLE player (name TEXT)")
        try db.createFunction("normalized", options: .deterministic) { (text: String) in text.lowercased() }
        let error = try #require(throws: DatabaseError.self) {
            try db.execute("CREATE INDEX player_name ON player (normalized(name))")
            try db.execute("INSERT INTO player VALUES ('Arthur')")
        }
        #expect(error.message.hasPrefix("unsafe use of normalized()"))
        #expect(error.message.contains(".innocuous"))
        #expect(error.message.contains("SQLITE_TRUSTED_SCHEMA=0"))
        // Registered as the hint says, the index works.
        try db.createFunction("normalized", options: [.deterministic, .innocuous]) { (text: String) in
            text.lowercased()
        }
        try db.execute("CREATE INDEX IF NOT EXISTS player_name ON player (normalized(name))")
        try db.execute("INSERT INTO player VALUES ('Arthur')")
        let found = try db.queryValue("SELECT name FROM player WHERE normalized(name) = 'arthur'", as: String.self)
        #expect(found == "Arthur")
    }
}
