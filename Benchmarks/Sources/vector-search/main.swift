// The 10 nearest of 100,000 random vectors of 384 floats, by brute force with SQLiteToolkit's Swift
// `vec_distance_l2` (SIMD), by brute force with sqlite-vec 0.1.9's `vec_distance_l2`, and through a `vec0` table's
// k-NN query, all through SQLiteToolkit; then the same two sqlite-vec queries through Python's sqlite3 module
// (Benchmarks/vector-search.py) on the same file: the toolkit's overhead. Prints the median time per query in ms.
//
//   swift run -c release --package-path Benchmarks vector-search [vectors] [queries] [vec0.so]
// vec0.so defaults to the one scripts/install-test-peers installs.
import Foundation
import SQLiteToolkit
import ToolkitBenchmarks

let arguments = Array(CommandLine.arguments.dropFirst())
let count = arguments.first.flatMap { Int($0) } ?? 100_000
let queryCount = arguments.dropFirst().first.flatMap { Int($0) } ?? 20
let venv =
    ProcessInfo.processInfo.environment["SQLTK_TEST_PEERS_VENV"]
    ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/sqltk-test-peers/venv").path
let defaultVec0 = (try? FileManager.default.contentsOfDirectory(atPath: venv + "/lib"))?.lazy
    .map { "\(venv)/lib/\($0)/site-packages/sqlite_vec/vec0.so" }
    .first { FileManager.default.fileExists(atPath: $0) }
let vec0Path = arguments.dropFirst(2).first ?? defaultVec0
let path = FileManager.default.temporaryDirectory.appendingPathComponent("vector-search-\(getpid()).sqlite").path
defer { try? FileManager.default.removeItem(atPath: path) }

print("vectors: \(count) of 384 floats, \(queryCount) queries, sqlite-vec: \(vec0Path ?? "not found")")
let start = Date()
let search = try ToolkitVectorSearch(
    path: path, count: count, dimensions: 384, queries: queryCount, vec0Path: vec0Path)
print(String(format: "written in %.1f s", Date().timeIntervalSince(start)))
let queries = try search.queries()

func medianMilliseconds(_ body: (FloatVector) throws -> [Int64]?) rethrows -> (Double, [[Int64]]) {
    var times: [Double] = []
    var answers: [[Int64]] = []
    for query in queries {
        let begin = DispatchTime.now().uptimeNanoseconds
        let answer = try body(query)
        times.append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e6)
        answers.append(answer ?? [])
    }
    times.sort()
    return (times[times.count / 2], answers)
}

let (swiftTime, swiftAnswers) = try medianMilliseconds { try search.swiftBruteForce($0) }
print(String(format: "| toolkit, Swift vec_distance_l2, brute force | %.1f ms |", swiftTime))
if vec0Path != nil {
    let (vecTime, vecAnswers) = try medianMilliseconds { try search.sqliteVecBruteForce($0) }
    let (knnTime, knnAnswers) = try medianMilliseconds { try search.vec0Nearest($0) }
    print(String(format: "| toolkit, sqlite-vec vec_distance_l2, brute force | %.1f ms |", vecTime))
    print(String(format: "| toolkit, sqlite-vec vec0 k-NN | %.1f ms |", knnTime))
    print(
        "answers agree: Swift = sqlite-vec brute force \(swiftAnswers == vecAnswers), = vec0 k-NN \(swiftAnswers == knnAnswers)"
    )
    // Python's sqlite3 with the same vec0.so, on the same file.
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("vector-search.py").path
    // The system's Python: a Python built without loadable extensions (pyenv's default build) cannot load vec0.
    let python = Process()
    if FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") {
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = [script, path, vec0Path ?? ""]
    } else {
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", script, path, vec0Path ?? ""]
    }
    try python.run()
    python.waitUntilExit()
}
search.close()
