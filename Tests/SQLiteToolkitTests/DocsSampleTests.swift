import Foundation
import Testing

/// Keeps the articles' code samples from drifting away from the tests that compile them.
///
/// Every Swift code block of a DocC article names its test in the text after it: "Runs in `FileTests.swift`" when
/// every line of the block appears, trimmed, as a line of that test file under one of `testFolders` (the
/// test may add lines of its own between them: `#expect`s, set-up), or "Mirrors `FileTests.swift`" when the
/// test runs the same steps in other words (the file must exist). The README's samples are held to the same rule
/// when they carry a marker; its Package.swift fragments carry none.
@Suite("Docs: samples appear in their tests")
struct DocsSampleTests {
    /// The package's root: this file is Tests/SQLiteToolkitTests/DocsSampleTests.swift.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static let catalogs = [
        "Sources/SQLiteToolkit/SQLiteToolkit.docc", "Sources/SQLiteBindings/SQLiteBindings.docc",
        "Sources/SQLiteToolkitTesting/SQLiteToolkitTesting.docc",
        "Sources/SQLiteToolkitCluster/SQLiteToolkitCluster.docc",
    ]

    /// Where a marker's test file may be: the testing product's samples run in its own test target.
    static let testFolders = [
        "Tests/SQLiteToolkitTests", "Tests/SQLiteToolkitTestingTests", "Tests/SQLiteToolkitClusterTests",
    ]

    /// Every article of both catalogs, by path relative to the root.
    static var articles: [String] {
        catalogs.flatMap { catalog in
            let names =
                (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(catalog).path))
            return (names ?? []).filter { $0.hasSuffix(".md") }.sorted().map { "\(catalog)/\($0)" }
        }
    }

    /// A Swift code block and the marker that follows it.
    struct Sample {
        var line: Int
        var code: [String]
        var marker: (verbatim: Bool, file: String)?
    }

    static func samples(in text: String) -> [Sample] {
        let lines = text.components(separatedBy: "\n")
        var samples: [Sample] = []
        var index = 0
        while index < lines.count {
            guard lines[index].trimmingCharacters(in: .whitespaces) == "```swift" else {
                index += 1
                continue
            }
            var sample = Sample(line: index + 1, code: [])
            index += 1
            while index < lines.count, lines[index].trimmingCharacters(in: .whitespaces) != "```" {
                sample.code.append(lines[index])
                index += 1
            }
            index += 1
            // The marker: in the prose after the block, before the next block or heading.
            while index < lines.count, !lines[index].hasPrefix("```"), !lines[index].hasPrefix("#") {
                if let marker = marker(in: lines[index]) {
                    sample.marker = marker
                    break
                }
                index += 1
            }
            samples.append(sample)
        }
        return samples
    }

    static func marker(in line: String) -> (verbatim: Bool, file: String)? {
        for (word, verbatim) in [("Runs in `", true), ("Mirrors `", false)] {
            guard let start = line.range(of: word) else { continue }
            let rest = line[start.upperBound...]
            guard let end = rest.firstIndex(of: "`") else { continue }
            return (verbatim, String(rest[..<end]))
        }
        return nil
    }

    @Test("every Swift sample of every article names its test, and a verbatim one appears in it line by line")
    func samplesAppearInTests() throws {
        let articles = Self.articles
        #expect(articles.count >= 10, "the catalogs were not found from \(Self.root.path)")
        var checkedLines = 0
        for article in articles {
            checkedLines += try Self.check(article, requireMarkers: true)
        }
        #expect(checkedLines > 0)
    }

    @Test("the README's samples that name a test appear in it line by line")
    func readmeSamplesAppearInTests() throws {
        // The README also shows Package.swift fragments and shell commands, which no test can hold.
        #expect(try Self.check("README.md", requireMarkers: false) > 0)
    }

    /// Checks the samples of the Markdown file at `path` (relative to the root); returns the lines compared.
    static func check(_ path: String, requireMarkers: Bool) throws -> Int {
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        var checkedLines = 0
        for sample in samples(in: text) {
            guard let marker = sample.marker else {
                if requireMarkers {
                    Issue.record("\(path):\(sample.line): a Swift sample names no test (\"Runs in `…Tests.swift`\")")
                }
                continue
            }
            let tests = testFolders.lazy.compactMap { folder in
                try? String(contentsOf: root.appendingPathComponent("\(folder)/\(marker.file)"), encoding: .utf8)
            }
            guard let test = tests.first else {
                Issue.record("\(path):\(sample.line): no test file \(marker.file) in \(testFolders)")
                continue
            }
            guard marker.verbatim else { continue }
            let testLines = Set(test.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
            for line in sample.code {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty || trimmed.hasPrefix("import ") { continue }
                checkedLines += 1
                if !testLines.contains(trimmed) {
                    Issue.record("\(path):\(sample.line): not in \(marker.file): \(trimmed)")
                }
            }
        }
        return checkedLines
    }

    @Test(
        "samples that access a queue, a pool or a snapshot await it, unless they show the function they run in",
        arguments: DocsSampleTests.articles + ["README.md"])
    func accessesAreAwaited(path: String) throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
        for sample in Self.samples(in: text) {
            for access in Self.blockingAccesses(in: sample.code) {
                Issue.record(
                    """
                    \(path):\(sample.line): `\(access)` compiles only outside async code, where most app code \
                    runs (in an async function the compiler picks the async twin and asks for await): write \
                    `try await`, or show the function the sample runs in
                    """)
            }
        }
    }

    /// The blocking accesses (`try queue.read {`) of a sample, outside any function it declares that is not
    /// `async`: a reader pasting them into an async function would get "expression is 'async' but is not marked
    /// with 'await'". An access is a call of a queue's, a pool's or a snapshot's access method on anything but a
    /// `Database` (named `db` in the samples), whose methods have no async twin. A sample that shows a blocking
    /// function around its accesses (`@Test func t() throws {`) compiles where it stands, pasted whole.
    static func blockingAccesses(in code: [String]) -> [String] {
        let verbs = [
            "read", "write", "inDatabase", "writeWithoutTransaction", "barrierWrite", "inTransaction", "transaction",
            "savepoint", "inSavepoint",
        ]
        let pattern = try? NSRegularExpression(
            pattern: #"\btry[?!]?\s+([A-Za-z_][\w.]*)\.("# + verbs.joined(separator: "|") + #")\b[^{]*\{"#)
        guard let pattern else { return ["(the pattern does not compile)"] }
        // The functions declared around the current line: the brace depth their body opens at, and whether async.
        var functions: [(opensAt: Int, isAsync: Bool)] = []
        var depth = 0
        var accesses: [String] = []
        for line in code {
            if line.contains("func ") { functions.append((depth, line.contains(" async"))) }
            if functions.last.map(\.isAsync) ?? true {
                accesses += pattern.matches(in: line, range: NSRange(line.startIndex..., in: line)).compactMap {
                    match in
                    guard let whole = Range(match.range, in: line), let receiver = Range(match.range(at: 1), in: line),
                        line[receiver] != "db"
                    else { return nil }
                    return String(line[whole])
                }
            }
            depth += line.filter { $0 == "{" }.count - line.filter { $0 == "}" }.count
            while let function = functions.last, depth <= function.opensAt { functions.removeLast() }
        }
        return accesses
    }

    @Test("the await check finds a blocking access, and leaves awaited ones, a Database's and declared contexts")
    func awaitCheckSelfTest() {
        #expect(Self.blockingAccesses(in: ["let n = try queue.read { db in 1 }"]) == ["try queue.read {"])
        #expect(Self.blockingAccesses(in: ["try TestDatabase.current.write { db in"]).count == 1)
        #expect(Self.blockingAccesses(in: ["try pool.barrierWrite { db in"]).count == 1)
        #expect(Self.blockingAccesses(in: ["let n = try await snapshot.read { db in 1 }"]).isEmpty)
        #expect(Self.blockingAccesses(in: ["try db.transaction { db in", "try blob.read(into: $0, at: 0)"]).isEmpty)
        #expect(Self.blockingAccesses(in: ["@Test func t() throws {", "try queue.write { db in }", "}"]).isEmpty)
    }

    @Test("the await check finds a blocking access a sample hides behind a function, try? or inSavepoint")
    func awaitCheckFindsHiddenAccesses() {
        #expect(Self.blockingAccesses(in: ["try queue.inSavepoint { db in"]).count == 1)
        #expect(Self.blockingAccesses(in: ["let n = try? pool.read { db in 1 }"]).count == 1)
        let asyncFunction = ["func load() async throws -> Int {", "try queue.read { db in 1 }", "}"]
        #expect(Self.blockingAccesses(in: asyncFunction).count == 1)
        #expect(Self.blockingAccesses(in: ["func helper() {}", "try queue.write { db in }"]).count == 1)
    }

    @Test("the check finds a sample, its marker, and a line missing from its test")
    func checkerSelfTest() {
        let text = """
            # Title

            ```swift
            let x = 1
            ```

            (Runs in `DocsGettingStartedTests.swift`.)

            ```swift
            let y = 2
            ```

            ## Next
            """
        let samples = Self.samples(in: text)
        #expect(samples.count == 2)
        #expect(samples.first?.code == ["let x = 1"])
        #expect(samples.first?.marker?.file == "DocsGettingStartedTests.swift")
        #expect(samples.first?.marker?.verbatim == true)
        #expect(samples.last?.marker == nil)
        #expect(Self.marker(in: "Mirrors `ChangesetTests.swift`.")?.verbatim == false)
    }
}
