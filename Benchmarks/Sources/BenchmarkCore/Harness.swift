import Foundation

/// The command line of `sqltk-bench`.
public struct Options: Sendable {
    /// Only cases whose `workload/storage/implementation` contains one of these substrings (all when empty).
    public var filters: [String] = []
    /// A tenth of the rows, 3 repetitions.
    public var quick = false
    /// Timed repetitions per implementation; `nil` for the default (7, or 3 with `--quick`).
    public var repetitions: Int?
    /// Only this storage.
    public var storage: Storage?
    /// Where to write the JSON report; `nil` for `Benchmarks/results/`.
    public var jsonPath: String?
    /// Count instructions under callgrind instead of timing.
    public var instructions = false
    /// Units per instruction-count run; `nil` for the default.
    public var instructionUnits: Int?
    /// Internal: run one `workload/storage/implementation` once with this many units (for callgrind).
    public var single: (name: String, units: Int)?
    /// Print the cases and exit.
    public var list = false
    /// The most threads of the threaded workloads (`pool-read-N-threads` runs N = 1 ... this): `--threads`, else
    /// `SQLTK_BENCH_THREADS`, else the active cores.
    public var maximumThreads =
        ProcessInfo.processInfo.environment["SQLTK_BENCH_THREADS"].flatMap { Int($0) }.map { max(1, $0) }
        ?? ProcessInfo.processInfo.activeProcessorCount

    static let usage = """
        usage: sqltk-bench [--quick] [--filter SUBSTRING]... [--storage memory|wal] [--repetitions N]
                           [--json PATH] [--instructions [--units N]] [--threads N] [--list]

          --filter S       run the cases whose "workload/storage/implementation" contains S (repeatable)
          --quick          10k rows, 1k lookups, 100k iterations, 3 repetitions: for development
          --instructions   count instructions per row under valgrind --tool=callgrind (in memory unless
                           --storage says otherwise); --units N sets the rows of the counted run
          --threads N      run pool-read-N-threads for 1 ... N threads (default: SQLTK_BENCH_THREADS, else the
                           active cores)
        """

    /// Parses `arguments` (without the program name).
    public init(_ arguments: [String]) throws {
        var rest = arguments[...]
        func value(_ option: String) throws -> String {
            guard let value = rest.popFirst() else { throw BenchmarkError("\(option) needs a value\n\(Options.usage)") }
            return value
        }
        func number(_ option: String) throws -> Int {
            guard let number = Int(try value(option)), number >= 0 else {
                throw BenchmarkError("\(option) needs a number\n\(Options.usage)")
            }
            return number
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--filter": filters.append(try value(argument))
            case "--quick": quick = true
            case "--repetitions": repetitions = max(1, try number(argument))
            case "--storage":
                guard let storage = Storage(rawValue: try value(argument)) else {
                    throw BenchmarkError("--storage is memory or wal")
                }
                self.storage = storage
            case "--json": jsonPath = try value(argument)
            case "--instructions": instructions = true
            case "--units": instructionUnits = try number(argument)
            case "--single":
                let name = try value(argument)
                single = (name, try number(argument))
            case "--threads": maximumThreads = max(1, try number(argument))
            case "--list": list = true
            case "--help", "-h": throw BenchmarkError(Options.usage)
            default: throw BenchmarkError("unknown argument \(argument)\n\(Options.usage)")
            }
        }
    }

    var size: WorkloadSize { quick ? .quick : .full }
}

/// The benchmark: runs the implementations side by side, checks their checksums, prints and saves the report.
public struct Harness {
    let implementations: [any BenchmarkImplementation]
    let options: Options
    let output: (String) -> Void

