import Foundation
import Testing

@testable import SQLiteToolkit

/// What the tests of commits made outside a queue or a pool share: the database, the observed values, the
/// processes that commit.
enum ExternalChanges {
    /// The table every test observes: the largest `n` is the number of the last row committed.
    static let schema = "CREATE TABLE item (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)"
    static let lastNumber = "SELECT coalesce(max(n), 0) FROM item"

    /// Generous: the machine running the tests may be loaded. Tests never assert durations.
    static let waitSeconds = 30.0

    /// Creates the database at `path` with ``schema``, in `journalMode` (`wal` or `delete`).
    static func createDatabase(at path: String, journalMode: String) throws {
        let db = try Database(path: path)
        defer { db.close() }
        _ = try db.queryValue("PRAGMA journal_mode = \(journalMode)", as: String.self)
        try db.execute(schema)
    }

    /// A queue or a pool on `path`, as the tests of both use them.
    enum Subject: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case queue
        case pool

        var testDescription: String { rawValue }
    }

    /// An open queue or pool and its observed values.
    final class Observed: Sendable {
        let writer: any DatabaseWriter & Sendable
        let watch: ExternalChangeWatch
        private let observe: @Sendable () -> AsyncThrowingStream<Int, any Error>
        private let log = Locked<ValueLog?>(nil)

        init(
            writer: any DatabaseWriter & Sendable, watch: ExternalChangeWatch,
            observe: @escaping @Sendable () -> AsyncThrowingStream<Int, any Error>
        ) {
            self.writer = writer
            self.watch = watch
            self.observe = observe
        }

        /// The values of the observation ``ExternalChanges/observe(_:path:detection:observing:)`` started.
        var values: ValueLog { log.current ?? ValueLog(AsyncThrowingStream { $0.finish() }) }

        /// Starts observing ``ExternalChanges/lastNumber``.
        func startObserving() throws -> ValueLog {
            let values = ValueLog(observe())
            log.withLock { $0 = values }
            return values
        }

        func close() async {
            await log.current?.stop()
            if let queue = writer as? DatabaseQueue { queue.close() }
            if let pool = writer as? DatabasePool { pool.close() }
        }
    }

    /// Opens `subject` on `path`, sets `detection`, and observes ``lastNumber`` (unless not `observing`) until
    /// ``Observed/close()``.
    static func observe(
        _ subject: Subject, path: String, detection: ExternalChangeDetection = .fileSystemEvents,
        observing: Bool = true
    ) throws -> Observed {
        let read: @Sendable (Database) throws -> Int = { db in try db.queryValue(lastNumber, as: Int.self) ?? 0 }
        let observed: Observed
        switch subject {
        case .queue:
            let queue = try DatabaseQueue(path: path)
            try queue.setExternalChangeDetection(detection)
            observed = Observed(writer: queue, watch: queue.serialized.externalChanges) {
                queue.observe(bufferingPolicy: .unbounded, read)
            }
        case .pool:
            let pool = try DatabasePool(path: path)
            try pool.setExternalChangeDetection(detection)
            observed = Observed(writer: pool, watch: pool.writer.externalChanges) {
                pool.observe(bufferingPolicy: .unbounded, read)
            }
        }
        if observing { _ = try observed.startObserving() }
        return observed
    }

    /// Whether Debian's `sqlite3` shell is installed.
    static let sqlite3Shell: String? = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3", "/bin/sqlite3"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Runs the `sqlite3` shell on `path` with `sql` (waiting up to 5 s for a lock) and waits for it to exit.
    static func runShell(_ path: String, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(sqlite3Shell))
        process.arguments = ["-cmd", ".timeout 5000", path, sql]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "sqlite3 failed on: \(sql)")
    }

    /// Runs `sql` on `path` from the `sqlite3` shell when it is installed, else from a second connection.
    static func runShellOrConnection(_ path: String, _ sql: String) throws {
        if sqlite3Shell != nil { return try runShell(path, sql) }
        let db = try Database(path: path)
        defer { db.close() }
        try db.execute(sql)
    }

    /// Waits at most ``waitSeconds`` for `condition`, polling with `Task.sleep`; whether it came true.
    static func eventually(_ condition: () -> Bool) async throws -> Bool {
        let deadline = Date(timeIntervalSinceNow: waitSeconds)
        while !condition() {
            if Date() >= deadline { return false }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        return true
    }
}

/// The values of an observed stream, collected by a task of their own.
final class ValueLog: Sendable {
    let values = Locked<[Int]>([])
    let ended = Locked(false)
    private let task: Task<Void, Never>

    init(_ stream: AsyncThrowingStream<Int, any Error>) {
        let values = self.values
        let ended = self.ended
        task = Task {
            do {
                for try await value in stream { values.withLock { $0.append(value) } }
            } catch {}
            ended.withLock { $0 = true }
        }
    }

    /// Waits at most ``ExternalChanges/waitSeconds`` for `value` to arrive; whether it did.
    func waitFor(_ value: Int) async throws -> Bool {
        try await ExternalChanges.eventually { values.current.contains(value) }
    }

    func stop() async {
        task.cancel()
        await task.value
    }
}

/// A `sqltk-test-helper commit-rows` process that commits each row when told (`--on-request`).
final class RowCommitter: @unchecked Sendable {
    // @unchecked Sendable: used from the test's task only.
    let process = Process()
    private let input = Pipe()

    init(path: String, rows: Int) throws {
        process.executableURL = try TestHelper.executable()
        process.arguments = ["commit-rows", path, String(rows), "--on-request"]
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        try process.run()
    }

    /// Tells the process to commit its next row.
    func commitNext() {
        input.fileHandleForWriting.write(Data("go\n".utf8))
    }

    /// Waits for the process to exit (it does after its last row); its status.
    func finish() -> Int32 {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
