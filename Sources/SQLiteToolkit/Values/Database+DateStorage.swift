import Foundation
import SQLiteBindings

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

/// The conversions between `Date` and the forms of ``Database/DateStorage``.
@usableFromInline
enum DateStorageCoding {
    /// The Julian day number of 1970-01-01 00:00:00 UTC.
    static let julianDayOfUnixEpoch = 2_440_587.5
    static let secondsPerDay = 86_400.0

    /// Binds `date` to parameter `index` of `handle` in the form `storage` asks for.
    @usableFromInline
    static func bind(_ date: Date, as storage: Database.DateStorage, to handle: StatementHandle, at index: Int32)
        throws
    {
        switch storage {
        case .unixSeconds:
            try date.timeIntervalSince1970.bind(to: handle, at: index)
        case .julianDay:
            try (date.timeIntervalSince1970 / secondsPerDay + julianDayOfUnixEpoch).bind(to: handle, at: index)
        case .iso8601:
            let wrapped = ISO8601Date(date)
            guard wrapped.isRepresentable else { throw unrepresentableError }
            try wrapped.databaseValue.bind(to: handle, at: index)
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
        switch handle.columnType(index) {
        case .integer:
            return date(fromNumber: Double(handle.columnInt64(index)), as: storage)
        case .float:
            return date(fromNumber: handle.columnDouble(index), as: storage)
        case .text:
            let text = handle.columnText(index) ?? ""
            if let number = DateParsing.unixSeconds(from: text) { return date(fromNumber: number, as: storage) }
            if let date = DateParsing.date(from: text) { return date }
            throw readMismatch(.text(text), as: Date.self)
        case .null:
            return try Date.readNull()
        default:
            throw readMismatch(DatabaseValue.read(from: handle, at: index), as: Date.self)
        }
    }
}
