import Foundation

/// Reals as the sqlite3 shell 3.40 writes them with SQLite's `%!.15g` (list, CSV and the column modes) and
/// `%!.20g` (quote, insert and JSON modes): SQLite 3.40's own conversion, not C's.
///
/// That conversion scales the value into [1, 10) in x87 extended precision (`long double` on x86-64), adds half a
/// unit of the last digit asked for, and reads up to 26 digits off one at a time; past 17 digits they drift from
/// the exact decimal expansion (`-9102.125` is written `-9102.1249999999999996` with 20 digits). Writing the same
/// digits is what makes the output the same bytes as sqlite3's. Where Swift has no `Float80` (arm64, where
/// `long double` is not the x87 format either), C's correctly rounded `%g` is used instead.
///
/// Related SQLite documentation: <https://sqlite.org/printf.html>
enum RealFormat {
    /// `number` as `%!.{digits}g`: at most `digits` significant digits, trailing zeros removed but a `.0` kept,
    /// exponent form below 1e-4 or from 10^digits, `Inf` and `-Inf` for the infinities.
    static func text(_ number: Double, digits: Int) -> String {
        if number.isInfinite { return number < 0 ? "-Inf" : "Inf" }
        #if arch(x86_64) || arch(i386)
            return extendedPrecisionText(number, digits: digits)
        #else
            return cText(number, digits: digits)
        #endif
    }

    /// C's `%.{digits}g`, with the `.0` SQLite's `!` flag adds.
    static func cText(_ number: Double, digits: Int) -> String {
        var text = String(format: "%.\(digits)g", number)
        if !text.contains(".") && !text.contains("n") {
            if let exponent = text.firstIndex(of: "e") {
                text.insert(contentsOf: ".0", at: exponent)
            } else {
                text += ".0"
            }
        }
        return text
    }

    #if arch(x86_64) || arch(i386)
        /// The digits SQLite 3.40 computes, step by step in the same precision.
        private static func extendedPrecisionText(_ number: Double, digits: Int) -> String {
            var value = Float80(number.magnitude)
            let isNegative = number < 0
            // `%g` with precision P writes P significant digits: one before the point, P - 1 after it.
            var decimals = max(0, digits - 1)
            // Half a unit of the last digit, as a Double: 0.5 scaled down one decade per decimal.
            let halves: [Double] = [5e-1, 5e-2, 5e-3, 5e-4, 5e-5, 5e-6, 5e-7, 5e-8, 5e-9, 5e-10]
            var rounder = halves[decimals % 10]
            var remaining = decimals
            while remaining >= 10 {
                rounder *= 1e-10
                remaining -= 10
            }
            // Into [1, 10), counting the decades. SQLite's constants are C doubles widened to `long double`: a
            // Float80 literal such as `Float80(1e100)` is nearer to 1e100 than the double, and gives other digits.
            let tenTo100 = Float80(1e100 as Double)
            let tenTo10 = Float80(1e10 as Double)
            let tenToMinus8 = Float80(1e-8 as Double)
            let tenTo8 = Float80(1e8 as Double)
            let oneTenth = Float80(0.1 as Double)
            var exponent = 0
            if value > 0 {
                var scale: Float80 = 1
                while value >= tenTo100 * scale && exponent <= 350 {
                    scale *= tenTo100
                    exponent += 100
                }
                while value >= tenTo10 * scale && exponent <= 350 {
                    scale *= tenTo10
                    exponent += 10
                }
                while value >= 10 * scale && exponent <= 350 {
                    scale *= 10
                    exponent += 1
                }
                value /= scale
                while value < tenToMinus8 {
                    value *= tenTo8
                    exponent -= 8
                }
                while value < 1 {
                    value *= 10
                    exponent -= 1
                }
            }
            value += Float80(rounder)
            if value >= 10 {
                value *= oneTenth
                exponent += 1
            }
            let usesExponent = exponent < -4 || exponent > decimals
            var integerDigits = 0
            if !usesExponent {
                decimals -= exponent
                integerDigits = exponent
            }
            // Digits past the 26th are zeros, as SQLite writes them.
            var digitsLeft = 26
            func nextDigit() -> UInt8 {
                guard digitsLeft > 0 else { return UInt8(ascii: "0") }
                digitsLeft -= 1
                let digit = Int(value)
                value = (value - Float80(digit)) * 10
                return UInt8(ascii: "0") + UInt8(truncatingIfNeeded: digit)
            }
            var text: [UInt8] = isNegative ? [UInt8(ascii: "-")] : []
            if integerDigits < 0 {
                text.append(UInt8(ascii: "0"))
            } else {
                for _ in 0...integerDigits { text.append(nextDigit()) }
            }
            text.append(UInt8(ascii: "."))
            var leadingZeros = integerDigits + 1
            while leadingZeros < 0 {
                text.append(UInt8(ascii: "0"))
                decimals -= 1
                leadingZeros += 1
            }
            while decimals > 0 {
                text.append(nextDigit())
                decimals -= 1
            }
            while text.last == UInt8(ascii: "0") { text.removeLast() }
            if text.last == UInt8(ascii: ".") { text.append(UInt8(ascii: "0")) }
            if usesExponent {
                text.append(UInt8(ascii: "e"))
                text.append(exponent < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
                var magnitude = abs(exponent)
                if magnitude >= 100 {
                    text.append(UInt8(ascii: "0") + UInt8(magnitude / 100))
                    magnitude %= 100
                }
                text.append(UInt8(ascii: "0") + UInt8(magnitude / 10))
                text.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            }
            return String(decoding: text, as: UTF8.self)
        }
    #endif
}
