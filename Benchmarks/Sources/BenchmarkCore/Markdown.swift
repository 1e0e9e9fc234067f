import Foundation

/// The report as Markdown tables.
enum Markdown {
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "–" }
        if value >= 100 { return String(format: "%.0f", value) }
        if value >= 10 { return String(format: "%.1f", value) }
        return String(format: "%.2f", value)
    }

    static func ratio(_ value: Double) -> String {
        value.isFinite ? String(format: "%.2f×", value) : "–"
    }

    /// Timings: one row per workload and storage, one column per implementation, each cell
    /// "median (min) ms · ratio of medians to the first implementation".
    static func timings(
        _ results: [CaseResult],
        implementations: [any BenchmarkImplementation],
        size: WorkloadSize
    ) -> String {
        let baseline = implementations.first?.name ?? "c"
        var lines: [String] = []
        lines.append("Median (min) in ms over the repetitions; × is the ratio of medians to `\(baseline)`.")
        lines.append("")
        lines.append(
            "| workload | storage | " + implementations.map { "\($0.title) (`\($0.name)`)" }.joined(separator: " | ")
                + " |")
        lines.append("|---|---|" + String(repeating: "---|", count: implementations.count))
        var keys: [(Workload, Storage, Int)] = []
        for result in results
        where !keys.contains(where: { $0 == (result.workload, result.storage, result.threads) }) {
            keys.append((result.workload, result.storage, result.threads))
        }
        func find(_ workload: Workload, _ storage: Storage, _ name: String, threads: Int = 1) -> CaseResult? {
            results.first {
                $0.workload == workload && $0.storage == storage && $0.threads == threads && $0.implementation == name
            }
        }
        for (workload, storage, threads) in keys {
            let base = find(workload, storage, baseline, threads: threads)?.median ?? .nan
            var cells: [String] = []
            for implementation in implementations {
                guard let result = find(workload, storage, implementation.name, threads: threads) else {
                    cells.append("")
                    continue
                }
                cells.append(
                    "\(number(result.median)) (\(number(result.minimum))) · \(ratio(result.median / base))")
            }
            lines.append(
                "| \(workload.name(threads: threads)) | \(storage.rawValue) | " + cells.joined(separator: " | ") + " |")
        }

        // The cost of one transaction: (one per lookup − all in one) / lookups.
        var overheadLines: [String] = []
        for storage in Storage.allCases {
            var cells: [String] = []
            var baseOverhead = Double.nan
            for implementation in implementations {
                guard let each = find(.lookupsTransactionEach, storage, implementation.name),
                    let one = find(.lookupsOneTransaction, storage, implementation.name)
                else { continue }
                let microseconds = (each.median - one.median) * 1000 / Double(max(size.lookups, 1))
                if implementation.name == baseline { baseOverhead = microseconds }
                let excess = implementation.name == baseline ? "" : " (+\(number(microseconds - baseOverhead)))"
                cells.append("\(implementation.title) \(number(microseconds))\(excess)")
            }
            if !cells.isEmpty { overheadLines.append("- \(storage.rawValue): " + cells.joined(separator: ", ")) }
        }
        if !overheadLines.isEmpty {
            lines.append("")
            lines.append(
                "Cost of one transaction in µs, (lookups-transaction-each − lookups-one-transaction) / lookups; "
                    + "in parentheses, the excess over `\(baseline)`:")
            lines.append("")
            lines += overheadLines
        }
        lines.append("")
        lines += targets(
            find: { find($0, $1, $2) }, baseline: baseline, size: size,
            keys: keys.filter { $0.2 == 1 }.map { ($0.0, $0.1) })
        return lines.joined(separator: "\n")
    }

    /// The targets of the benchmarks issue, reported (never asserted).
    static func targets(
        find: (Workload, Storage, String) -> CaseResult?,
        baseline: String,
        size: WorkloadSize,
        keys: [(Workload, Storage)]
    ) -> [String] {
        var lines = ["Targets (reported, never asserted): SQLiteToolkit / C on the same SQLite, and against GRDB:", ""]
        func ratio(_ workload: Workload, _ storage: Storage, _ name: String) -> Double? {
            guard let result = find(workload, storage, name), let base = find(workload, storage, baseline) else {
                return nil
            }
            return result.median / base.median
        }
        let limits: [(Workload, Double)] = [
            (.insertPositional, 1.15), (.insertNamed, 1.15), (.insertCachedLookup, 1.15), (.insertTextBlob, 1.15),
            (.readByIndex, 1.10), (.readOneColumn, 1.10), (.readTextBlob, 1.10), (.readByName, 1.25),
        ]
        for storage in Storage.allCases {
            for (workload, limit) in limits {
                guard let value = ratio(workload, storage, "toolkit") else { continue }
                let verdict = value <= limit ? "met" : "MISSED by \(number((value / limit - 1) * 100)) %"
                lines.append(
                    "- \(workload.rawValue)/\(storage.rawValue): \(Markdown.ratio(value)) ≤ \(limit): \(verdict)")
            }
            if let each = find(.lookupsTransactionEach, storage, "toolkit"),
                let one = find(.lookupsOneTransaction, storage, "toolkit"),
                let baseEach = find(.lookupsTransactionEach, storage, baseline),
                let baseOne = find(.lookupsOneTransaction, storage, baseline)
            {
                let lookups = Double(max(size.lookups, 1))
                let excess = ((each.median - one.median) - (baseEach.median - baseOne.median)) * 1000 / lookups
                let verdict = excess <= 1 ? "met" : "MISSED by \(number(excess - 1)) µs"
                lines.append(
                    "- per-transaction overhead over C, \(storage.rawValue): \(number(excess)) µs ≤ 1 µs: \(verdict)")
            }
        }
        var slower: [String] = []
        var compared = 0
        for (workload, storage) in keys {
            guard let toolkit = find(workload, storage, "toolkit"), let grdb = find(workload, storage, "grdb") else {
                continue
            }
            compared += 1
            if toolkit.median >= grdb.median {
                slower.append(
                    "\(workload.rawValue)/\(storage.rawValue) (\(Markdown.ratio(toolkit.median / grdb.median)))")
            }
        }
        if compared > 0 {
            lines.append(
                "- faster than GRDB on every workload: "
                    + (slower.isEmpty
                        ? "met (\(compared) of \(compared))" : "MISSED on \(slower.joined(separator: ", "))"))
        }
        return lines
    }

    /// Instruction counts: one row per workload, one column per implementation, per unit and as a ratio.
    static func instructions(_ results: [InstructionResult], implementations: [any BenchmarkImplementation]) -> String {
        let baseline = implementations.first?.name ?? "c"
        var lines: [String] = []
        lines.append("Instructions per unit (row, lookup or iteration); × is the ratio to `\(baseline)`.")
        lines.append("")
        lines.append(
            "| workload | storage | unit | " + implementations.map { "`\($0.name)`" }.joined(separator: " | ") + " |")
        lines.append("|---|---|---|" + String(repeating: "---|", count: implementations.count))
        var keys: [(Workload, Storage, Int)] = []
        for result in results
        where !keys.contains(where: { $0 == (result.workload, result.storage, result.threads) }) {
            keys.append((result.workload, result.storage, result.threads))
        }
        for (workload, storage, threads) in keys {
            let row = results.filter { $0.workload == workload && $0.storage == storage && $0.threads == threads }
            let base = row.first { $0.implementation == baseline }?.perUnit ?? .nan
            let cells = implementations.map { implementation -> String in
                guard let result = row.first(where: { $0.implementation == implementation.name }) else { return "" }
                return "\(number(result.perUnit)) · \(ratio(result.perUnit / base))"
            }
            lines.append(
                "| \(workload.name(threads: threads)) | \(storage.rawValue) | \(workload.unitName) | "
                    + cells.joined(separator: " | ")
                    + " |")
        }
        return lines.joined(separator: "\n")
    }

    /// The threaded workloads (the pool's reads by N threads): one row per workload, storage and thread count, with
    /// each implementation's accesses per second (units over the median time) and its ratio to the baseline's, the
    /// issue's table. Empty when no threaded workload ran.
    static func threadedThroughput(
        _ results: [CaseResult],
        implementations: [any BenchmarkImplementation],
        size: WorkloadSize
    ) -> String {
        let threaded = results.filter { $0.workload.isThreaded }
        guard let first = threaded.first else { return "" }
        let baseline = implementations.first?.name ?? "c"
        let present = implementations.filter { implementation in
            threaded.contains { $0.implementation == implementation.name }
        }
        var lines = [
            "\(first.workload.rawValue): \(first.workload.unitName) units per second (units over the median time); × "
                + "is the ratio to `\(baseline)` in the same run.",
            "",
            "| threads | storage | " + present.map { "\($0.title) (`\($0.name)`)" }.joined(separator: " | ") + " |",
            "|---|---|" + String(repeating: "---|", count: present.count),
        ]
        var keys: [(Workload, Storage, Int)] = []
        for result in threaded where !keys.contains(where: { $0 == (result.workload, result.storage, result.threads) })
        {
            keys.append((result.workload, result.storage, result.threads))
        }
        for (workload, storage, threads) in keys {
            func perSecond(_ name: String) -> Double? {
                threaded.first {
                    $0.workload == workload && $0.storage == storage && $0.threads == threads
                        && $0.implementation == name
                }.map { Double(workload.units(size)) / ($0.median / 1000) }
            }
            let base = perSecond(baseline) ?? .nan
            let cells = present.map { implementation -> String in
                guard let value = perSecond(implementation.name) else { return "" }
                let rate = String(format: "%.0f", value)
                return implementation.name == baseline ? rate : "\(rate) · \(ratio(value / base))"
            }
            lines.append("| \(threads) | \(storage.rawValue) | " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }
}
