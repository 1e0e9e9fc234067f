import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
        text.map(DatabaseValue.text) ?? .null
    }

    /// The ISO-8601 text; `nil` for a date the format cannot hold.
    var text: String? {
        guard isRepresentable else { return nil }
        if #available(macOS 12, iOS 15, tvOS 15, watchOS 8, *) {
            return formatStyleText
        }
        return fallbackText
    }

    /// The text from Foundation's `Date.ISO8601FormatStyle` (macOS 12, iOS 15, tvOS 15, watchOS 8).
    @available(macOS 12, iOS 15, tvOS 15, watchOS 8, *)
    var formatStyleText: String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// The same text as ``formatStyleText`` (a test compares both over the whole range), computed here for the
    /// systems below macOS 12, iOS 15, tvOS 15 and watchOS 8. It follows the format style where it differs from plain
    /// arithmetic: milliseconds are rounded down (never up), and the calendar is Julian before 1582-10-15, as
    /// Foundation's Gregorian calendar is. Only for a representable date (years 0001 to 9999).
    var fallbackText: String {
        // Foundation keeps a date as seconds since 2001-01-01, and the format style takes the fraction of that
        // value: the same rounding here gives the same millisecond for every date.
        let sinceReferenceDate = date.timeIntervalSinceReferenceDate
        let whole = sinceReferenceDate.rounded(.down)
        let milliseconds = min(Int64((sinceReferenceDate - whole) * 1000), 999)
        // Int64, not Int: the seconds of year 9999 do not fit in 32 bits (watchOS's arm64_32).
        let unixSeconds = Int64(whole) + 978_307_200
        var days = unixSeconds / 86_400
        var secondOfDay = unixSeconds % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        // 1582-10-15, the first day of the Gregorian calendar, is day -141,427 of the Unix epoch.
        let (year, month, day) = days < -141_427 ? Self.julianDate(days) : Self.gregorianDate(days)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        func append(_ value: Int64, digits: Int, then separator: Unicode.Scalar) {
            var divisor: Int64 = 1
            for _ in 1..<digits { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value / divisor % 10))
                divisor /= 10
            }
            bytes.append(UInt8(ascii: separator))
        }
        append(year, digits: 4, then: "-")
        append(month, digits: 2, then: "-")
        append(day, digits: 2, then: "T")
        append(secondOfDay / 3600, digits: 2, then: ":")
        append(secondOfDay / 60 % 60, digits: 2, then: ":")
        append(secondOfDay % 60, digits: 2, then: ".")
        append(milliseconds, digits: 3, then: "Z")
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01: the civil-from-days computation over 400-year
    /// eras of 146,097 days, with years starting on March 1 so that the leap day ends them.
    private static func gregorianDate(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let sinceMarchOfYearZero = days + 719_468
        let era = (sinceMarchOfYearZero >= 0 ? sinceMarchOfYearZero : sinceMarchOfYearZero - 146_096) / 146_097
        let dayOfEra = sinceMarchOfYearZero - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The Julian calendar date of a day counted from 1970-01-01 (Julian day number 2,440,588), for the days before
    /// 1582-10-15; years from March 1 again, in 4-year cycles of 1,461 days.
    private static func julianDate(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 2_440_588 + 32_082
        let cycleYear = (4 * shifted + 3) / 1461
        let dayOfYear = shifted - 1461 * cycleYear / 4
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch + 3 - 12 * (monthFromMarch / 10)
        return (cycleYear - 4800 + monthFromMarch / 10, month, day)
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

    /// Makes the ISO-8601 text a function's result, whatever the connection's date storage; throws
    /// `SQLITE_MISMATCH` for a date outside the years 0001 to 9999, NaN or an infinity.
    public func setResult(of context: FunctionContext, dateStorage: Database.DateStorage) throws {
        try date.setResult(of: context, dateStorage: .iso8601)
    }

    /// A date from any form `Date` reads.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> ISO8601Date? {
        Date.fromDatabaseValue(value).map(ISO8601Date.init)
    }
}
