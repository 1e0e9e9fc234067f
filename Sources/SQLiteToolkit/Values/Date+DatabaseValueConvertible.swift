import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Dates are stored as the connection's ``Database/Configuration/dateStorage`` says: REAL Unix seconds with
/// fractions by default, as FMDB stored them, or ISO-8601 text, or a REAL Julian day.
///
/// Reading accepts numbers (integer, real, or numeric text such as `1361361600.0`, which is what a REAL date
/// becomes in a column declared `TEXT`) in the connection's unit (Unix seconds, or Julian days with
/// ``Database/DateStorage/julianDay``), SQLite's `YYYY-MM-DD HH:MM:SS[.SSS]` in UTC (what `CURRENT_TIMESTAMP`
/// writes), and ISO-8601 text. Any text can be read without a crash: what is not a date throws `SQLITE_MISMATCH`.
/// To store ISO-8601 text whatever the connection's strategy, bind ``ISO8601Date``; for any other format, wrap
/// `Date` in a type of your own that conforms to ``DatabaseValueConvertible``.
extension Date: DatabaseValueConvertible {
    /// The date as `.real` Unix seconds: the form used where no connection is known.
    public var databaseValue: DatabaseValue { .real(timeIntervalSince1970) }

    /// Binds the date in the form of the statement's connection's ``Database/Configuration/dateStorage``.
    @inlinable
    public func bind(to statement: Statement, at index: Int32) throws {
        switch try DateStorageCoding.storedForm(of: self, as: statement.dateStorage) {
        case .real(let number): try number.bind(to: statement.handle, at: index)
        case .text(let text): try text.bind(to: statement.handle, at: index)
        }
    }

    /// Reads the date, numbers in the unit of the statement's connection's ``Database/Configuration/dateStorage``.
    @inlinable
    public static func read(from statement: Statement, at index: Int32) throws -> Date {
        try DateStorageCoding.read(from: statement.handle, at: index, as: statement.dateStorage)
    }

    /// Reads a function argument as a date, numbers in the unit of `dateStorage`.
    @inlinable
    public static func read(from value: ValueHandle, dateStorage: Database.DateStorage) throws -> Date {
        try DateStorageCoding.read(from: value, as: dateStorage)
    }

    /// Makes the date a function's result in the form of `dateStorage`, as it binds.
    @inlinable
    public func setResult(of context: FunctionContext, dateStorage: Database.DateStorage) throws {
        switch try DateStorageCoding.storedForm(of: self, as: dateStorage) {
        case .real(let number): context.resultDouble(number)
        case .text(let text): context.resultString(text)
        }
    }

    /// A date from Unix seconds or from text in SQLite's or ISO-8601 format.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Date? {
        switch value {
        case .integer(let seconds): Date(timeIntervalSince1970: TimeInterval(seconds))
        case .real(let seconds): Date(timeIntervalSince1970: seconds)
        case .text(let text): DateParsing.date(from: text)
        default: nil
        }
    }
}
