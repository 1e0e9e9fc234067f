import SQLiteBindings

/// A cursor over the rows of a query.
///
/// ```swift
/// let rows = try db.query("SELECT name, score FROM player WHERE score > ?", 100)
/// while let row = try rows.next() {
///     let name: String = try row.value(at: 0)
///     let score: Int = try row.value(named: "score")
/// }
/// ```
///
/// After the last row, ``next()`` returns `nil` every time and never runs the query again. After an error,
/// ``next()`` throws that same error every time. Dropping a cursor before the end resets its statement, so an
/// unfinished read leaves no lock behind.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
public final class Rows {
    /// The statement being read.
    public let statement: Statement
    @usableFromInline let returnsToCache: Bool
    @exclusivity(unchecked) @usableFromInline var isFinished = false
    @exclusivity(unchecked) @usableFromInline var failure: DatabaseError?

    @usableFromInline
    init(statement: Statement, returnsToCache: Bool) throws {
        try statement.checkUsable()
        guard !statement.hasOpenCursor else {
            throw DatabaseError.misuse(
                "the statement is already being read by another cursor", sql: statement.sql, reason: .statementInUse)
        }
        statement.checksColumnsAfterStep = true
        self.statement = statement
        self.returnsToCache = returnsToCache
        statement.hasOpenCursor = true
        statement.database.openCursorCount += 1
        statement.openCursor = Unmanaged.passUnretained(self)
    }

    deinit {
        close()
    }

    /// Whether the cursor is still reading (it has not reached the end, failed, or been closed).
    public var isOpen: Bool { !isFinished }

    /// The next row, or `nil` after the last one. The row is valid until the next call.
    @inlinable
    public func next() throws -> Row? {
        // Small enough to inline into the caller's loop, where the row can borrow the cursor's statement instead
        // of retaining it; the rare cases are out of line. A failure always finishes the cursor too.
        if isFinished || statement.isFinalized { return try nextAfterEnd() }
        let code = statement.handle.step()
        statement.checkColumnsAfterFirstStep()
        if code == .row { return Row(statement: statement) }
        return try finish(code)
    }

    /// ``next()`` once the cursor is finished, failed, or its connection closed.
    @usableFromInline
    func nextAfterEnd() throws -> Row? {
        if let failure { throw failure }
        if isFinished { return nil }
        _ = statement.finalizedError()  // finishes a close deferred from inside a callback
        let error = DatabaseError.misuse(
            "the database was closed while a cursor was open", sql: statement.sql, reason: .connectionClosed)
        failure = error
        throw error
    }

    /// Ends the cursor after a step that gave no row: `nil` at the end, else the step's error, kept for later calls.
    @usableFromInline
    func finish(_ code: ResultCode) throws -> Row? {
        if code == .done {
            close()
            return nil
        }
        let error = statement.database.error(code, sql: statement.sql)
        failure = error
        close()
        throw error
    }

    /// Calls `body` with each remaining row.
    @inlinable
    public func forEach(_ body: (Row) throws -> Void) throws {
        while let row = try next() { try body(row) }
    }

    /// Reads every remaining row with `transform`.
    @inlinable
    public func map<T>(_ transform: (Row) throws -> T) throws -> [T] {
        var result: [T] = []
        while let row = try next() { result.append(try transform(row)) }
        return result
    }

    /// Stops reading: resets the statement (releasing its locks) and, for a cached statement, returns it to the
    /// cache. Called when the cursor reaches the end, fails, or is dropped.
    public func close() {
        guard !isFinished else { return }
        isFinished = true
        statement.hasOpenCursor = false
        statement.checksColumnsAfterStep = true
        statement.openCursor = nil
        guard !statement.isFinalized else {
            // The connection closed: release it if a callback closed it while this cursor's statement ran.
            _ = statement.finalizedError()
            return
        }
        statement.database.openCursorCount -= 1
        _ = statement.handle.reset()
        statement.tellObservers(succeeded: failure == nil)
        if returnsToCache { statement.database.statementCache.checkIn(statement) }
    }
}

extension Rows {
    /// Closes the cursor so that every later ``next()`` throws `error`: used when the access of a queue or pool
    /// that opened it ends, so the cursor cannot be read from another thread.
    func end(throwing error: DatabaseError) {
        guard !isFinished else { return }
        failure = error
        close()
    }
}

@available(*, unavailable, message: "a cursor belongs to its connection's thread")
extension Rows: Sendable {}
