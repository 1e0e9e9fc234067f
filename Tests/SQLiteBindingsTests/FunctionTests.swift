import CSQLiteToolkit
import SQLiteBindings
import Testing

/// An error a test function throws, carrying a result code.
private struct TestFunctionError: ResultCodeError, CustomStringConvertible {
    var resultCode: ResultCode
    var description: String
}

/// An error without a result code.
private struct PlainError: Error, CustomStringConvertible {
    var description: String { "plain failure" }
}

/// The type tag of pointers passed through SQL in these tests. SQLite keeps the address, not a copy, so it is a
/// static string: every read of this property gives the same address.
private var pointerType: UnsafePointer<CChar> {
    UnsafeRawPointer(("sqltk-test-pointer" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self)
}

@Suite("Custom functions and collations")
struct FunctionTests {
    @Test("a scalar function reads its arguments and sets its result")
    func scalarFunction() throws {
        let database = try CallbackTestDatabase()
        let code = database.handle.createScalarFunction(
            name: "sumall", argumentCount: -1, flags: [.utf8, .deterministic]
        ) { context, arguments in
            context.resultInt64(arguments.reduce(0) { $0 + $1.valueInt64() })
        }
        #expect(code == .ok)
        #expect(try database.column("SELECT sumall(1, 2, 3, 4)") == ["10"])
        #expect(try database.column("SELECT sumall()") == ["0"])
    }

    @Test("resultError surfaces as the error message and code of the calling statement")
    func resultErrorSurfaces() throws {
        let database = try CallbackTestDatabase()
        _ = database.handle.createScalarFunction(name: "fail", argumentCount: 0) { context, _ in
            context.resultError("bad input")
        }
        _ = database.handle.createScalarFunction(name: "failcode", argumentCount: 0) { context, _ in
            context.resultError("out of range")
            context.resultErrorCode(.range)
        }
        #expect(database.run("SELECT fail()") == .error)
        #expect(database.errorMessage == "bad input")
        #expect(database.run("SELECT failcode()") == .range)
        #expect(database.errorMessage == "out of range")
    }

    @Test("an error thrown by a function fails the statement with its description and code")
    func thrownErrorSurfaces() throws {
        let database = try CallbackTestDatabase()
        _ = database.handle.createScalarFunction(name: "coded", argumentCount: 0) { _, _ in
            throw TestFunctionError(resultCode: .constraint, description: "value rejected")
        }
        _ = database.handle.createScalarFunction(name: "plain", argumentCount: 0) { _, _ in
            throw PlainError()
        }
        #expect(database.run("SELECT coded()") == .constraint)
        #expect(database.errorMessage == "value rejected")
        #expect(database.run("SELECT plain()") == .error)
        #expect(database.errorMessage == "plain failure")
    }

    @Test("function closures are released when replaced, removed, and when the connection closes")
    func functionBoxesReleased() throws {
        let database = try CallbackTestDatabase()
        let counter = DeinitCounter()
        func define(_ name: String, result: Int64) {
            let canary = Canary(counter)
            _ = database.handle.createScalarFunction(name: name, argumentCount: 0) { context, _ in
                canary.touch()
                context.resultInt64(result)
            }
        }
        define("f", result: 1)
        define("g", result: 2)
        #expect(try database.column("SELECT f()") == ["1"])
        define("f", result: 3)
        #expect(counter.count == 1)
        #expect(try database.column("SELECT f()") == ["3"])
        #expect(database.handle.removeFunction(name: "g", argumentCount: 0) == .ok)
        #expect(counter.count == 2)
        #expect(database.run("SELECT g()") == .error)
        #expect(database.close() == .ok)
        #expect(counter.count == 3)
    }

    @Test("a function is released when its definition fails")
    func failedDefinitionReleases() throws {
        let database = try CallbackTestDatabase()
        let counter = DeinitCounter()
        do {
            let canary = Canary(counter)
            // An argument count below -1 is a misuse.
            let code = database.handle.createScalarFunction(name: "f", argumentCount: -2) { _, _ in canary.touch() }
            #expect(code == .misuse)
        }
        #expect(counter.count == 1)
    }

    @Test("an aggregate folds each group, and over no rows returns the final value of its initial state")
    func aggregateFunction() throws {
        let database = try CallbackTestDatabase()
        let code = database.handle.createAggregateFunction(
            name: "product",
            argumentCount: 1,
            initialState: { 1.0 },
            step: { product, arguments in product *= arguments[0].valueDouble() },
            final: { context, product in context.resultDouble(product) }
        )
        #expect(code == .ok)
        try database.execute("CREATE TABLE t(k, x); INSERT INTO t VALUES ('a', 2), ('a', 3), ('b', 5)")
        #expect(
            try database.rows("SELECT k, product(x) FROM t GROUP BY k ORDER BY k") == [["a", "6.0"], ["b", "5.0"]])
        #expect(try database.column("SELECT product(x) FROM t WHERE 0") == ["1.0"])
    }

    @Test("an aggregate's state is released after each evaluation, also when a step throws")
    func aggregateStateReleased() throws {
        let database = try CallbackTestDatabase()
        let counter = DeinitCounter()
        _ = database.handle.createAggregateFunction(
            name: "checked",
            argumentCount: 1,
            initialState: { (canary: Canary(counter), count: Int64(0)) },
            step: { state, arguments in
                guard arguments[0].valueInt64() >= 0 else { throw PlainError() }
                state.count += 1
            },
            final: { context, state in context.resultInt64(state.count) }
        )
        try database.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)")
        #expect(try database.column("SELECT checked(x) FROM t") == ["2"])
        // One state for the evaluation over two rows.
        #expect(counter.count == 1)
        try database.execute("INSERT INTO t VALUES (-1)")
        #expect(database.run("SELECT checked(x) FROM t") == .error)
        #expect(database.errorMessage == "plain failure")
        #expect(counter.count == 2)
        // The final step over no rows makes and releases a fresh state.
        #expect(try database.column("SELECT checked(x) FROM t WHERE 0") == ["0"])
        #expect(counter.count == 3)
    }

    @Test("the context form of an aggregate keeps its own state, released by its final step also after an error")
    func aggregateContextForm() throws {
        let database = try CallbackTestDatabase()
        let counter = DeinitCounter()
        typealias State = (canary: Canary, sum: Int64)
        let code = database.handle.createAggregateFunction(
            name: "summed",
            argumentCount: 1,
            step: { context, arguments in
                guard let state = context.aggregateState(initial: { (canary: Canary(counter), sum: Int64(0)) }) else {
                    context.resultErrorNoMemory()
                    return
                }
                guard arguments[0].valueInt64() >= 0 else { throw PlainError() }
                state.pointee.sum += arguments[0].valueInt64()
            },
            final: { context in
                // No state when no step ran: -1 tells that case apart.
                context.resultInt64(context.takeAggregateState(State.self)?.sum ?? -1)
            }
        )
        #expect(code == .ok)
        try database.execute("CREATE TABLE t(k, x); INSERT INTO t VALUES ('a', 2), ('a', 3), ('b', 5)")
        #expect(try database.rows("SELECT k, summed(x) FROM t GROUP BY k ORDER BY k") == [["a", "5"], ["b", "5"]])
        #expect(counter.count == 2)
        #expect(try database.column("SELECT summed(x) FROM t WHERE 0") == ["-1"])
        #expect(counter.count == 2)
        try database.execute("INSERT INTO t VALUES ('a', -1)")
        #expect(database.run("SELECT summed(x) FROM t") == .error)
        #expect(database.errorMessage == "plain failure")
        #expect(counter.count == 3)
    }

    @Test("a window function computes a sum over a sliding frame")
    func windowFunction() throws {
        let database = try CallbackTestDatabase()
        let code = database.handle.createWindowFunction(
            name: "sumint",
            argumentCount: 1,
            initialState: { Int64(0) },
            step: { sum, arguments in sum += arguments[0].valueInt64() },
            inverse: { sum, arguments in sum -= arguments[0].valueInt64() },
            value: { context, sum in context.resultInt64(sum) },
            final: { context, sum in context.resultInt64(sum) }
        )
        #expect(code == .ok)
        try database.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3), (4), (5)")
        let sums = try database.column(
            "SELECT sumint(x) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM t ORDER BY x"
        )
        #expect(sums == ["3", "6", "9", "12", "9"])
        #expect(try database.column("SELECT sumint(x) FROM t") == ["15"])
    }

    @Test("a collation orders rows and is released when replaced and when the connection closes")
    func collationOrders() throws {
        let database = try CallbackTestDatabase()
        let counter = DeinitCounter()
        do {
            let canary = Canary(counter)
            // Shorter strings first, then bytewise.
            let code = database.handle.createCollation(name: "bylength") { left, right in
                canary.touch()
                if left.count != right.count { return left.count < right.count ? -1 : 1 }
                return left.lexicographicallyPrecedes(right) ? -1 : (left.elementsEqual(right) ? 0 : 1)
            }
            #expect(code == .ok)
        }
        try database.execute("CREATE TABLE t(x); INSERT INTO t VALUES ('ccc'), ('a'), ('bb'), ('ab'), ('')")
        #expect(try database.column("SELECT x FROM t ORDER BY x COLLATE bylength") == ["", "a", "ab", "bb", "ccc"])
        #expect(counter.count == 0)

        do {
            let canary = Canary(counter)
            let code = database.handle.createCollation(name: "bylength") { left, right in
                canary.touch()
                return left.count == right.count ? 0 : (left.count > right.count ? -1 : 1)
            }
            #expect(code == .ok)
        }
        #expect(counter.count == 1)
        #expect(try database.column("SELECT x FROM t ORDER BY x COLLATE bylength, x")[0] == "ccc")
        #expect(database.close() == .ok)
        #expect(counter.count == 2)
    }

    @Test("a bound pointer reaches a function through value_pointer with the same type")
    func pointerPassing() throws {
        let database = try CallbackTestDatabase()
        let payload = UnsafeMutablePointer<Int64>.allocate(capacity: 1)
        defer { payload.deallocate() }
        payload.pointee = 42
        _ = database.handle.createScalarFunction(name: "deref", argumentCount: 1) { context, arguments in
            guard let pointer = arguments[0].pointer(type: "sqltk-test-pointer") else {
                context.resultNull()
                return
            }
            context.resultInt64(pointer.load(as: Int64.self))
        }
        let rows = try database.rows("SELECT deref(?), deref(1), ? IS NULL") { statement in
            let handle = StatementHandle(rawValue: statement)
            _ = handle.bindPointer(1, UnsafeMutableRawPointer(payload), type: pointerType, destructor: nil)
            _ = handle.bindPointer(2, UnsafeMutableRawPointer(payload), type: pointerType, destructor: nil)
        }
        #expect(rows == [["42", nil, "1"]])
    }

    @Test("function arguments are a random-access collection of the call's values")
    func argumentsCollection() throws {
        let database = try CallbackTestDatabase()
        _ = database.handle.createScalarFunction(name: "describe", argumentCount: -1) { context, arguments in
            let kinds = arguments.map { $0.valueType().name ?? "?" }
            context.resultString("\(arguments.count):" + kinds.joined(separator: ","))
        }
        #expect(
            try database.column("SELECT describe(1, 'a', NULL, 2.5, x'00')")
                == ["5:SQLITE_INTEGER,SQLITE_TEXT,SQLITE_NULL,SQLITE_FLOAT,SQLITE_BLOB"]
        )
    }
}
