import SQLiteToolkit
import Testing

// Swift Testing's `#expect(throws: ResultCode.constraint) { ... }` compiles and always fails on the toolkit's
// errors: it casts the thrown error to the expected value's type (`ResultCode`) and compares with `==`, and the
// toolkit throws `DatabaseError` (whose extended code is `.constraintUnique`, not `.constraint`, anyway). These
// functions are the spelling that works: a code matched the way `catch ResultCode.constraint` matches it, and a
// typed reason, in one call.

/// Expects `body` to throw a `DatabaseError` whose code matches `code` and, when given, whose reason is `reason`;
/// records an issue saying what was thrown instead (or that nothing was) otherwise.
///
/// A primary code matches its extended codes, as in `catch ResultCode.constraint`; an extended code matches only
/// itself:
///
/// ```swift
/// expectDatabaseError(.constraint) {
///     try db.execute("INSERT INTO player (name) VALUES (?)", "Arthur")
/// }
/// expectDatabaseError(.misuse, reason: .nestedTransaction) {
///     try db.transaction { db in try db.transaction { _ in } }
/// }
/// ```
///
/// - Parameters:
///   - code: the result code to match, primary (`.constraint`) or extended (`.constraintUnique`).
///   - reason: the typed reason the error must carry, for the errors the toolkit detects itself; `nil` accepts
///     any reason.
///   - comment: a comment recorded with the issue when the expectation fails.
///   - sourceLocation: where the issue is reported: the caller's line.
///   - body: the code expected to throw.
/// - Returns: the thrown error when it matched, to check more of it; `nil` when the expectation failed.
@discardableResult
public func expectDatabaseError<R>(
    _ code: ResultCode,
    reason: DatabaseError.Reason? = nil,
    _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    performing body: () throws -> R
) -> DatabaseError? {
    DatabaseErrorExpectation(code: code, reason: reason).evaluate(body, comment, sourceLocation)
}

/// Expects `body` to throw a `DatabaseError` whose typed reason is `reason`, whatever its code.
///
/// ```swift
/// expectDatabaseError(reason: .noRow) {
///     try db.queryRequiredValue("SELECT name FROM player WHERE id = ?", 42, as: String.self)
/// }
/// ```
///
/// - Returns: the thrown error when it matched; `nil` when the expectation failed.
@discardableResult
public func expectDatabaseError<R>(
    reason: DatabaseError.Reason,
    _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    performing body: () throws -> R
) -> DatabaseError? {
    DatabaseErrorExpectation(code: nil, reason: reason).evaluate(body, comment, sourceLocation)
}

/// Expects awaited code to throw a `DatabaseError` whose code matches `code` and, when given, whose reason is
/// `reason`, as the blocking form does: `await expectDatabaseError(.constraint) { try await queue.write { ... } }`.
///
/// - Returns: the thrown error when it matched; `nil` when the expectation failed.
@_disfavoredOverload
@discardableResult
public func expectDatabaseError<R>(
    _ code: ResultCode,
    reason: DatabaseError.Reason? = nil,
    _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    performing body: () async throws -> R
) async -> DatabaseError? {
    await DatabaseErrorExpectation(code: code, reason: reason).evaluate(body, comment, sourceLocation)
}

/// Expects awaited code to throw a `DatabaseError` whose typed reason is `reason`, whatever its code.
///
/// - Returns: the thrown error when it matched; `nil` when the expectation failed.
@_disfavoredOverload
@discardableResult
public func expectDatabaseError<R>(
    reason: DatabaseError.Reason,
    _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    performing body: () async throws -> R
) async -> DatabaseError? {
    await DatabaseErrorExpectation(code: nil, reason: reason).evaluate(body, comment, sourceLocation)
}

/// What an `expectDatabaseError` call asks for, and the check of what was thrown.
struct DatabaseErrorExpectation {
    var code: ResultCode?
    var reason: DatabaseError.Reason?

    /// Runs `body` and checks what it threw.
    func evaluate<R>(
        _ body: () throws -> R, _ comment: Comment?, _ sourceLocation: SourceLocation
    ) -> DatabaseError? {
        do {
            _ = try body()
        } catch {
            return check(error, comment, sourceLocation)
        }
        return check(nil, comment, sourceLocation)
    }

    /// Awaits `body` and checks what it threw.
    func evaluate<R>(
        _ body: () async throws -> R, _ comment: Comment?, _ sourceLocation: SourceLocation
    ) async -> DatabaseError? {
        do {
            _ = try await body()
        } catch {
            return check(error, comment, sourceLocation)
        }
        return check(nil, comment, sourceLocation)
    }

    /// Whether `error` is what was expected.
    func matches(_ error: DatabaseError) -> Bool {
        if let code, !(code ~= error.extendedCode) { return false }
        if let reason, error.reason != reason { return false }
        return true
    }

    /// Returns the error when it matches; otherwise records an issue at `sourceLocation` and returns `nil`.
    func check(_ thrown: (any Error)?, _ comment: Comment?, _ sourceLocation: SourceLocation) -> DatabaseError? {
        if let error = thrown as? DatabaseError, matches(error) { return error }
        var message = "Expected \(expected), but \(Self.describe(thrown))"
        if let comment { message += "\n\(comment.rawValue)" }
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        return nil
    }

    /// `a DatabaseError with code SQLITE_CONSTRAINT (19) and reason nestedTransaction`.
    var expected: String {
        var parts: [String] = []
        if let code { parts.append("code \(Self.describe(code))") }
        if let reason { parts.append("reason \(reason)") }
        return "a DatabaseError with " + parts.joined(separator: " and ")
    }

    static func describe(_ code: ResultCode) -> String {
        "\(code.name ?? "an unknown code") (\(code.rawValue))"
    }

    /// What happened instead, for the issue: the code, the reason and the error's own description.
    static func describe(_ thrown: (any Error)?) -> String {
        guard let thrown else { return "nothing was thrown" }
        guard let error = thrown as? DatabaseError else {
            return "\(type(of: thrown)) was thrown: \(thrown)"
        }
        let reason = error.reason.map { "\($0)" } ?? "none"
        return "a DatabaseError with code \(describe(error.extendedCode)) and reason \(reason) was thrown: \(error)"
    }
}
