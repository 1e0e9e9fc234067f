import Foundation
import SQLiteBindings

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
        return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
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
