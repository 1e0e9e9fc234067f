import Foundation
import SQLiteBindings

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
        try DateStorageCoding.bind(self, as: statement.dateStorage, to: statement.handle, at: index)
    }

    /// Reads the date, numbers in the unit of the statement's connection's ``Database/Configuration/dateStorage``.
    @inlinable
    public static func read(from statement: Statement, at index: Int32) throws -> Date {
        try DateStorageCoding.read(from: statement.handle, at: index, as: statement.dateStorage)
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

/// A `Date` stored as ISO-8601 text with milliseconds in UTC (`2026-11-22T10:30:00.000Z`).
///
/// The format holds the years 0001 to 9999: binding a date outside them, or NaN or an infinity, throws
/// `SQLITE_MISMATCH` instead of storing a wrong date.
public struct ISO8601Date: DatabaseValueConvertible, Hashable, Sendable {
    /// The date.
    public var date: Date

    /// Wraps a date.
    public init(_ date: Date) {
        self.date = date
    }

    /// The first and last instants the format holds: 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z.
    /// Foundation's Gregorian calendar is Julian before October 1582, so year 1 starts two days before the proleptic
    /// Gregorian year 1.
    static let representableSeconds: ClosedRange<TimeInterval> = -62_135_769_600...253_402_300_799.999

    /// Whether the format can hold the date.
    var isRepresentable: Bool { Self.representableSeconds.contains(date.timeIntervalSince1970) }

    /// The date as ISO-8601 text; NULL for a date the format cannot hold (binding such a date throws).
    public var databaseValue: DatabaseValue {
        guard isRepresentable else { return .null }
        return .text(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
    }

    /// Binds the ISO-8601 text; throws `SQLITE_MISMATCH` for a date outside the years 0001 to 9999, NaN or an
    /// infinity.
    public func bind(to statement: StatementHandle, at index: Int32) throws {
        guard isRepresentable else { throw Self.unrepresentableError }
        try databaseValue.bind(to: statement, at: index)
    }

    static let unrepresentableError = DatabaseError.mismatch(
        "an ISO8601Date outside the years 0001 to 9999 (or NaN) cannot be stored as ISO-8601 text",
        reason: .valueMismatch
    )

    /// A date from any form `Date` reads.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> ISO8601Date? {
        Date.fromDatabaseValue(value).map(ISO8601Date.init)
    }
}

/// Parsing of the text forms of dates.
enum DateParsing {
    /// Parses numeric text as Unix seconds, `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS[.SSS]]` (UTC) and ISO-8601 with a
    /// `T` and a zone. Total: any text gives a date or `nil`, never a trap.
    static func date(from text: String) -> Date? {
        if let seconds = unixSeconds(from: text) { return Date(timeIntervalSince1970: seconds) }
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
            return date
        }
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle()) { return date }
        return sqliteDate(from: text)
    }

    /// Numeric text (`1361361600`, `1361361600.5`, `-1.5e9`) as finite Unix seconds.
    static func unixSeconds(from text: String) -> TimeInterval? {
        // Only text made of a number's characters: `Double("nan")` and `Double("inf")` parse, and are no date.
        guard let first = text.utf8.first,
            first == UInt8(ascii: "-") || first == UInt8(ascii: "+") || first == 46
                || (48...57).contains(first)
        else { return nil }
        guard let seconds = Double(text), seconds.isFinite else { return nil }
        return seconds
    }

    private static func sqliteDate(from text: String) -> Date? {
        let scalars = Array(text.utf8)
        // At most 4 digits are read as one number here, so the arithmetic cannot overflow.
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= scalars.count, range.count <= 4 else { return nil }
            var value = 0
            for byte in scalars[range] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        // The fraction of a second: any number of digits, of which the first 9 (nanoseconds) count.
        func fraction(_ range: Range<Int>) -> Double? {
            guard !range.isEmpty, range.upperBound <= scalars.count else { return nil }
            var value = 0.0
            var scale = 1.0
            for (position, byte) in scalars[range].enumerated() {
                guard byte >= 48, byte <= 57 else { return nil }
                if position < 9 {
                    value = value * 10 + Double(byte - 48)
                    scale *= 10
                }
            }
            return value / scale
        }
        guard scalars.count >= 10, scalars[4] == 45, scalars[7] == 45,
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10)
        else { return nil }
        var components = DateComponents(
            calendar: Calendar(identifier: .gregorian),
            timeZone: TimeZone(identifier: "UTC"),
            year: year,
            month: month,
            day: day
        )
        var seconds = 0.0
        if scalars.count > 10 {
            guard scalars.count >= 16, scalars[10] == 32 || scalars[10] == 84, scalars[13] == 58,
                let hour = number(11..<13), let minute = number(14..<16)
            else { return nil }
            components.hour = hour
            components.minute = minute
            if scalars.count > 16 {
                guard scalars.count >= 19, scalars[16] == 58, let second = number(17..<19) else { return nil }
                seconds = Double(second)
                if scalars.count > 19 {
                    guard scalars[19] == 46, let fraction = fraction(20..<scalars.count) else { return nil }
                    seconds += fraction
                }
            }
        }
        // The calendar would roll an impossible date over (month 13 becomes January): reject it instead.
        guard components.isValidDate, seconds < 60, let date = components.date else { return nil }
        return date.addingTimeInterval(seconds)
    }
}

/// UUIDs are stored as 16-byte blobs; reading also accepts their text form.
extension UUID: DatabaseValueConvertible {
    /// The UUID as a 16-byte `.blob`.
    public var databaseValue: DatabaseValue {
        .blob(withUnsafeBytes(of: uuid) { Data($0) })
    }

    /// A UUID from a 16-byte blob or from text such as `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> UUID? {
        switch value {
        case .blob(let data) where data.count == 16:
            var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &bytes) { $0.copyBytes(from: data) }
            return UUID(uuid: bytes)
        case .text(let text):
            return UUID(uuidString: text)
        default:
            return nil
        }
    }
}
