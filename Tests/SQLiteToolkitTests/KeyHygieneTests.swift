import Foundation
import SQLiteToolkit
import Testing

/// Key bytes are zeroed after use: a helper process makes a random 32-byte key, creates and reopens an encrypted
/// database with it (as a raw key, or as a passphrase of those bytes), releases every key, then reads its own
/// writable memory (heap, stacks, anonymous and library data mappings) through /proc/self/mem for the key's bytes
/// and for the 64 hex digits the codec is given for a raw key, without allocating while it scans. Two controls:
/// the scan finds the key while a `DatabaseKey` holds it, and finds a copy released without zeroing.
/// Whether this process runs with AddressSanitizer: its runtime is linked in (`RTLD_DEFAULT` is 0 on Linux).
private var isAddressSanitized: Bool { dlsym(nil, "__asan_init") != nil }

@Suite(
    "Key hygiene: key bytes zeroed after use",
    .enabled(
        if: !isAddressSanitized,
        "not under AddressSanitizer, whose terabytes of reserved shadow memory the scan would read"))
struct KeyHygieneTests {
    /// Runs `sqltk-test-helper key-residue` and returns the hits while the key was alive and after its release.
    static func scan(_ mode: String) async throws -> (before: Int, after: Int, output: String) {
        try await TemporaryFile.withDatabasePathAsync { path in
            let child = try TestHelper.Child(["key-residue", path, mode])
            let result = try #require(try await child.wait(seconds: 120), "key-residue did not finish")
            try #require(result.status == 0, "key-residue: \(result.output)")
            let lines = result.output.split(separator: "\n").map { $0.split(separator: " ") }
            let before = lines.first { $0.first == "before" }.flatMap { $0.count == 2 ? Int($0[1]) : nil }
            let after = lines.first { $0.first == "after" }.flatMap { $0.count == 4 ? Int($0[1]) : nil }
            return (try #require(before, "\(result.output)"), try #require(after, "\(result.output)"), result.output)
        }
    }

    #if os(Linux)
        @Test(
            "after a key is used and released, neither its bytes nor its hex text remain in memory",
            arguments: ["raw", "passphrase"])
        func noKeyResidue(kind: String) async throws {
            let result = try await Self.scan(kind)
            #expect(result.before >= 1, "the scan did not find the live key: \(result.output)")
            #expect(result.after == 0, "key residue: \(result.output)")
        }

        @Test("the scan finds a copy of the key released without zeroing (the control)")
        func scanFindsUnzeroedCopy() async throws {
            let result = try await Self.scan("unzeroed-copy")
            #expect(result.after >= 1, "the scan missed the unzeroed copy: \(result.output)")
        }
    #else
        @Test("key residue scan", .disabled("reads the process's memory through /proc/self/mem: Linux only"))
        func noKeyResidue() {}
    #endif
}
