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

/// The current row of a cursor. Valid until the cursor moves on; copy what you keep.
///
/// Reads follow SQLite's conversions (text `'5'` reads as the integer 5, 5 reads as the text `"5"`, text that is
/// not a number reads as 0). Reading NULL as a non-optional type throws; read `Int?` to get `nil`. Reading a row
/// after its database was closed throws `SQLITE_MISUSE`.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/column_blob.html>
public struct Row {
    /// The statement whose current row this is.
    public let statement: Statement

    @usableFromInline
    init(statement: Statement) {
        self.statement = statement
    }

    /// The number of columns.
    public var count: Int { Int(statement.columnCount) }

    /// The value of column `index` (0-based) as `T`.
    @inlinable
    public func value<T: DatabaseValueConvertible>(at index: Int, as type: T.Type = T.self) throws -> T {
        // One comparison checks both the index and that the connection is still open.
        try read(T.self, at: try statement.columnIndexIfReadable(index))
    }

    /// The value of the leftmost column named `name` (case-insensitive) as `T`.
    @inlinable @inline(__always)
    public func value<T: DatabaseValueConvertible>(
        named name: String,
        as type: T.Type = T.self
    ) throws -> T {
        // The name lookup also checks that the connection is still open.
        try read(T.self, at: try statement.columnIndex(named: name))
    }

    @inlinable
    func read<T: DatabaseValueConvertible>(_ type: T.Type, at index: Int32) throws -> T {
        do {
            return try T.read(from: statement, at: index)
        } catch {
            throw readError(error, at: index)
        }
    }

    /// Adds the SQL to a failed read and, when the connection opted in to values in errors, the value, truncated.
    @usableFromInline
    func readError(_ error: any Error, at index: Int32) -> any Error {
        guard var error = error as? DatabaseError else { return error }
        if error.sql == nil { error.sql = statement.sql }
        if error.code == .mismatch, !statement.isFinalized, statement.database.configuration.includesArgumentsInErrors {
            let value = DatabaseValue.read(from: statement.handle, at: index)
            error.message += " (value: \(value.truncatedDescription()))"
        }
        return error
    }

    /// The bytes of column `index` without copying, valid only until the cursor moves on or the column is read
    /// again as another type. Empty for NULL and for an empty blob.
    @inlinable
    public func withUnsafeBytes<R>(
        at index: Int,
        _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R {
        try statement.checkUsable()
        return try body(statement.handle.columnBlobNoCopy(try statement.columnIndex(index)))
    }

    /// The bytes of the leftmost column named `name` (case-insensitive) without copying, valid only until the
    /// cursor moves on or the column is read again as another type. Empty for NULL and for an empty blob.
    @inlinable
    public func withUnsafeBytes<R>(
        named name: String,
        _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R {
        try statement.checkUsable()
        return try body(statement.handle.columnBlobNoCopy(try statement.columnIndex(named: name)))
    }

    /// The value of column `index` in its storage class; `.null` for an index out of range or once the
    /// database is closed.
    public subscript(index: Int) -> DatabaseValue {
        guard index >= 0, index < count, !statement.isFinalized else { return .null }
        return DatabaseValue.read(from: statement.handle, at: Int32(index))
    }

    /// The row as a dictionary from exact column names to values; with duplicate names, the leftmost wins.
    public var dictionary: [String: DatabaseValue] {
        var result: [String: DatabaseValue] = [:]
        for (index, name) in statement.columnNames.enumerated().reversed() {
            result[name] = self[index]
        }
        return result
    }

    /// The row's values in column order.
    public var values: [DatabaseValue] { (0..<count).map { self[$0] } }
}

@available(*, unavailable, message: "a row belongs to its connection's thread")
extension Row: Sendable {}
