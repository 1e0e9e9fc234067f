import Foundation
import Testing

@testable import BindgenCore

@Suite("Generated output for the fixture header")
struct GoldenOutputTests {
    /// The files the fixture spec must produce, each compared with `Fixtures/Golden/<name>.golden`.
    static let expectedFiles = [
        "ConnectionHandle.swift",
        "DatabaseStatusCounter.swift",
        "Datatype.swift",
        "OpenFlags.swift",
        "PrepareFlags.swift",
        "ResultCode+Constants.swift",
        "StatementHandle.swift",
    ]

    @Test("the fixture spec generates exactly the expected files")
    func generatesExpectedFiles() throws {
        #expect(try Fixtures.generator().files().keys.sorted() == Self.expectedFiles)
        let golden = try FileManager.default.contentsOfDirectory(
            atPath: Fixtures.directory.appendingPathComponent("Golden").path)
        #expect(golden.sorted() == Self.expectedFiles.map { $0 + ".golden" })
    }

    /// Compares what the CLI would commit: the generator's text formatted with the repository's `.swift-format`.
    /// On a difference the formatted output is written next to a temporary copy, to diff and review by hand;
    /// golden files are never rewritten by the tests.
    @Test("each generated file, formatted, matches its hand-checked golden file", arguments: expectedFiles)
    func matchesGoldenFile(name: String) throws {
        let generated = try #require(try Fixtures.generator().files()[name])
        let formatted = try Formatter.format(generated, configuration: Fixtures.formatConfiguration)
        let goldenURL = try Fixtures.directory.appendingPathComponent("Golden/\(name).golden")
        let golden = try String(contentsOf: goldenURL, encoding: .utf8)
        if formatted != golden {
            let actualURL = FileManager.default.temporaryDirectory.appendingPathComponent("\(name).actual")
            try Data(formatted.utf8).write(to: actualURL)
            Issue.record("\(name) differs from its golden file; compare with: diff \(goldenURL.path) \(actualURL.path)")
        }
    }

    @Test("generating twice gives byte-identical files")
    func isDeterministic() throws {
        // Two generators, each reading the header through clang and the spec from disk. Dictionary order also varies
        // from process to process, which the golden comparison covers.
        let first = try Fixtures.generator().files()
        let second = try Fixtures.generator().files()
        #expect(first.keys.sorted() == second.keys.sorted())
        for (name, text) in first {
            #expect(Data(text.utf8) == second[name].map { Data($0.utf8) }, "\(name) differs between runs")
        }
    }

    @Test("the fixture spec decides every function of the fixture header")
    func coversFixtureHeader() throws {
        let coverage = try Fixtures.generator().coverage()
        #expect(coverage == Coverage(declared: 22, wrapped: 17, skipped: 5, wrappers: 19, undecided: 0))
    }

    @Test("the fixture header's model has prefixed link names, unprefixed spec names and opaque structs")
    func readsFixtureHeader() throws {
        let header = try Fixtures.header()
        let open = try #require(header.functions["sqlite3_open_v2"])
        #expect(open.linkName == "sqltk_sqlite3_open_v2")
        #expect(open.signature == "int (const char *, sqlite3 **, int, const char *)")
        #expect(open.parameters.map(\.name) == ["filename", "ppDb", "flags", "zVfs"])
        #expect(header.functions["sqltk_transient"]?.linkName == "sqltk_transient")
        #expect(header.functions["sqlite3_config"]?.isVariadic == true)
        // clang's own builtin typedefs (`__builtin_va_list`) may be opaque too; they never reach a signature.
        #expect(header.opaqueTypes.isSuperset(of: ["sqltk_sqlite3", "sqltk_sqlite3_stmt"]))
    }
}
