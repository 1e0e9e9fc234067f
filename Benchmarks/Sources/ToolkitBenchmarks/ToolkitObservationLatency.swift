import BenchmarkCore
import Foundation
import SQLiteToolkit

/// The latency benchmark through `DatabasePool.observe(tables:_:)`.
public final class ToolkitObservationLatency: ObservationLatencySubject {
    private let pool: DatabasePool
    private var task: Task<Void, Never>?

    /// Opens a pool at `path` with the counter row.
    public init(path: String) throws {
        pool = try DatabasePool(path: path)
        try pool.write { db in
            try db.execute("CREATE TABLE counter (id INTEGER PRIMARY KEY, value INT NOT NULL)")
            try db.execute("INSERT INTO counter (id, value) VALUES (1, 0)")
        }
    }

    /// Writes `value` into the counter row in a write access.
    public func write(_ value: Int) throws {
        try pool.write { db in try db.execute("UPDATE counter SET value = ? WHERE id = 1", value) }
    }

    /// Starts observing the counter row.
    public func startObserving(_ onValue: @escaping @Sendable (Int) -> Void) throws {
        let stream = pool.observe(tables: ["counter"]) { db in
            try db.queryValue("SELECT value FROM counter WHERE id = 1", as: Int.self) ?? -1
        }
        task = Task {
            do {
                for try await value in stream { onValue(value) }
            } catch {}
        }
    }

    /// Stops observing and closes the pool.
    public func stop() {
        task?.cancel()
        pool.close()
    }
}
