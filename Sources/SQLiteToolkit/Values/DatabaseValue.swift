import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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

extension DatabaseValue {
    /// The storage class and size, never the value: `INTEGER`, `REAL`, `TEXT of 12 bytes`, `BLOB of 16 bytes`.
    /// Errors use it, because by default they carry no user data.
    public var storageDescription: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text(let text): "TEXT of \(text.utf8.count) bytes"
        case .blob(let data): "BLOB of \(data.count) bytes"
        }
    }

    /// ``description`` cut to about `limit` characters, for errors that opted in to show values: the start of
    /// a long text or blob and its size, built without formatting the rest.
    public func truncatedDescription(limit: Int = 64) -> String {
        switch self {
        case .text(let text) where text.utf8.count > limit:
            let start = String(decoding: text.utf8.prefix(limit), as: UTF8.self)
            return DatabaseValue.text(start).description + "... (\(storageDescription))"
        case .blob(let data) where data.count > limit / 2:
            return DatabaseValue.blob(data.prefix(limit / 2)).description + "... (\(storageDescription))"
        default:
            return description
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
        case .text(let value):
            // Quotes doubled without Foundation's `replacingOccurrences` (not in FoundationEssentials).
            return "'" + value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
        case .blob(let value):
            // Hex digits by hand: `String(format:)` is in full Foundation only, not in FoundationEssentials.
            let digits = Array("0123456789ABCDEF".utf8)
            var text: [UInt8] = Array("X'".utf8)
            text.reserveCapacity(3 + 2 * value.count)
            for byte in value {
                text.append(digits[Int(byte >> 4)])
                text.append(digits[Int(byte & 0x0F)])
            }
            text.append(UInt8(ascii: "'"))
            return String(decoding: text, as: UTF8.self)
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
