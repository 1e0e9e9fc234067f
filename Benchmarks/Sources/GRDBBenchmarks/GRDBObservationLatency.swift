import BenchmarkCore
import Foundation
import GRDB

/// The latency benchmark through GRDB's `ValueObservation` on a `DatabasePool`.
public final class GRDBObservationLatency: ObservationLatencySubject {
    private let pool: DatabasePool
    private var cancellable: AnyDatabaseCancellable?
    private let queue = DispatchQueue(label: "GRDBObservationLatency")

    /// Opens a pool at `path` with the counter row.
    public init(path: String) throws {
        pool = try DatabasePool(path: path)
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE counter (id INTEGER PRIMARY KEY, value INT NOT NULL)")
            try db.execute(sql: "INSERT INTO counter (id, value) VALUES (1, 0)")
        }
    }

    /// Writes `value` into the counter row in a write access.
    public func write(_ value: Int) throws {
        try pool.write { db in try db.execute(sql: "UPDATE counter SET value = ? WHERE id = 1", arguments: [value]) }
    }

    /// Starts observing the counter row.
    public func startObserving(_ onValue: @escaping @Sendable (Int) -> Void) throws {
        let observation = ValueObservation.trackingConstantRegion { db in
            try Int.fetchOne(db, sql: "SELECT value FROM counter WHERE id = 1") ?? -1
        }
        cancellable = observation.start(
            in: pool, scheduling: .async(onQueue: queue), onError: { _ in }, onChange: onValue)
    }

    /// Stops observing and closes the pool.
    public func stop() {
        cancellable?.cancel()
        try? pool.close()
    }
}
