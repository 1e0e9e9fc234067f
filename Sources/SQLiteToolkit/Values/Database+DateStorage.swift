import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Database {
    /// How a connection stores the `Date` values it binds, set with ``Configuration/dateStorage``.
    ///
    /// Every `Date` bound on the connection follows it: positional arguments, `(name, value)` pairs, dictionaries
    /// and ``StatementArguments``, and values interpolated into ``SQL``. Reading accepts every form whatever the
    /// strategy: integers and reals, and numeric text (what a number becomes in a column declared `TEXT`), are
    /// read in the connection's numeric unit (Julian days with ``julianDay``, Unix seconds otherwise); other text
    /// is read as ISO-8601 or as SQLite's `YYYY-MM-DD HH:MM:SS[.SSS]` (UTC).
    ///
    /// ```swift
    /// var configuration = Database.Configuration()
    /// configuration.dateStorage = .iso8601
    /// let db = try Database(path: path, configuration: configuration)
    /// try db.execute("INSERT INTO event (at) VALUES (?)", Date())  // '2026-11-22T10:30:00.000Z'
    /// ```
    ///
    /// The connection's custom functions follow it too: a `Date` result is stored in its form, a `Date` argument
    /// reads as a column does. A `Date` converted without a connection (its
    /// ``DatabaseValueConvertible/databaseValue``) is Unix seconds. ``ISO8601Date`` stores ISO-8601 text whatever
    /// the connection's strategy.
    ///
    /// Related SQLite documentation: <https://sqlite.org/lang_datefunc.html>
    public enum DateStorage: Sendable, Hashable {
        /// REAL seconds since 1970-01-01 00:00:00 UTC, with fractions: FMDB's choice, and the default.
        /// `datetime(column, 'unixepoch')` reads it in SQL.
        case unixSeconds
        /// TEXT in ISO-8601 with milliseconds in UTC (`2026-11-22T10:30:00.000Z`), which sorts in time order and
        /// which SQLite's date functions read directly. It holds the years 0001 to 9999: binding any other date,
        /// or NaN, throws ``DatabaseError/Reason/valueMismatch``.
        case iso8601
        /// REAL Julian day number (days since noon UTC on November 24, 4714 BC in the proleptic Gregorian
        /// calendar), what SQLite's `julianday()` returns. A REAL holds it to about 40 microseconds.
        case julianDay
    }
}

/// The conversions between `Date` and the forms of ``Database/DateStorage``: the one place dates are converted, for
/// statements (binding, reading columns) and for custom functions (arguments and results) alike.
@usableFromInline
enum DateStorageCoding {
    /// The Julian day number of 1970-01-01 00:00:00 UTC.
    static let julianDayOfUnixEpoch = 2_440_587.5
    static let secondsPerDay = 86_400.0

    /// What a date is stored as: a REAL or a TEXT.
    @usableFromInline
    enum StoredForm {
        case real(Double)
        case text(String)
    }

    /// The form `storage` stores `date` in; throws for a date the ISO-8601 form cannot hold.
    @usableFromInline
    static func storedForm(of date: Date, as storage: Database.DateStorage) throws -> StoredForm {
        switch storage {
        case .unixSeconds:
            return .real(date.timeIntervalSince1970)
        case .julianDay:
            return .real(date.timeIntervalSince1970 / secondsPerDay + julianDayOfUnixEpoch)
        case .iso8601:
            guard let text = ISO8601Date(date).text else { throw unrepresentableError }
            return .text(text)
        }
    }

    static let unrepresentableError = DatabaseError.mismatch(
        "a Date outside the years 0001 to 9999 (or NaN) cannot be stored as ISO-8601 text", reason: .valueMismatch)

    /// The date a stored number stands for: Julian days with ``Database/DateStorage/julianDay``, else Unix seconds.
    static func date(fromNumber number: Double, as storage: Database.DateStorage) -> Date {
        switch storage {
        case .julianDay: Date(timeIntervalSince1970: (number - julianDayOfUnixEpoch) * secondsPerDay)
        case .unixSeconds, .iso8601: Date(timeIntervalSince1970: number)
        }
    }

    /// Reads column `index` of `handle`'s current row as a date, numbers in the unit of `storage`.
    @usableFromInline
    static func read(from handle: StatementHandle, at index: Int32, as storage: Database.DateStorage) throws -> Date {
        try read(ColumnSource(handle: handle, index: index), as: storage)
    }

    /// Reads a function argument as a date, numbers in the unit of `storage`.
    @usableFromInline
    static func read(from value: ValueHandle, as storage: Database.DateStorage) throws -> Date {
        try read(FunctionArgumentSource(value: value), as: storage)
    }

    /// Reads a stored value as a date: numbers (and numeric text, what a number becomes in a column declared
    /// `TEXT`) in the unit of `storage`, other text as ISO-8601 or as SQLite's `YYYY-MM-DD HH:MM:SS[.SSS]` (UTC).
    private static func read<Source: StoredValueSource>(_ source: Source, as storage: Database.DateStorage) throws
        -> Date
    {
        switch source.storageClass {
        case .integer:
            return date(fromNumber: Double(source.int64()), as: storage)
        case .float:
            return date(fromNumber: source.double(), as: storage)
        case .text:
            let text = source.text() ?? ""
            if let number = DateParsing.unixSeconds(from: text) { return date(fromNumber: number, as: storage) }
            if let date = DateParsing.date(from: text) { return date }
            throw source.mismatch(as: Date.self)
        case .null:
            return try Date.readNull()
        default:
            throw source.mismatch(as: Date.self)
        }
    }
}

/// A stored value a conversion reads: a column of a statement's current row, or an argument of a custom function.
/// Conversions written against it read both the same way.
protocol StoredValueSource {
    /// The value's storage class.
    var storageClass: Datatype { get }
    /// The value as SQLite's 64-bit integer.
    func int64() -> Int64
    /// The value as a double.
    func double() -> Double
    /// The value as text; `nil` for NULL.
    func text() -> String?
    /// The error of a value that cannot be read as `type`, in the words the source's other reads use.
    func mismatch<T>(as type: T.Type) -> DatabaseError
}

/// Column `index` of `handle`'s current row.
struct ColumnSource: StoredValueSource {
    let handle: StatementHandle
    let index: Int32

    var storageClass: Datatype { handle.columnType(index) }
    func int64() -> Int64 { handle.columnInt64(index) }
    func double() -> Double { handle.columnDouble(index) }
    func text() -> String? { handle.columnText(index) }

    func mismatch<T>(as type: T.Type) -> DatabaseError {
        readMismatch(DatabaseValue.read(from: handle, at: index), as: type)
    }
}

/// An argument of a custom function.
struct FunctionArgumentSource: StoredValueSource {
    let value: ValueHandle

    var storageClass: Datatype { value.valueType() }
    func int64() -> Int64 { value.valueInt64() }
    func double() -> Double { value.valueDouble() }
    func text() -> String? { value.valueString() }

    func mismatch<T>(as type: T.Type) -> DatabaseError {
        DatabaseError.mismatch("cannot read a \(value.valueType()) argument as \(T.self)")
    }
}
