#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// SQL written with string interpolation, where every interpolated value becomes a `?` and a bound argument.
///
/// ```swift
/// let name = "Robert'); DROP TABLE player;--"
/// try db.execute(sql: "INSERT INTO player (name) VALUES (\(name))")  // safe: name is bound, not pasted
/// ```
///
/// Use ``SQL/StringInterpolation/appendInterpolation(literal:)`` for the rare SQL fragment (an identifier you
/// control) that must be pasted as text.
public struct SQL: ExpressibleByStringInterpolation, Sendable, Hashable {
    /// The SQL text with `?` for every value.
    public private(set) var text: String
    /// The values, in order.
    public private(set) var arguments: [DatabaseValue]
    /// Why an interpolated value cannot be bound (an integer above `Int64.max`); running the SQL throws it.
    var unrepresentable: String?
    /// The interpolated dates by position (their Unix seconds are in ``arguments``), bound in the form of the
    /// connection's ``Database/Configuration/dateStorage``.
    var dates: [Int: Date] = [:]
    /// The interpolated ``CArray``s by position (NULL in ``arguments``), bound with `sqlite3_carray_bind`.
    var arrays: [Int: CArray] = [:]

    /// SQL without arguments.
    public init(stringLiteral value: String) {
        text = value
        arguments = []
    }

    /// SQL from an interpolation.
    public init(stringInterpolation: StringInterpolation) {
        text = stringInterpolation.text
        arguments = stringInterpolation.arguments
        unrepresentable = stringInterpolation.unrepresentable
        dates = stringInterpolation.dates
        arrays = stringInterpolation.arrays
        // Each array's `?` must close carray( at once: carray() with more arguments reads nothing.
        if unrepresentable == nil {
            for end in stringInterpolation.arrayMarkEnds where !CArray.closesCArray(text[end...]) {
                unrepresentable = CArray.extraArgumentsProblem
                break
            }
        }
    }

    /// The arguments, ready to bind.
    var statementArguments: StatementArguments {
        StatementArguments(arguments, unrepresentable: unrepresentable, dates: dates, arrays: arrays)
    }

    /// Collects text and arguments.
    public struct StringInterpolation: StringInterpolationProtocol {
        var text = ""
        var arguments: [DatabaseValue] = []
        var unrepresentable: String?
        var dates: [Int: Date] = [:]
        var arrays: [Int: CArray] = [:]
        /// Where the text after each interpolated array's `?` starts.
        var arrayMarkEnds: [String.Index] = []

        /// Reserves room.
        public init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + interpolationCount)
        }

        /// Appends SQL text.
        public mutating func appendLiteral(_ literal: String) {
            text += literal
        }

        /// Appends a `?` and binds `value` to it.
        public mutating func appendInterpolation<T: DatabaseValueConvertible>(_ value: T) {
            append(value)
        }

        /// Appends a `?` and binds `value` to it, or NULL for `nil`. (Spelled out so that interpolating an optional
        /// does not draw the compiler's "debug description for an optional value" warning.)
        public mutating func appendInterpolation<T: DatabaseValueConvertible>(_ value: T?) {
            append(value)
        }

        /// Appends a `?` and binds `values` to it as the argument of `carray()`, which must come right before:
        /// `"… WHERE id IN carray(\(ids))"` (see ``CArray``).
        public mutating func appendInterpolation(_ values: [Int64]) { append(CArray(values)) }

        /// Appends a `?` and binds `values` as 64-bit integers to it, the argument of `carray()`.
        public mutating func appendInterpolation(_ values: [Int]) { append(CArray(values)) }

        /// Appends a `?` and binds `values` as 32-bit integers to it, the argument of `carray()`.
        public mutating func appendInterpolation(_ values: [Int32]) { append(CArray(values)) }

        /// Appends a `?` and binds `values` to it, the argument of `carray()`.
        public mutating func appendInterpolation(_ values: [Double]) { append(CArray(values)) }

        /// Appends a `?` and binds `values` to it, the argument of `carray()`.
        public mutating func appendInterpolation(_ values: [String]) { append(CArray(values)) }

        /// Appends a `?` and binds `values` as BLOBs to it, the argument of `carray()`.
        public mutating func appendInterpolation(_ values: [Data]) { append(CArray(values)) }

        private mutating func append(_ array: CArray) {
            if unrepresentable == nil, !CArray.followsCArray(text) { unrepresentable = CArray.outsideCArrayProblem }
            arrays[arguments.count] = array
            text += "?"
            arrayMarkEnds.append(text.endIndex)
            arguments.append(.null)
        }

        private mutating func append(_ value: (any DatabaseValueConvertible)?) {
            let converted = StatementArguments.convert(value, problem: &unrepresentable)
            // An array's value is NULL: only NULL values pay for the cast.
            if case .null = converted, let array = value as? CArray { return append(array) }
            text += "?"
            if let date = StatementArguments.date(value, converted: converted) { dates[arguments.count] = date }
            arguments.append(converted)
        }

        /// Pastes `fragment` as SQL text. Never pass user input here.
        public mutating func appendInterpolation(literal fragment: String) {
            text += fragment
        }
    }
}
