import SQLiteBindings
import Testing

/// What the tests' counters saw: the depth of each counted call, and how many errors their mapping rewrote.
private final class Recording {
    var depthsSeen: [Int] = []
    var errorsSeen = 0
}

/// A counter whose error mapping counts the errors in `recording` and rewrites them.
private func recordingCounter(_ recording: Recording) -> CallbackCounter {
    CallbackCounter(reportingErrorsAs: { error in
        recording.errorsSeen += 1
        return RewrittenError(description: "rewritten: \(error)")
    })
}

private struct RewrittenError: ResultCodeError, CustomStringConvertible {
    var resultCode: ResultCode { .constraint }
    var description: String
}

private struct PlainFailure: Error, CustomStringConvertible {
    var description: String { "plain failure" }
}

@Suite("Counted custom functions")
struct CallbackCounterTests {
    @Test("a counted scalar function runs at depth 1, nested calls deeper, and the count is 0 after")
    func scalarDepth() throws {
        let database = try CallbackTestDatabase()
        // `outer` captures the database: closing releases the function, and with it the cycle.
        defer { _ = database.close() }
        let recording = Recording()
        let counter = recordingCounter(recording)
        let code = database.handle.createScalarFunction(name: "depth", argumentCount: 1, counter: counter) {
            context, arguments in
            recording.depthsSeen.append(counter.depth)
            context.resultInt64(arguments[0].valueInt64())
        }
        #expect(code == .ok)
        #expect(try database.column("SELECT depth(depth(7))") == ["7"])
        #expect(recording.depthsSeen == [1, 1])
        #expect(counter.depth == 0)
        // A counted function that runs a statement calling another counted function: the inner call is at depth 2.
        _ = database.handle.createScalarFunction(name: "outer", argumentCount: 0, counter: counter) { context, _ in
            recording.depthsSeen.append(counter.depth)
            let inner = try database.column("SELECT depth(5)")
            context.resultInt64(inner.first.flatMap { $0.flatMap { Int64($0) } } ?? -1)
        }
        recording.depthsSeen = []
        #expect(try database.column("SELECT outer()") == ["5"])
        #expect(recording.depthsSeen == [1, 2])
        #expect(counter.depth == 0)
    }

    @Test("an error thrown by a counted function is reported as the counter maps it, and the count drops back")
    func mappedErrors() throws {
        let database = try CallbackTestDatabase()
        let recording = Recording()
        let counter = recordingCounter(recording)
        _ = database.handle.createScalarFunction(name: "fail", argumentCount: 0, counter: counter) { _, _ in
            throw PlainFailure()
        }
        #expect(database.run("SELECT fail()") == .constraint)
        #expect(database.errorMessage == "rewritten: plain failure")
        #expect(recording.errorsSeen == 1)
        #expect(counter.depth == 0)
        // Without a counter, the error is reported as it is.
        _ = database.handle.createScalarFunction(name: "plain", argumentCount: 0, counter: nil) { _, _ in
            throw PlainFailure()
        }
        #expect(database.run("SELECT plain()") == .error)
        #expect(database.errorMessage == "plain failure")
        #expect(recording.errorsSeen == 1)
    }

    @Test("every callback of a counted aggregate and window function is counted")
    func aggregateAndWindowDepth() throws {
        let database = try CallbackTestDatabase()
        let recording = Recording()
        let counter = recordingCounter(recording)
        let aggregate = database.handle.createAggregateFunction(
            name: "total", argumentCount: 1, counter: counter,
            step: { context, arguments in
                recording.depthsSeen.append(counter.depth)
                guard let sum = context.aggregateState(initial: { Int64(0) }) else { return }
                sum.pointee += arguments[0].valueInt64()
            },
            final: { context in
                recording.depthsSeen.append(counter.depth)
                context.resultInt64(context.takeAggregateState(Int64.self) ?? 0)
            }
        )
        #expect(aggregate == .ok)
        try database.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)")
        #expect(try database.column("SELECT total(x) FROM t") == ["6"])
        #expect(recording.depthsSeen == [1, 1, 1, 1])
        let window = database.handle.createWindowFunction(
            name: "moving", argumentCount: 1, counter: counter,
            step: { context, arguments in
                recording.depthsSeen.append(counter.depth)
                guard let sum = context.aggregateState(initial: { Int64(0) }) else { return }
                sum.pointee += arguments[0].valueInt64()
            },
            inverse: { context, arguments in
                recording.depthsSeen.append(counter.depth)
                guard let sum = context.aggregateState(initial: { Int64(0) }) else { return }
                sum.pointee -= arguments[0].valueInt64()
            },
            value: { context in
                recording.depthsSeen.append(counter.depth)
                context.resultInt64(context.existingAggregateState(Int64.self)?.pointee ?? 0)
            },
            final: { context in
                recording.depthsSeen.append(counter.depth)
                context.resultInt64(context.takeAggregateState(Int64.self) ?? 0)
            }
        )
        #expect(window == .ok)
        recording.depthsSeen = []
        #expect(
            try database.column(
                "SELECT moving(x) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t")
                == ["1", "3", "5"])
        #expect(!recording.depthsSeen.isEmpty)
        #expect(recording.depthsSeen.allSatisfy { $0 == 1 })
        #expect(counter.depth == 0)
    }

    @Test("a counted function keeps its counter alive, and both are released with the function")
    func counterLifetime() throws {
        let database = try CallbackTestDatabase()
        weak var weakCounter: CallbackCounter?
        do {
            let counter = CallbackCounter()
            weakCounter = counter
            _ = database.handle.createScalarFunction(name: "one", argumentCount: 0, counter: counter) { context, _ in
                context.resultInt64(1)
            }
        }
        #expect(weakCounter != nil)
        #expect(try database.column("SELECT one()") == ["1"])
        #expect(database.handle.removeFunction(name: "one", argumentCount: 0) == .ok)
        #expect(weakCounter == nil)
    }
}
