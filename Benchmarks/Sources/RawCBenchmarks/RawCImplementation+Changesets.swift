import BenchmarkCore
import CSQLiteToolkit

// The changeset workloads in raw C calls of the session extension, as a careful C programmer would write them:
// sqlite3session_create/attach before the inserts, and sqlite3changeset_apply with a C conflict handler that
// answers SQLITE_CHANGESET_REPLACE.

/// The conflict handler of the apply workload: replace every conflicting row.
private func replaceOnConflict(_ context: UnsafeMutableRawPointer?, _ conflict: Int32, _ iterator: OpaquePointer?)
    -> Int32
{
    SQLITE_CHANGESET_REPLACE
}

/// A connection of the changeset workloads, opened like CBaseline's.
private final class SessionConnection {
    var handle: OpaquePointer?

    init(_ location: DatabaseLocation) throws {
        var connection: OpaquePointer?
        let code = sqltk_sqlite3_open_v2(
            location.path, &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        handle = connection
        guard code == SQLITE_OK else {
            close()
            throw BenchmarkError("open \(location.path): \(code)")
        }
        for pragma in location.storage.pragmas { try execute(pragma) }
    }

    func error(_ what: String) -> BenchmarkError {
        BenchmarkError("\(what): \(sqltk_sqlite3_errmsg(handle).map { String(cString: $0) } ?? "out of memory")")
    }

    func close() {
        sqltk_sqlite3_close_v2(handle)
        handle = nil
    }

    func execute(_ sql: String) throws {
        guard sqltk_sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw error(sql) }
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        let code = sqltk_sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else { throw error(sql) }
        return statement
    }

    func integer(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        defer { sqltk_sqlite3_finalize(statement) }
        guard sqltk_sqlite3_step(statement) == SQLITE_ROW else { throw error(sql) }
        return sqltk_sqlite3_column_int64(statement, 0)
    }

    /// Inserts `rows` rows of 10 integers in one transaction, as CBaseline's insert-positional does.
    func insertIntegers(_ insert: OpaquePointer, rows: Int) throws -> Int64 {
        try execute("BEGIN IMMEDIATE TRANSACTION")
        for row in 0..<rows {
            for column in 0..<10 {
                sqltk_sqlite3_bind_int64(insert, Int32(column + 1), BenchmarkData.integer(row: row, column: column))
            }
            let code = sqltk_sqlite3_step(insert)
            sqltk_sqlite3_reset(insert)
            guard code == SQLITE_DONE else { throw error(BenchmarkData.insertPositional) }
        }
        try execute("COMMIT TRANSACTION")
        return Int64(rows)
    }

    /// Creates a session on the main schema recording table `t`.
    func recordTable() throws -> OpaquePointer {
        var session: OpaquePointer?
        guard sqltk_sqlite3session_create(handle, "main", &session) == SQLITE_OK, let session else {
            throw error("sqlite3session_create")
        }
        guard sqltk_sqlite3session_attach(session, "t") == SQLITE_OK else {
            sqltk_sqlite3session_delete(session)
            throw error("sqlite3session_attach")
        }
        return session
    }
}

extension RawCImplementation {
    func prepareChangesetWorkload(_ workload: Workload, size: WorkloadSize, location: DatabaseLocation) throws
        -> PreparedRun
    {
        let rows = size.rows
        let connection = try SessionConnection(location)
        do {
            try connection.execute(BenchmarkData.createIntegers)
            if workload == .changesetCapture {
                let insert = try connection.prepare(BenchmarkData.insertPositional)
                let session = try connection.recordTable()
                return PreparedRun(
                    body: { try connection.insertIntegers(insert, rows: rows) },
                    verify: { _ in
                        guard rows == 0 || sqltk_sqlite3session_isempty(session) == 0 else {
                            throw BenchmarkError("nothing recorded")
                        }
                        return try connection.integer(BenchmarkData.checksumIntegers)
                    },
                    close: {
                        sqltk_sqlite3session_delete(session)
                        sqltk_sqlite3_finalize(insert)
                        connection.close()
                    }
                )
            }
            let changeset = try insertChangeset(rows: rows)
            try connection.execute("BEGIN")
            for row in stride(from: 0, to: rows, by: BenchmarkData.changesetConflictInterval) {
                try connection.execute("INSERT INTO t VALUES (\(row + 1), -1, -1, -1, -1, -1, -1, -1, -1, -1, -1)")
            }
            try connection.execute("COMMIT")
            return PreparedRun(
                body: {
                    let code = changeset.withUnsafeBytes { bytes in
                        sqltk_sqlite3changeset_apply(
                            connection.handle, Int32(bytes.count), UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                            nil, replaceOnConflict, nil)
                    }
                    guard code == SQLITE_OK else { throw connection.error("sqlite3changeset_apply") }
                    return Int64(rows)
                },
                verify: { _ in try connection.integer(BenchmarkData.checksumIntegers) },
                close: { connection.close() }
            )
        } catch {
            connection.close()
            throw error
        }
    }

    /// The changeset of `rows` rows inserted as in insert-positional, recorded in a database of its own.
    private func insertChangeset(rows: Int) throws -> [UInt8] {
        let source = try SessionConnection(DatabaseLocation(storage: .memory, path: ":memory:"))
        defer { source.close() }
        try source.execute(BenchmarkData.createIntegers)
        let session = try source.recordTable()
        defer { sqltk_sqlite3session_delete(session) }
        let insert = try source.prepare(BenchmarkData.insertPositional)
        defer { sqltk_sqlite3_finalize(insert) }
        _ = try source.insertIntegers(insert, rows: rows)
        var count: Int32 = 0
        var bytes: UnsafeMutableRawPointer?
        guard sqltk_sqlite3session_changeset(session, &count, &bytes) == SQLITE_OK else {
            throw source.error("sqlite3session_changeset")
        }
        // An empty changeset comes back as NULL.
        guard let bytes else { return [] }
        defer { sqltk_sqlite3_free(bytes) }
        return Array(UnsafeRawBufferPointer(start: bytes, count: Int(count)))
    }
}
