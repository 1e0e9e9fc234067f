import Foundation
import SQLiteToolkit
import Testing

/// Key bytes are zeroed after use: a helper process makes a random raw key, creates and reopens an encrypted
/// database with it, releases every key, then reads its own writable memory (heap, stacks, anonymous mappings)
/// through /proc/self/mem for the key's 32 bytes and for the 64 hex digits the codec is given. While the key is
/// alive the scan finds it (the control); after, it must find neither anywhere.
@Suite("Key hygiene: key bytes zeroed after use")
struct KeyHygieneTests {
    #if os(Linux)
        @Test("after a raw key is used and released, neither its bytes nor its hex text remain in memory")
        func noKeyResidue() async throws {
            try await TemporaryFile.withDatabasePathAsync { path in
                let child = try TestHelper.Child(["key-residue", path])
                let result = try #require(try await child.wait(seconds: 120), "key-residue did not finish")
                try #require(result.status == 0, "key-residue: \(result.output)")
                let lines = result.output.split(separator: "\n").map(String.init)
                let before = lines.first { $0.hasPrefix("before ") }.flatMap { Int($0.dropFirst(7)) }
                let after = lines.first { $0.hasPrefix("after ") }?.split(separator: " ")
                // The control: the scan sees the key while a DatabaseKey holds it.
                #expect((before ?? 0) >= 1, "the scan did not find the live key: \(result.output)")
                #expect(after?.count == 4 && after?[1] == "0", "key residue: \(result.output)")
            }
        }
    #else
        @Test("key residue scan", .disabled("reads the process's memory through /proc/self/mem: Linux only"))
        func noKeyResidue() {}
    #endif
}
