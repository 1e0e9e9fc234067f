import Foundation
import SQLiteBindings

/// A value as SQLite stores it: one of its five storage classes.
///
/// Related SQLite documentation: <https://sqlite.org/datatype3.html>
public enum DatabaseValue: Sendable, Hashable {
    /// SQL NULL.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An IEEE 754 double. NaN is stored by SQLite as NULL.
    case real(Double)
    /// UTF-8 text, which may contain NUL characters.
    case text(String)
    /// Bytes; an empty blob is not NULL.
    case blob(Data)

    /// Whether the value is NULL.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The storage class.
    public var datatype: Datatype {
        switch self {
        case .null: .null
        case .integer: .integer
        case .real: .float
        case .text: .text
        case .blob: .blob
        }
    }
}

extension DatabaseValue: CustomStringConvertible {
    /// The value as SQL would show it: `NULL`, `42`, `1.5`, `'text'`, `X'0A0B'`.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .text(let value): return "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let value): return "X'" + value.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
}

extension DatabaseValue: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral
{
    /// `nil` is SQL NULL.
    public init(nilLiteral: ()) { self = .null }
    /// An integer literal is an `.integer`.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A float literal is a `.real`.
    public init(floatLiteral value: Double) { self = .real(value) }
    /// A string literal is a `.text`.
    public init(stringLiteral value: String) { self = .text(value) }
}
