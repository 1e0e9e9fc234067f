import Foundation

/// The latency benchmark of observed queries: `writes` write accesses, one after another, each setting a one-row
/// counter to the next number, while an observed query of that row runs on a pool; each write waits for the value
/// it wrote to arrive before the next one starts, so that no value is merged with another.
public struct ObservationLatencyRun {
    /// For each write: seconds from the start of the write access to the arrival of its value.
    public var writeToValue: [Double] = []
    /// For each write: seconds the write access took (until it returned, its commit done).
    public var writeAlone: [Double] = []

    /// An empty run.
    public init() {}
}

/// What an implementation of the latency benchmark provides: a pool, a write of the counter, and an observation.
public protocol ObservationLatencySubject {
    /// Writes `value` into the counter row, in a write access of the pool; returns when it committed.
    func write(_ value: Int) throws
    /// Starts observing the counter; `onValue` is called with each value, on a thread of the implementation's.
    func startObserving(_ onValue: @escaping @Sendable (Int) -> Void) throws
    /// Stops observing and closes the pool.
    func stop()
}

/// Runs the latency benchmark on `subject`: waits for the first value, then makes `writes` writes.
public func measureObservationLatency(_ subject: some ObservationLatencySubject, writes: Int) throws
    -> ObservationLatencyRun
{
    let arrivals = LatencyArrivals()
    try subject.startObserving { value in arrivals.arrived(value) }
    defer { subject.stop() }
    guard arrivals.wait(for: 0) != nil else { throw BenchmarkError("the observation yielded no first value") }
    var run = ObservationLatencyRun()
    for value in 1...max(1, writes) {
        let start = DispatchTime.now().uptimeNanoseconds
        try subject.write(value)
        let committed = DispatchTime.now().uptimeNanoseconds
        guard let arrival = arrivals.wait(for: value) else {
            throw BenchmarkError("the observation did not yield \(value) within 10 s")
        }
        run.writeAlone.append(Double(committed - start) / 1e9)
        run.writeToValue.append(Double(Int64(arrival) - Int64(start)) / 1e9)
    }
    return run
}

/// The arrival times of the observed values, by value.
final class LatencyArrivals: @unchecked Sendable {
    // @unchecked Sendable: `times` is read and written only while holding `condition`.
    private let condition = NSCondition()
    private var times: [Int: UInt64] = [:]

    func arrived(_ value: Int) {
        let now = DispatchTime.now().uptimeNanoseconds
        condition.lock()
        if times[value] == nil { times[value] = now }
        condition.broadcast()
        condition.unlock()
    }

    /// The arrival time of `value`, waiting up to 10 s for it.
    func wait(for value: Int) -> UInt64? {
        let deadline = Date(timeIntervalSinceNow: 10)
        condition.lock()
        defer { condition.unlock() }
        while times[value] == nil {
            if !condition.wait(until: deadline) { return nil }
        }
        return times[value]
    }
}

/// The `p`-th percentile (0...1) of `values`, by the nearest rank.
public func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((p * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}
