import Dispatch
import Foundation
import SQLiteToolkit
import SQLiteToolkitCluster
import Testing

/// The workload of go-dqlite's `dqlite-benchmark` (kvwrite, then reads of written keys), through this client, so the
/// two can be compared on one machine: `SQLTK_DQLITE_MEASURE=1` runs it (on the nodes of `SQLTK_DQLITE_NODES`, a
/// comma-separated list, or on three nodes of its own). It prints its figures; it asserts only that they exist.
@Suite(
    "Measurements of the dqlite client",
    .enabled(
        if: dqliteInstalled && ProcessInfo.processInfo.environment["SQLTK_DQLITE_MEASURE"] == "1",
        "a measurement, not a test: SQLTK_DQLITE_MEASURE=1 runs it (needs Debian's go-dqlite)")
)
struct ClusterMeasurementTests {
    @Test(.timeLimit(.minutes(2)))
    func commitsPerSecondAndReadLatency() throws {
        var cluster: DqliteCluster?
        defer { cluster?.stop() }
        let nodes: [String]
        if let given = ProcessInfo.processInfo.environment["SQLTK_DQLITE_NODES"] {
            nodes = given.split(separator: ",").map(String.init)
        } else {
            cluster = try DqliteCluster()
            nodes = cluster?.addresses ?? []
        }
        let database = try ClusterDatabase(nodes: nodes, name: "swift-benchmark")
        defer { database.close() }
        try database.execute("CREATE TABLE IF NOT EXISTS model (key TEXT, value TEXT, UNIQUE(key))")
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        func randomText(_ count: Int) -> String { String((0..<count).map { _ in letters.randomElement() ?? "a" }) }

        var keys: [String] = []
        var writeLatencies: [Double] = []
        let duration = 10.0
        let started = DispatchTime.now().uptimeNanoseconds
        while Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 < duration {
            let key = randomText(32)
            let before = DispatchTime.now().uptimeNanoseconds
            try database.execute("INSERT OR REPLACE INTO model(key, value) VALUES(?, ?)", key, randomText(1024))
            writeLatencies.append(Double(DispatchTime.now().uptimeNanoseconds - before) / 1e6)
            keys.append(key)
        }
        var readLatencies: [Double] = []
        for _ in 0..<2000 {
            let key = keys.randomElement() ?? ""
            let before = DispatchTime.now().uptimeNanoseconds
            let rows = try database.fetchAll("SELECT value FROM model WHERE key = ?", key)
            readLatencies.append(Double(DispatchTime.now().uptimeNanoseconds - before) / 1e6)
            #expect(rows.count == 1)
        }
        #expect(!writeLatencies.isEmpty)
        func summary(_ values: [Double]) -> String {
            let sorted = values.sorted()
            let mean = values.reduce(0, +) / Double(max(values.count, 1))
            return String(
                format: "n %d, mean %.3f ms, median %.3f ms, p99 %.3f ms", values.count, mean,
                sorted[sorted.count / 2], sorted[min(sorted.count - 1, sorted.count * 99 / 100)])
        }
        print(
            "dqlite Swift client: \(String(format: "%.1f", Double(writeLatencies.count) / duration)) commits/s "
                + "(1 writer, kvwrite workload); writes: \(summary(writeLatencies)); reads: \(summary(readLatencies))")
    }
}
