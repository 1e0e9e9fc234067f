import CSQLiteToolkit
import Foundation
import Testing

// Just enough of a connection, over the prefixed C API, to keep the tests short.

/// A call into SQLite that did not return `SQLITE_OK`, `SQLITE_ROW` or `SQLITE_DONE`.
struct SQLiteFailure: Error, CustomStringConvertible {
    /// What the failing call returned (a primary or an extended result code).
    let resultCode: Int32
    /// What `sqltk_sqlite3_errcode` said right after the failing call.
    let connectionErrorCode: Int32
    /// What `sqltk_sqlite3_errmsg` said right after the failing call.
    let message: String

    /// The primary result code: the low 8 bits of `resultCode`.
    var primaryCode: Int32 { resultCode & 0xFF }

    var description: String { "SQLite error \(resultCode): \(message)" }
}

/// One connection opened with `sqltk_sqlite3_open_v2`, closed by `close()` or when released.
final class TestDatabase {
    private(set) var handle: OpaquePointer?

    /// Opens (and creates when missing) the database at `path`, in memory by default.
    init(path: String = ":memory:") throws {
        var handle: OpaquePointer?
        let resultCode = sqltk_sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
        guard resultCode == SQLITE_OK else {
            let failure = SQLiteFailure(
                resultCode: resultCode,
                connectionErrorCode: sqltk_sqlite3_errcode(handle),
                message: String(cString: sqltk_sqlite3_errmsg(handle))
            )
            sqltk_sqlite3_close_v2(handle)
            throw failure
        }
        self.handle = handle
    }

    deinit {
        sqltk_sqlite3_close_v2(handle)
    }

    /// Closes the connection, so that the file on disk is complete and unlocked.
    func close() throws {
        let resultCode = sqltk_sqlite3_close(handle)
        guard resultCode == SQLITE_OK else { throw failure(resultCode) }
        handle = nil
    }

    /// `sqltk_sqlite3_key` with the UTF-8 bytes of `key`; returns its result code.
    func key(_ key: String) -> Int32 {
        let bytes = Array(key.utf8)
        return sqltk_sqlite3_key(handle, bytes, Int32(bytes.count))
    }

    /// `sqltk_sqlite3_rekey` with the UTF-8 bytes of `key`, or with no key at all
    /// (NULL, 0) when `key` is nil; returns its result code.
    func rekey(_ key: String?) -> Int32 {
        guard let key else { return sqltk_sqlite3_rekey(handle, nil, 0) }
        let bytes = Array(key.utf8)
        return sqltk_sqlite3_rekey(handle, bytes, Int32(bytes.count))
    }

    /// Runs one or more statements that return no rows of interest.
    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let resultCode = sqltk_sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqltk_sqlite3_free(message) }
        guard resultCode == SQLITE_OK else { throw failure(resultCode) }
    }

    /// Runs one statement, binding `arguments` as text to `?1`, `?2`…, and returns
    /// every row with each column read as text (nil for NULL).
    @discardableResult
    func rows(_ sql: String, arguments: [String] = []) throws -> [[String?]] {
        var statement: OpaquePointer?
        let prepared = sqltk_sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        defer { sqltk_sqlite3_finalize(statement) }
        guard prepared == SQLITE_OK else { throw failure(prepared) }
        for (offset, argument) in arguments.enumerated() {
            let bound = sqltk_sqlite3_bind_text(statement, Int32(offset + 1), argument, -1, sqltk_transient())
            guard bound == SQLITE_OK else { throw failure(bound) }
        }
        var rows: [[String?]] = []
        while true {
            let stepped = sqltk_sqlite3_step(statement)
            if stepped == SQLITE_DONE { return rows }
            guard stepped == SQLITE_ROW else { throw failure(stepped) }
            rows.append((0..<sqltk_sqlite3_column_count(statement)).map { text(statement, column: $0) })
        }
    }

    /// The first column of every row of `sql`.
    func column(_ sql: String, arguments: [String] = []) throws -> [String?] {
        try rows(sql, arguments: arguments).map { $0.first ?? nil }
    }

    /// The first column of the first row of `sql`, nil when there is no row or it is NULL.
    func scalar(_ sql: String, arguments: [String] = []) throws -> String? {
        try column(sql, arguments: arguments).first ?? nil
    }

    private func text(_ statement: OpaquePointer?, column: Int32) -> String? {
        guard sqltk_sqlite3_column_type(statement, column) != SQLITE_NULL,
            let bytes = sqltk_sqlite3_column_text(statement, column)
        else { return nil }
        let count = Int(sqltk_sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    private func failure(_ resultCode: Int32) -> SQLiteFailure {
        SQLiteFailure(
            resultCode: resultCode,
            connectionErrorCode: sqltk_sqlite3_errcode(handle),
            message: String(cString: sqltk_sqlite3_errmsg(handle))
        )
    }
}

/// Expects the first query on `database` to fail with `SQLITE_NOTADB`, both as the
/// code `prepare` returns and as the connection's error code: what a missing or
/// wrong key looks like.
func expectNotADatabase(_ database: TestDatabase, sourceLocation: SourceLocation = #_sourceLocation) {
    let failure = #expect(throws: SQLiteFailure.self, sourceLocation: sourceLocation) {
        try database.rows("SELECT count(*) FROM sqlite_schema")
    }
    #expect(failure?.primaryCode == SQLITE_NOTADB, sourceLocation: sourceLocation)
    #expect(failure?.connectionErrorCode == SQLITE_NOTADB, sourceLocation: sourceLocation)
}

/// A path in the temporary folder that no other test uses; remove it with `removeDatabaseFiles`.
func temporaryDatabasePath() -> String {
    FileManager.default.temporaryDirectory
        .appendingPathComponent("sqltk-test-\(UUID().uuidString).sqlite").path
}

/// Removes a database file and the journal files SQLite may have left beside it.
func removeDatabaseFiles(atPath path: String) {
    for suffix in ["", "-journal", "-wal", "-shm"] {
        try? FileManager.default.removeItem(atPath: path + suffix)
    }
}

/// The bytes of the file at `path`.
func fileBytes(atPath path: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: path))
}

extension Data {
    /// Whether this starts with the 16-byte header of a plain SQLite 3 database,
    /// "SQLite format 3" and a NUL (https://sqlite.org/fileformat2.html#magic_header_string).
    var hasSQLiteHeader: Bool {
        starts(with: Array("SQLite format 3\0".utf8))
    }

    /// Whether the UTF-8 bytes of `text` occur anywhere in this.
    func contains(_ text: String) -> Bool {
        range(of: Data(text.utf8)) != nil
    }
}