    /// A harness over `implementations`; the first is the baseline every ratio divides by.
    public init(
        implementations: [any BenchmarkImplementation],
        options: Options,
        // Unbuffered, so a long run shows its progress even into a file or a pipe.
        output: @escaping (String) -> Void = { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) }
    ) {
        self.implementations = implementations
        self.options = options
        self.output = output
    }

    /// One workload on one storage (and, for a threaded workload, one thread count), with the implementations that
    /// run it.
    struct Case {
        var workload: Workload
        var storage: Storage
        var threads: Int
        var implementations: [any BenchmarkImplementation]

        var name: String { "\(workload.name(threads: threads))/\(storage.rawValue)" }
    }

    /// The cases the options select, in report order.
    func cases(defaultStorages: [Storage]) -> [Case] {
        let storages = options.storage.map { [$0] } ?? defaultStorages
        var cases: [Case] = []
        for workload in Workload.allCases {
            // The micro-benchmark touches no table: its storage does not matter.
            var workloadStorages = workload == .bindStepColumnReset ? storages.filter { $0 == .memory } : storages
            // An in-memory database cannot be encrypted: the encryption workloads run on files.
            if workload.needsFile { workloadStorages = storages.filter { $0 != .memory } }
            let threadCounts = workload.isThreaded ? Array(1...options.maximumThreads) : [1]
            for storage in workloadStorages {
                for threads in threadCounts {
                    let selected = implementations.filter { implementation in
                        guard implementation.workloads.contains(workload) else { return false }
                        let name = "\(workload.name(threads: threads))/\(storage.rawValue)/\(implementation.name)"
                        return options.filters.isEmpty || options.filters.contains { name.contains($0) }
                    }
                    if !selected.isEmpty {
                        cases.append(
                            Case(workload: workload, storage: storage, threads: threads, implementations: selected))
                    }
                }
            }
        }
        return cases
    }

    /// Runs what the options ask for; returns the process exit code (1 when implementations disagree).
    public func run() throws -> Int32 {
        if let single = options.single { return try runSingle(single.name, units: single.units) }
        let cases = self.cases(defaultStorages: options.instructions ? [.memory] : Storage.allCases)
        if options.list {
            for testCase in cases {
                for implementation in testCase.implementations { output("\(testCase.name)/\(implementation.name)") }
            }
            return 0
        }
        guard !cases.isEmpty else { throw BenchmarkError("no case matches \(options.filters)") }
        let machine = Environment.machine
        var versions: [String: String] = [:]
        output("# sqltk-bench")
        output("")
        output("- date: \(Environment.date)")
        output("- machine: \(machine)")
        for implementation in implementations {
            let version = try implementation.sqliteVersion()
            versions[implementation.name] = version
            output("- \(implementation.title) (`\(implementation.name)`): SQLite \(version)")
        }
        output("- open flags: `SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX`")
        for storage in Storage.allCases {
            output("- \(storage.rawValue): \(storage.pragmas.map { "`\($0)`" }.joined(separator: ", "))")
        }
        let size = options.size
        output("- size: \(size.rows) rows, \(size.lookups) lookups, \(size.iterations) micro-benchmark iterations")
        output("")

        var report = Report(
            date: Environment.date, machine: machine, command: CommandLine.arguments.joined(separator: " "),
            sqliteVersions: versions, size: size, repetitions: 0, timings: [], instructions: [], mismatches: [])
        if options.instructions {
            report.instructions = try countInstructions(cases)
            output(Markdown.instructions(report.instructions, implementations: implementations))
        } else {
            let repetitions = options.repetitions ?? (options.quick ? 3 : 7)
            report.repetitions = repetitions
            output("Interleaved: one warm-up run each, then \(repetitions) repetitions, rotating the order.")
            output("")
            for testCase in cases {
                let results = try time(testCase, size: size, repetitions: repetitions)
                report.timings += results
                if let mismatch = Self.mismatch(testCase, results) {
                    report.mismatches.append(mismatch)
                    output("CHECKSUM MISMATCH: \(mismatch)")
                }
            }
            output(Markdown.timings(report.timings, implementations: implementations, size: size))
            let poolReads = Markdown.threadedThroughput(report.timings, implementations: implementations, size: size)
            if !poolReads.isEmpty { output("\n" + poolReads) }
        }
        let path = try write(report)
        output("JSON: \(path)")
        if !report.mismatches.isEmpty {
            output("FAILED: implementations disagree on \(report.mismatches.joined(separator: "; "))")
            return 1
        }
        return 0
    }

    // MARK: - Timing

    /// A fresh location for one repetition.
    func location(_ storage: Storage, folder: URL, run: Int) -> DatabaseLocation {
        switch storage {
        case .memory: DatabaseLocation(storage: storage, path: ":memory:")
        case .wal: DatabaseLocation(storage: storage, path: folder.appendingPathComponent("run-\(run).sqlite").path)
        }
    }

    func time(_ testCase: Case, size: WorkloadSize, repetitions: Int) throws -> [CaseResult] {
        var size = size
        size.threads = testCase.threads
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("sqltk-bench-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var runNumber = 0
        func once(_ implementation: any BenchmarkImplementation) throws -> (Double, Int64) {
            runNumber += 1
            let location = location(testCase.storage, folder: folder, run: runNumber)
            defer {
                if testCase.storage != .memory {
                    for suffix in ["", "-wal", "-shm", "-journal"] {
                        try? FileManager.default.removeItem(atPath: location.path + suffix)
                    }
                }
            }
            return try timeOneRun(implementation, testCase.workload, size: size, location: location)
        }

        let implementations = testCase.implementations
        var results = implementations.map {
            CaseResult(
                workload: testCase.workload, storage: testCase.storage, threads: testCase.threads,
                implementation: $0.name, milliseconds: [], checksum: 0)
        }
        var checksums: [[Int64]] = Array(repeating: [], count: implementations.count)
        for (index, implementation) in implementations.enumerated() {
            checksums[index].append(try once(implementation).1)
        }
        for repetition in 0..<repetitions {
            for offset in 0..<implementations.count {
                let index = (offset + repetition) % implementations.count
                let (milliseconds, checksum) = try once(implementations[index])
                results[index].milliseconds.append(milliseconds)
                checksums[index].append(checksum)
            }
        }
        var line = "\(testCase.name):"
        for index in results.indices {
            let distinct = Set(checksums[index])
            // A checksum that changes between repetitions is a mismatch too: report it as one.
            results[index].checksum = distinct.count == 1 ? checksums[index][0] : Int64.min
            line += " \(results[index].implementation) \(Markdown.number(results[index].median)) ms"
        }
        output(line)
        return results
    }

    static func mismatch(_ testCase: Case, _ results: [CaseResult]) -> String? {
        let checksums = Set(results.map(\.checksum))
        guard checksums.count > 1 || checksums.contains(Int64.min) else { return nil }
        return "\(testCase.name) (" + results.map { "\($0.implementation): \($0.checksum)" }.joined(separator: ", ")
            + ")"
    }

    // MARK: - Instruction counts

    /// Runs one case once, for a callgrind child.
    func runSingle(_ name: String, units: Int) throws -> Int32 {
        let parts = name.split(separator: "/").map(String.init)
        guard parts.count == 3, let (workload, threads) = Workload.parse(parts[0]),
            let storage = Storage(rawValue: parts[1]),
            let implementation = implementations.first(where: { $0.name == parts[2] })
        else { throw BenchmarkError("--single takes workload/storage/implementation, not \(name)") }
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("sqltk-bench-single-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var size = options.size.scaled(to: units, for: workload)
        size.threads = threads
        let (_, checksum) = try timeOneRun(
            implementation, workload, size: size, location: location(storage, folder: folder, run: 0))
        output("checksum \(checksum)")
        return 0
    }

    func countInstructions(_ cases: [Case]) throws -> [InstructionResult] {
        let valgrind = "/usr/bin/valgrind"
        guard FileManager.default.isExecutableFile(atPath: valgrind) else {
            throw BenchmarkError("--instructions needs valgrind (apt-get install valgrind)")
        }
        let folder = Environment.resultsFolder(options.jsonPath).appendingPathComponent("callgrind")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let executable = try Self.executableForValgrind(in: folder)
        var results: [InstructionResult] = []
        output("Instructions counted by `valgrind --tool=callgrind --toggle-collect='*measuredRegion*'`, per unit")
        output("(whole process, every thread, for the workloads that run on other threads: queue-read-async, pool-*):")
        output("(count with N units − count with 0 units) / N, so opening, schema, data loading and statement")
        output("preparation cancel out. Callgrind files: \(folder.path)")
        output("")
        for testCase in cases {
            let units =
                options.instructionUnits
                ?? (options.quick
                    ? testCase.workload.units(.quick) / 5 : testCase.workload.units(.full) / 5)
            for implementation in testCase.implementations {
                var counts: [Int] = []
                for count in [units, 0] {
                    let name = "\(testCase.name)/\(implementation.name)"
                    let file = folder.appendingPathComponent(
                        "callgrind.\(name.replacingOccurrences(of: "/", with: "."))-\(count).out")
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: valgrind)
                    // Callgrind's collection state is per thread: the toggle on `measuredRegion` counts the calling
                    // thread only. For work that runs on other threads, count the whole process on every thread; the
                    // run with 0 units takes away what does not depend on the units (start-up, data, statements).
                    let collection =
                        testCase.workload.runsOnOtherThreads
                        ? ["--collect-atstart=yes"] : ["--collect-atstart=no", "--toggle-collect=*measuredRegion*"]
                    process.arguments =
                        ["--tool=callgrind"] + collection + [
                            "--callgrind-out-file=\(file.path)", executable, "--single", name, String(count),
                        ] + (options.quick ? ["--quick"] : [])
                    process.standardOutput = FileHandle.nullDevice
                    process.standardError = FileHandle.nullDevice
                    try process.run()
                    process.waitUntilExit()
                    guard process.terminationStatus == 0 else {
                        throw BenchmarkError("callgrind run of \(name) with \(count) units failed")
                    }
                    counts.append(try Self.totalInstructions(file))
                }
                let result = InstructionResult(
                    workload: testCase.workload, storage: testCase.storage, threads: testCase.threads,
                    implementation: implementation.name,
                    units: units, instructions: counts[0], fixedInstructions: counts[1])
                output(
                    "\(testCase.name)/\(implementation.name): \(Markdown.number(result.perUnit)) instructions per "
                        + testCase.workload.unitName
                )
                results.append(result)
            }
        }
        output("")
        return results
    }

    /// This executable without its debug information, which valgrind 3.19 cannot read ("Possibly corrupted debuginfo
    /// file") from the DWARF 5 that Swift 6 emits; the symbols, which callgrind reports, stay.
    static func executableForValgrind(in folder: URL) throws -> String {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let objcopy = "/usr/bin/objcopy"
        guard FileManager.default.isExecutableFile(atPath: objcopy) else { return executable }
        let copy = folder.appendingPathComponent("sqltk-bench-nodebug").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: objcopy)
        process.arguments = ["--strip-debug", executable, copy]
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? copy : executable
    }

    /// The `totals:` (or `summary:`) line of a callgrind output file.
    static func totalInstructions(_ file: URL) throws -> Int {
        let text = try String(contentsOf: file, encoding: .utf8)
        for line in text.split(separator: "\n") where line.hasPrefix("totals:") || line.hasPrefix("summary:") {
            if let value = line.split(separator: " ").last.flatMap({ Int($0) }) { return value }
        }
        throw BenchmarkError("no totals in \(file.path)")
    }

    // MARK: - JSON

    func write(_ report: Report) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let data = try encoder.encode(report)
        let url: URL
        if let jsonPath = options.jsonPath {
            url = URL(fileURLWithPath: jsonPath)
        } else {
            let stamp = report.date.replacingOccurrences(of: ":", with: "-")
            url = Environment.resultsFolder(nil)
                .appendingPathComponent((options.instructions ? "instructions-" : "timings-") + stamp + ".json")
        }
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
        return url.path
    }
}

/// Facts about the machine and the checkout.
enum Environment {
    static let date = ISO8601DateFormatter().string(from: Date())

    /// "2 cores, Intel(R) Xeon(R) Processor".
    static var machine: String {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
        return "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(model)"
    }

    /// `Benchmarks/results/` beside this source file's package, or the folder of `jsonPath`.
    static func resultsFolder(_ jsonPath: String?) -> URL {
        if let jsonPath { return URL(fileURLWithPath: jsonPath).deletingLastPathComponent() }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("results")
    }
}
