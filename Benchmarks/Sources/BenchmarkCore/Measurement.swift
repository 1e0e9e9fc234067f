import Foundation

/// Runs `body`: the only code the instruction-count mode counts (callgrind's `--toggle-collect` names this
/// function), and the only code the timing mode times.
@inline(never)
public func measuredRegion(_ body: () throws -> Int64) rethrows -> Int64 {
    try body()
}

/// The repetitions of one implementation on one workload and storage.
public struct CaseResult: Codable, Sendable {
    /// The workload.
    public var workload: Workload
    /// The storage.
    public var storage: Storage
    /// The threads that shared the work (1 but for the threaded workloads).
    public var threads: Int
    /// The implementation's short name.
    public var implementation: String
    /// Every timed repetition in milliseconds, in the order they ran.
    public var milliseconds: [Double]
    /// The checksum every repetition computed (the harness checks they agree).
    public var checksum: Int64

    /// The fastest repetition.
    public var minimum: Double { milliseconds.min() ?? .nan }

    /// The median repetition.
    public var median: Double {
        let sorted = milliseconds.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// The instructions one implementation executes per unit of a workload, from two callgrind runs.
public struct InstructionResult: Codable, Sendable {
    /// The workload.
    public var workload: Workload
    /// The storage.
    public var storage: Storage
    /// The threads that shared the work (1 but for the threaded workloads).
    public var threads: Int
    /// The implementation's short name.
    public var implementation: String
    /// The units (rows, lookups, iterations) of the larger run.
    public var units: Int
    /// Instructions counted in ``measuredRegion(_:)`` with `units` units.
    public var instructions: Int
    /// Instructions counted in ``measuredRegion(_:)`` with no units: the fixed cost of a run.
    public var fixedInstructions: Int

    /// `(instructions - fixedInstructions) / units`.
    public var perUnit: Double {
        units > 0 ? Double(instructions - fixedInstructions) / Double(units) : .nan
    }
}

/// Everything one invocation measured, as written to JSON.
public struct Report: Codable, Sendable {
    /// When the run started, ISO 8601.
    public var date: String
    /// The machine: cores and CPU model.
    public var machine: String
    /// The command line.
    public var command: String
    /// Implementation short name → SQLite version it runs on.
    public var sqliteVersions: [String: String]
    /// The sizes.
    public var size: WorkloadSize
    /// Timed repetitions per implementation.
    public var repetitions: Int
    /// The timed results.
    public var timings: [CaseResult]
    /// The instruction counts, in instruction-count mode.
    public var instructions: [InstructionResult]
    /// Workloads whose implementations disagreed, with their checksums.
    public var mismatches: [String]
}

/// Where the time of one repetition goes: everything around the body is untimed.
func timeOneRun(
    _ implementation: any BenchmarkImplementation,
    _ workload: Workload,
    size: WorkloadSize,
    location: DatabaseLocation
) throws -> (milliseconds: Double, checksum: Int64) {
    let run = try implementation.prepare(workload, size: size, location: location)
    defer { run.close() }
    let clock = ContinuousClock()
    let start = clock.now
    let result = try measuredRegion(run.body)
    let elapsed = clock.now - start
    let checksum = try run.verify(result)
    let (seconds, attoseconds) = elapsed.components
    return (Double(seconds) * 1000 + Double(attoseconds) / 1e15, checksum)
}
