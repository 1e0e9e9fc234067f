// The latency of an observed query on a queue and on a pool when another process commits: a child process (this
// executable, run as `writer`) commits one numbered row each time it is told, and prints the monotonic clock right
// after its commit; this process stamps the observed value when it arrives. Prints, for each way of detecting the
// commit (inotify, polling), the median and the 99th percentile of commit → value.
//
//   swift run -c release --package-path Benchmarks observation-latency-external [commits] [polling-ms]
//
// Defaults: 300 commits per case, polling every 20 ms. Each commit waits for the value of the one before, then
// 5 ms, so that the cases measure a reaction, not a queue of commits.
import Foundation
import SQLiteToolkit

#if canImport(Glibc)
    import Glibc
#endif

/// CLOCK_MONOTONIC, which the two processes share.
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

let arguments = Array(CommandLine.arguments.dropFirst())

// The child: commits the rows 1, 2, … each after reading a line, and prints "N NANOSECONDS" after each commit.
if arguments.first == "writer", arguments.count == 2 {
    let db = try Database(path: arguments[1])
    var number = 0
    while readLine() != nil {
        number += 1
        try db.execute("INSERT INTO item (n) VALUES (?)", number)
        let stamp = monotonicNanoseconds()
        FileHandle.standardOutput.write(Data("\(number) \(stamp)\n".utf8))
    }
    db.close()
    exit(0)
}

let commits = arguments.first.flatMap { Int($0) } ?? 300
let pollingMilliseconds = arguments.dropFirst().first.flatMap { Int($0) } ?? 20
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("observation-latency-external-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

/// The values an observation delivered, each with the time it arrived.
final class Arrivals: @unchecked Sendable {
    // @unchecked Sendable: `stamps` is read and written only while holding `lock`.
    private let lock = NSLock()
    private var stamps: [Int: UInt64] = [:]

    func record(_ value: Int) {
        let now = monotonicNanoseconds()
        lock.withLock { if stamps[value] == nil { stamps[value] = now } }
    }

    func stamp(of value: Int) -> UInt64? { lock.withLock { stamps[value] } }
}

/// Reads the child's lines from its standard output.
final class LineReader {
    private let handle: FileHandle
    private var buffer: [UInt8] = []

    init(_ handle: FileHandle) { self.handle = handle }

    func nextLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let data = handle.availableData
            if data.isEmpty { return nil }
            buffer.append(contentsOf: data)
        }
    }
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
}

/// Measures one case: the latencies, in seconds, of `commits` commits.
func measure(subject: String, detection: ExternalChangeDetection, name: String) async throws -> [Double] {
    let path = folder.appendingPathComponent("\(subject)-\(name).sqlite").path
    do {
        let db = try Database(path: path)
        _ = try db.queryValue("PRAGMA journal_mode = wal", as: String.self)
        try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
        db.close()
    }
    let arrivals = Arrivals()
    let read: @Sendable (Database) throws -> Int = { db in
        try db.queryValue("SELECT coalesce(max(n), 0) FROM item", as: Int.self) ?? 0
    }
    let stream: AsyncThrowingStream<Int, any Error>
    let close: () -> Void
    if subject == "queue" {
        let queue = try DatabaseQueue(path: path)
        try queue.setExternalChangeDetection(detection)
        stream = queue.observe(bufferingPolicy: .unbounded, read)
        close = { queue.close() }
    } else {
        let pool = try DatabasePool(path: path)
        try pool.setExternalChangeDetection(detection)
        stream = pool.observe(bufferingPolicy: .unbounded, read)
        close = { pool.close() }
    }
    let observer = Task { for try await value in stream { arrivals.record(value) } }

    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    child.arguments = ["writer", path]
    let input = Pipe()
    let output = Pipe()
    child.standardInput = input
    child.standardOutput = output
    try child.run()
    let lines = LineReader(output.fileHandleForReading)

    while arrivals.stamp(of: 0) == nil { usleep(1000) }
    var latencies: [Double] = []
    for number in 1...commits {
        input.fileHandleForWriting.write(Data("go\n".utf8))
        guard let line = lines.nextLine(), let committed = line.split(separator: " ").last.flatMap({ UInt64($0) })
        else { throw CocoaError(.fileReadUnknown) }
        let deadline = monotonicNanoseconds() + 10_000_000_000
        var delivered = arrivals.stamp(of: number)
        while delivered == nil && monotonicNanoseconds() < deadline {
            usleep(100)
            delivered = arrivals.stamp(of: number)
        }
        guard let delivered else {
            print("| \(subject) | \(name) | commit \(number) not seen within 10 s |")
            break
        }
        latencies.append(Double(delivered &- committed) / 1e9)
        usleep(5000)
    }
    try input.fileHandleForWriting.close()
    child.waitUntilExit()
    close()
    _ = try? await observer.value
    return latencies
}

func milliseconds(_ seconds: Double) -> String { String(format: "%.2f", seconds * 1e3) }

print("| subject | detection | commits | commit → value, median (ms) | p99 (ms) | max (ms) |")
print("|---|---|---|---|---|---|")
for subject in ["queue", "pool"] {
    let cases: [(String, ExternalChangeDetection)] = [
        ("inotify", .fileSystemEvents),
        ("polling \(pollingMilliseconds) ms", .polling(interval: .milliseconds(pollingMilliseconds))),
    ]
    for (name, detection) in cases {
        let latencies = try await measure(
            subject: subject, detection: detection, name: name.replacingOccurrences(of: " ", with: "-"))
        print(
            "| \(subject) | \(name) | \(latencies.count) | \(milliseconds(percentile(latencies, 0.5))) | "
                + "\(milliseconds(percentile(latencies, 0.99))) | \(milliseconds(latencies.max() ?? .nan)) |")
    }
}
