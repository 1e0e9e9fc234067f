import CSQLiteToolkit

/// A result code of SQLite: primary (`SQLITE_BUSY`) or extended (`SQLITE_BUSY_SNAPSHOT`).
///
/// Every primary and extended code is a static member (`.busy`, `.busySnapshot`), generated from `sqlite3.h`.
/// A primary code used as a pattern matches its extended codes too, in `switch` and in `catch`:
///
/// ```swift
/// switch code {
/// case .constraint: ...  // also matches .constraintUnique, .constraintForeignkey, ...
/// default: ...
/// }
/// do { ... } catch ResultCode.busy { ... }  // any error that reports a busy code
/// ```
///
/// Related SQLite documentation: <https://sqlite.org/rescode.html>
public struct ResultCode: RawRepresentable, Hashable, Sendable {
    /// The C value.
    public var rawValue: Int32

    /// Wraps a C value.
    @inlinable
    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The primary code: the low 8 bits (`SQLITE_BUSY` for `SQLITE_BUSY_SNAPSHOT`).
    @inlinable
    public var primary: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

    /// Whether this code is an extended code rather than a primary one.
    @inlinable
    public var isExtended: Bool { rawValue & ~0xFF != 0 }

    /// Whether the code reports an error: anything but `SQLITE_OK`, `SQLITE_ROW` and `SQLITE_DONE` (and their
    /// extended forms).
    @inlinable
    public var isError: Bool {
        let primary = rawValue & 0xFF
        return primary != 0 && primary != 100 && primary != 101
    }

    /// Matches `value` against `pattern`: equal codes match, and a primary pattern matches its extended codes.
    @inlinable
    public static func ~= (pattern: ResultCode, value: ResultCode) -> Bool {
        pattern == value || (!pattern.isExtended && value.primary == pattern)
    }

    /// Matches an error that reports a result code (a ``ResultCodeError`` or a thrown ``ResultCode``) against
    /// `pattern`, so `catch ResultCode.busy` works.
    @inlinable
    public static func ~= (pattern: ResultCode, error: any Error) -> Bool {
        if let code = error as? ResultCode { return pattern ~= code }
        if let error = error as? any ResultCodeError { return pattern ~= error.resultCode }
        return false
    }
}

extension ResultCode: CustomStringConvertible {
    /// SQLite's English description of the code (`sqlite3_errstr`), with its C name when it has one.
    public var description: String {
        let text = String(cString: sqltk_sqlite3_errstr(rawValue))
        return name.map { "\(text) (\($0))" } ?? "\(text) (\(rawValue))"
    }
}

extension ResultCode: Error {}

/// An error that carries a SQLite result code, so `catch ResultCode.constraint` can match it.
public protocol ResultCodeError: Error {
    /// The extended result code of the failure.
    var resultCode: ResultCode { get }
}
