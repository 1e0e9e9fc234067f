import SQLiteBindings

/// An error from SQLite or from the toolkit's checks of a call: it names what was wrong.
///
/// Match it by code, without looking at the message:
///
/// ```swift
/// do {
///     try db.execute("INSERT INTO player (id) VALUES (?)", 1)
/// } catch ResultCode.constraint {
///     // any constraint violation: .constraintUnique, .constraintPrimarykey, ...
/// } catch let error as DatabaseError where error.extendedCode == .constraintUnique {
///     ...
/// }
/// ```
///
/// The bound arguments appear in the error only when the connection was opened with
/// ``Database/Configuration/includesArgumentsInErrors`` set: by default an error never carries user data.
///
/// Related SQLite documentation: <https://sqlite.org/rescode.html>
public struct DatabaseError: ResultCodeError, Sendable, Hashable, CustomStringConvertible {
    /// The extended result code (`.constraintUnique`); the primary code is ``code``.
    public var extendedCode: ResultCode
    /// SQLite's message, or the toolkit's for errors it detects itself (`SQLITE_MISUSE` and `SQLITE_RANGE`
    /// codes are used for those).
    public var message: String
    /// The SQL that failed, when there is one.
    public var sql: String?
    /// The byte offset in ``sql`` of the token SQLite blames, when it says (`sqlite3_error_offset`).
    public var errorOffset: Int?
    /// A description of the bound arguments, only when the connection opted in.
    public var arguments: String?
    /// Why the toolkit itself refused the call, for the errors it detects before or around SQLite (a closed
    /// connection, an argument mismatch, ...); `nil` for errors SQLite reports.
    public var reason: Reason?

    /// Creates an error.
    public init(
        extendedCode: ResultCode,
        message: String,
        sql: String? = nil,
        errorOffset: Int? = nil,
        arguments: String? = nil,
        reason: Reason? = nil
    ) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
        self.errorOffset = errorOffset
        self.arguments = arguments
        self.reason = reason
    }

    /// The primary result code (`.constraint` for `.constraintUnique`).
    public var code: ResultCode { extendedCode.primary }

    /// The extended code, so `catch ResultCode.busy` matches (see ``ResultCodeError``).
    public var resultCode: ResultCode { extendedCode }

    /// Whether a constraint (UNIQUE, NOT NULL, CHECK, FOREIGN KEY, ...) was violated.
    public var isConstraintViolation: Bool { code == .constraint }
    /// Whether the database was busy (another connection holds a lock) after the busy handling gave up.
    public var isBusy: Bool { code == .busy }
    /// Whether a table was locked by another statement of the same connection or a shared cache.
    public var isLocked: Bool { code == .locked }
    /// Whether the API was misused (a closed connection, a wrong argument count, ...).
    public var isMisuse: Bool { code == .misuse }
    /// Whether the file is not a database, or is encrypted with another key.
    public var isNotADatabase: Bool { code == .notadb }
    /// Whether the statement was interrupted by ``Database/interrupt()`` or a progress handler.
    public var isInterrupted: Bool { code == .interrupt }

    /// The code, the message, the SQL with the error position, and the arguments when included.
    public var description: String {
        var text = "SQLite error \(extendedCode.rawValue) (\(extendedCode.name ?? "unknown code")): \(message)"
        if let sql {
            text += " — in SQL: \(sql)"
            if let errorOffset { text += " (at byte \(errorOffset))" }
        }
        if let arguments { text += " — arguments: \(arguments)" }
        return text
    }
}

extension DatabaseError {
    /// The error of a toolkit check that SQLite never sees: a wrong argument count, an unknown column, ...
    @usableFromInline
    static func misuse(_ message: String, sql: String? = nil, reason: Reason? = nil) -> DatabaseError {
        DatabaseError(extendedCode: .misuse, message: message, sql: sql, reason: reason)
    }

    /// The error of a value that cannot be read or bound as asked.
    @usableFromInline
    static func mismatch(_ message: String, sql: String? = nil) -> DatabaseError {
        DatabaseError(extendedCode: .mismatch, message: message, sql: sql)
    }

    /// The error of an index or name out of range.
    @usableFromInline
    static func range(_ message: String, sql: String? = nil) -> DatabaseError {
        DatabaseError(extendedCode: .range, message: message, sql: sql)
    }
}

extension DatabaseError {
    /// The errors the toolkit detects itself, so a program can tell them apart without reading messages.
    ///
    /// SQLite's code is kept beside the reason (`SQLITE_MISUSE`, `SQLITE_RANGE` or `SQLITE_MISMATCH`), so a
    /// `catch ResultCode.misuse` written for SQLite's own misuse errors keeps matching.
    ///
    /// ```swift
    /// do {
    ///     try db.execute("SELECT 1; SELECT 2")
    /// } catch let error as DatabaseError where error.reason == .multipleStatements(tail: "SELECT 2") {
    ///     ...
    /// }
    /// ```
    public enum Reason: Sendable, Hashable {
        // Each feature adds its cases in its own group below; keep the groups in this order.

        // MARK: Connection and statements
        /// The connection is closed (or the statement or cursor belonged to a connection that was closed since).
        case connectionClosed

        // MARK: Encryption
        /// The key did not decrypt the file, or the file is not a database (`SQLITE_NOTADB`), found by reading
        /// the schema right after the key was applied.
        case wrongKeyOrNotADatabase
        /// A key was given for a database that is not encrypted: open it without a key, then call
        /// ``Database/encrypt(with:cipher:)``.
        case keyForPlainDatabase
        /// The operation needs an encrypted database and the database is plain.
        case notEncrypted
        /// The operation needs a plain database and the database is already encrypted.
        case alreadyEncrypted
        /// The passphrase is empty, which the codec takes as "no key".
        case invalidKey
        /// A raw key that is not 32 bytes (64 hex digits), or a cipher that takes no raw key of that size.
        case invalidRawKey
        /// The codec refused a cipher setting (an unknown scheme, an unknown parameter or a value out of range);
        /// `parameter` is `"cipher"` for the scheme itself.
        case cipherParameterRejected(cipher: String, parameter: String)
        /// A key change was asked for inside a transaction; commit or roll back first.
        case rekeyInTransaction
    }
}
