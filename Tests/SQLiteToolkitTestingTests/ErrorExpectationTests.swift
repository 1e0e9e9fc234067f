import SQLiteToolkit
import SQLiteToolkitTesting
import Testing

/// A database with a table whose names are unique, holding "Arthur".
private func playerDatabase() throws -> Database {
    let db = try Database()
    try db.execute("CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)")
    try db.execute("INSERT INTO player (name) VALUES (?)", "Arthur")
    return db
}

/// Expects `issues` to be one issue, reported from this file, whose message holds every one of `parts`.
private func expectOneIssue(
    _ issues: [Issue], saying parts: String..., sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(issues.count == 1, "\(issues)", sourceLocation: sourceLocation)
    for issue in issues {
        for part in parts {
            #expect(issue.message.contains(part), "\(issue.message)", sourceLocation: sourceLocation)
        }
        #expect(issue.sourceLocation?.fileName == "ErrorExpectationTests.swift", sourceLocation: sourceLocation)
    }
}

@Suite("Testing: database errors matched by code and reason", .capturingRecordedIssues)
struct ErrorExpectationTests {
    @Test(
        "Swift Testing's #expect(throws: ResultCode.constraint) does not match a DatabaseError: it casts to ResultCode")
    func swiftTestingValueForm() throws {
        let db = try playerDatabase()
        // #expect(throws:) compares values of the expected type, and DatabaseError is not a ResultCode.
        let issues = recordedIssues {
            #expect(throws: ResultCode.constraint) {
                try db.execute("INSERT INTO player (name) VALUES (?)", "Arthur")
            }
        }
        #expect(issues.count == 1)
        #expect(
            issues.allSatisfy { issue in
                if case .expectationFailed = issue.kind { true } else { false }
            }, "\(issues)")
    }

    @Test("a primary code matches its extended codes, and the matched error is returned")
    func primaryCode() throws {
        let db = try playerDatabase()
        let error = expectDatabaseError(.constraint) {
            try db.execute("INSERT INTO player (name) VALUES (?)", "Arthur")
        }
        #expect(error?.extendedCode == .constraintUnique)
    }

    @Test("an extended code matches itself")
    func extendedCode() throws {
        let db = try playerDatabase()
        expectDatabaseError(.constraintNotnull) {
            try db.execute("INSERT INTO player (name) VALUES (NULL)")
        }
    }

    @Test("a code and a reason in one call, or a reason alone")
    func reason() throws {
        let db = try playerDatabase()
        expectDatabaseError(.misuse, reason: .nestedTransaction) {
            try db.transaction { db in try db.transaction { _ in } }
        }
        expectDatabaseError(reason: .noRow) {
            try db.queryRequiredValue("SELECT name FROM player WHERE id = ?", 42, as: String.self)
        }
    }

    @Test("async code: awaited matchers, by code and by reason")
    func async() async throws {
        let queue = try DatabaseQueue()
        try await queue.write { db in try db.execute("CREATE TABLE player (name TEXT NOT NULL UNIQUE)") }
        try await queue.write { db in try db.execute("INSERT INTO player (name) VALUES ('Arthur')") }
        await expectDatabaseError(.constraint) {
            try await queue.write { db in try db.execute("INSERT INTO player (name) VALUES ('Arthur')") }
        }
        queue.close()
        await expectDatabaseError(reason: .accessAfterClose) {
            try await queue.read { _ in }
        }
    }

    @Test("another code fails, naming the expected and the thrown codes")
    func wrongCode() throws {
        let db = try playerDatabase()
        var error: DatabaseError?
        let issues = recordedIssues {
            error = expectDatabaseError(.busy) {
                try db.execute("INSERT INTO player (name) VALUES (?)", "Arthur")
            }
        }
        #expect(error == nil)
        expectOneIssue(
            issues,
            saying:
                "Expected a DatabaseError with code SQLITE_BUSY (5), but a DatabaseError with code SQLITE_CONSTRAINT_UNIQUE (2067) and reason none was thrown: SQLite error 2067"
        )
    }

    @Test("another extended code of the same primary code fails")
    func wrongExtendedCode() throws {
        let db = try playerDatabase()
        let issues = recordedIssues {
            expectDatabaseError(.constraintNotnull) {
                try db.execute("INSERT INTO player (name) VALUES (?)", "Arthur")
            }
        }
        expectOneIssue(issues, saying: "code SQLITE_CONSTRAINT_NOTNULL (1299), but", "SQLITE_CONSTRAINT_UNIQUE (2067)")
    }

    @Test("another reason fails, naming both reasons")
    func wrongReason() throws {
        let db = try playerDatabase()
        let issues = recordedIssues {
            expectDatabaseError(.misuse, reason: .connectionClosed) {
                try db.transaction { db in try db.transaction { _ in } }
            }
        }
        expectOneIssue(
            issues, saying: "code SQLITE_MISUSE (21) and reason connectionClosed, but",
            "and reason nestedTransaction was thrown")
    }

    @Test("nothing thrown fails, and says so, with the comment")
    func nothingThrown() throws {
        let db = try playerDatabase()
        let issues = recordedIssues {
            expectDatabaseError(.constraint, "a second Barbara is fine") {
                try db.execute("INSERT INTO player (name) VALUES (?)", "Barbara")
            }
        }
        expectOneIssue(issues, saying: "but nothing was thrown\na second Barbara is fine")
    }

    @Test("an error of another type fails, naming its type")
    func otherErrorType() async {
        let thrown = recordedIssues {
            expectDatabaseError(reason: .noRow) { throw CancellationError() }
        }
        expectOneIssue(thrown, saying: "Expected a DatabaseError with reason noRow, but CancellationError was thrown")
        let awaited = await recordedIssues {
            await expectDatabaseError(.interrupt) { try await Task.sleep(nanoseconds: 0) }
        }
        expectOneIssue(awaited, saying: "code SQLITE_INTERRUPT (9), but nothing was thrown")
    }
}
