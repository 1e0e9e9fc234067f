import Foundation
import SQLiteBindings

// Just enough of a connection, over the generated wrappers, to keep the tests short.

/// A call that returned an error code, with the connection's message at the time.
struct TestFailure: Error, CustomStringConvertible {
    /// What the failing call returned.
    let code: ResultCode
    /// What `errorMessage()` said right after the failing call.
    let message: String

    var description: String { "\(code): \(message)" }
}

/// One connection, opened for one test and closed when released.
final class TestConnection {
    /// The connection's handle, for calling the wrappers under test.
    let handle: ConnectionHandle

    /// Opens (and creates when missing) the database at `path`, in memory by default.
    init(path: String = ":memory:", flags: OpenFlags = [.readwrite, .create]) throws {
        let (code, handle) = ConnectionHandle.open(path: path, flags: flags, vfs: nil)
        guard code == .ok, let handle else {
            let message = handle?.errorMessage() ?? ""
            _ = handle?.closeV2()
            throw TestFailure(code: code, message: message)
        }
        self.handle = handle
    }

    deinit {
        _ = handle.closeV2()
    }

    /// Runs every statement of `sql`, discarding rows; throws on the first error.
    func execute(_ sql: String) throws {
        try sql.withCString { start in
            var cursor = start
            while cursor.pointee != 0 {
                let (code, statement, tail) = handle.prepare(sql: cursor, byteCount: -1, flags: [])
                guard code == .ok else { throw failure(code) }
                guard let statement, let tail else { return }
                defer { _ = statement.finalize() }
                var step = statement.step()
                while step == .row { step = statement.step() }
                guard step == .done else { throw failure(step) }
                cursor = tail
            }
        }
    }

    /// Prepares the single statement `sql`; throws when it fails or holds no statement.
    func prepare(_ sql: String) throws -> StatementHandle {
        let (code, statement) = handle.prepare(sql: sql, flags: [])
        guard code == .ok, let statement else { throw failure(code) }
        return statement
    }

    /// The first column of the first row of `sql`, as a 64-bit integer.
    func int64(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        defer { _ = statement.finalize() }
        let code = statement.step()
        guard code == .row else { throw failure(code) }
        return statement.columnInt64(0)
    }

    /// The first column of the first row of `sql`, as text (nil for NULL).
    func text(_ sql: String) throws -> String? {
        let statement = try prepare(sql)
        defer { _ = statement.finalize() }
        let code = statement.step()
        guard code == .row else { throw failure(code) }
        return statement.columnText(0)
    }

    /// A `TestFailure` for `code` with the connection's current message.
    func failure(_ code: ResultCode) -> TestFailure {
        TestFailure(code: code, message: handle.errorMessage() ?? "")
    }
}

/// A unique path in the temporary directory; `remove()` deletes the file and its journals.
struct TemporaryDatabasePath {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("sqltk-bindings-\(UUID().uuidString).sqlite").path

    /// Deletes the database file and its `-wal`, `-shm` and `-journal` companions, if present.
    func remove() {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}
