#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Parsing of the text forms of dates.
enum DateParsing {
    /// Parses numeric text as Unix seconds, `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS[.SSS]]` (UTC) and ISO-8601 with a
    /// `T` and a zone. Total: any text gives a date or `nil`, never a trap.
    static func date(from text: String) -> Date? {
        if let seconds = unixSeconds(from: text) { return Date(timeIntervalSince1970: seconds) }
        if let date = iso8601Date(from: text) { return date }
        return sqliteDate(from: text)
    }

    /// ISO-8601 with a `T` and a zone, with or without a fraction of a second.
    private static func iso8601Date(from text: String) -> Date? {
        if #available(macOS 12, iOS 15, tvOS 15, watchOS 8, *) {
            if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
                return date
            }
            return try? Date(text, strategy: Date.ISO8601FormatStyle())
        }
        #if canImport(Darwin)
            // Below macOS 12, iOS 15, tvOS 15 and watchOS 8: `ISO8601DateFormatter` (macOS 10.12, iOS 10), which
            // reads the same internet date-time forms. Full Foundation is what an Apple platform imports anyway.
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = formatter.date(from: text) { return date }
            formatter.formatOptions = [.withInternetDateTime]
            return formatter.date(from: text)
        #else
            // Not reached: outside Apple platforms the format style has no minimum system version.
            return nil
        #endif
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
