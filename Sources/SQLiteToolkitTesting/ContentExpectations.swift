import SQLiteToolkit
import Testing

/// Expects the rows of a query to equal `expected`, in order; on failure, records an issue with the SQL, the
/// column names and a row-by-row diff.
///
/// ```swift
/// try expectRows("SELECT name, score FROM player ORDER BY name", in: db, equal: [
///     ["Arthur", 100],
///     ["Barbara", nil],
/// ])
/// ```
///
/// Values compare by storage class as well as value: `1` (an integer) is not `1.0` (a real), as SQLite's
/// `typeof()` tells them apart. Write the rows as literals of `DatabaseValue` (`nil` is NULL) or build them with
/// its cases (`.blob(data)`).
///
/// - Parameters:
///   - sql: one query; write an `ORDER BY` when the order matters and is not otherwise defined.
///   - arguments: the query's arguments.
///   - db: the connection.
///   - expected: the rows, each an array of its column values.
///   - comment: a comment recorded with the issue when the expectation fails.
///   - sourceLocation: where the issue is reported: the caller's line.
/// - Returns: whether the rows were equal.
/// - Throws: the query's error; a failed expectation records an issue and does not throw.
@discardableResult
public func expectRows(
    _ sql: String,
    arguments: StatementArguments = [],
    in db: Database,
    equal expected: [[DatabaseValue]],
    _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> Bool {
    let actual = try RowTable(db, sql, arguments: arguments)
    return actual.expect(equal: expected, title: "Rows of \(sql)", comment, sourceLocation)
}

/// Expects the rows of a query to equal `expected`, read in a read access of a queue or pool (for example
/// ``TestDatabase/current``).
///
/// - Returns: whether the rows were equal.
/// - Throws: the query's or the access's error; a failed expectation records an issue and does not throw.
@discardableResult
public func expectRows(
    _ sql: String,
    arguments: StatementArguments = [],
    in database: some DatabaseReader,
    equal expected: [[DatabaseValue]],
    _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> Bool {
    let actual = try database.read { db in try RowTable(db, sql, arguments: arguments) }
    return actual.expect(equal: expected, title: "Rows of \(sql)", comment, sourceLocation)
}

/// Expects the whole content of a table to equal `expected`, whatever the order of its rows; on failure, records an
/// issue with the column names and a row-by-row diff.
///
/// ```swift
/// try expectTable("player", in: db, equal: [
///     [1, "Arthur", 100],
///     [2, "Barbara", nil],
/// ])
/// ```
///
/// A table's rows have no order, so both sides are sorted before they are compared and shown (NULL first, then
/// numbers, text and blobs, column by column, as SQLite's `ORDER BY` does without a collation); every column of
/// the table is compared, in the order of its definition (`SELECT *`).
///
/// - Returns: whether the contents were equal.
/// - Throws: the query's error (a table that does not exist, a name holding a NUL); a failed expectation records
///   an issue and does not throw.
@discardableResult
public func expectTable(
    _ table: String,
    in db: Database,
    equal expected: [[DatabaseValue]],
    _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> Bool {
    let actual = try RowTable(db, table: table)
    return actual.sorted().expect(
        equal: expected.sorted(by: RowTable.precedes), title: "Content of table \(table)", comment, sourceLocation)
}

/// Expects the whole content of a table to equal `expected`, read in a read access of a queue or pool (for
/// example ``TestDatabase/current``).
///
/// - Returns: whether the contents were equal.
/// - Throws: the query's or the access's error; a failed expectation records an issue and does not throw.
@discardableResult
public func expectTable(
    _ table: String,
    in database: some DatabaseReader,
    equal expected: [[DatabaseValue]],
    _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> Bool {
    let actual = try database.read { db in try RowTable(db, table: table) }
    return actual.sorted().expect(
        equal: expected.sorted(by: RowTable.precedes), title: "Content of table \(table)", comment, sourceLocation)
}

extension RowTable {
    /// Returns whether the rows equal `expected`; records an issue with the diff when they do not.
    func expect(
        equal expected: [[DatabaseValue]], title: String, _ comment: Comment?, _ sourceLocation: SourceLocation
    ) -> Bool {
        if rows == expected { return true }
        var message = "\(title)\n" + diff(expected: expected)
        if let comment { message += "\n\(comment.rawValue)" }
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        return false
    }
}
