import Foundation
import Testing

/// Random rows of odd values, from a seed, printed by both shells in every mode that writes values as they are (the
/// column modes count characters, which raw bytes make ambiguous), and dumped by sqltk then loaded into sqlite3: text
/// with bytes that are not UTF-8, separators, quotes and line breaks; subnormal, signed-zero, extreme and random-bit
/// reals; the extreme integers; blobs of any byte.
@Suite(
    "sqltk against the sqlite3 shell on random raw values",
    .enabled(
        if: sqlite3Version?.hasPrefix("3.40.") == true,
        "needs the sqlite3 shell 3.40 (Debian 12's), the reference of these comparisons: scripts/install-test-peers"))
struct ShellRawValueParityTests {
    static let pieces: [[UInt8]] = [
        [0x61], [0x27], [0x22], [0x2C], [0x0A], [0x0D], [0x09], [0x7C], [0xE9], [0xC3, 0xA9], [0xE2, 0x82],
        [0xF0, 0x9F, 0x98, 0x80], [0x5C], [0x20], Array("<&>".utf8), [0x01], [0xFF], [0xED, 0xA0, 0x80], [0xC0, 0x80],
        [0xF4, 0x90, 0x80, 0x80],
    ]

    static func real(_ random: inout SQLite3RandomParityTests.Generator) -> Double {
        switch random.next(5) {
        case 0: return Double(bitPattern: UInt64(1 + random.next(1 << 30)) << UInt64(random.next(22)))  // subnormal
        case 1: return -0.0
        case 2:
            let extremes = [
                Double.greatestFiniteMagnitude, Double.leastNormalMagnitude, Double.leastNonzeroMagnitude, 1e100,
                -1e300, 9.999999999999999e22, 1e15, 1e16, 123_456_789_012_345_680,
            ]
            return extremes[random.next(extremes.count)]
        case 3:
            let bits = UInt64(random.next(1 << 31)) << 33 | UInt64(random.next(1 << 31)) << 2 | UInt64(random.next(4))
            let value = Double(bitPattern: bits)
            return value.isFinite ? value : 0.5
        default:
            return Double(random.next(2_000_001) - 1_000_000) / 997 * pow(10, Double(random.next(600) - 300))
        }
    }

    /// An SQL literal, as bytes: its text may hold any of ``pieces``.
    static func literal(_ random: inout SQLite3RandomParityTests.Generator) -> [UInt8] {
        switch random.next(6) {
        case 0: return Array("NULL".utf8)
        case 1:
            let integers: [Int64] = [0, -1, .max, .min, 9_007_199_254_740_993, Int64(random.next(1 << 30)) << 30]
            return Array(String(integers[random.next(integers.count)]).utf8)
        case 2:
            let value = real(&random)
            // Swift's shortest digits read back as the same double in SQLite; -0.0 as a literal would be folded.
            return Array((value == 0 && value.sign == .minus ? "(-0.0)" : "\(value)").utf8)
        case 3:
            return Array(
                ("X'" + (0..<random.next(6)).map { _ in String(format: "%02x", random.next(256)) }.joined() + "'").utf8)
        default:
            var text: [UInt8] = [0x27]
            for _ in 0..<random.next(8) {
                for byte in pieces[random.next(pieces.count)] {
                    text.append(byte)
                    if byte == 0x27 { text.append(byte) }
                }
            }
            return text + [0x27]
        }
    }

    @Test("random raw values print in the value modes and dump as sqlite3 does", arguments: 1...12)
    func rawValues(seed: Int) throws {
        var random = SQLite3RandomParityTests.Generator(state: UInt64(seed) &* 104_729)
        var table = Array("CREATE TABLE r(a, b, c);\n".utf8)
        for _ in 0..<(4 + random.next(8)) {
            table += Array("INSERT INTO r VALUES(".utf8) + Self.literal(&random) + [0x2C] + Self.literal(&random)
            table += [0x2C] + Self.literal(&random) + Array(");\n".utf8)
        }
        var script = table
        for mode in ["list", "csv", "quote", "line", "json", "insert", "html", "tabs", "ascii"] {
            script += Array(".mode \(mode)\n.headers \(random.next(2) == 0 ? "on" : "off")\nSELECT * FROM r;\n".utf8)
        }
        let sqltk = try #require(ShellProcess.executable, "the sqltk executable was not built beside the tests")
        let sqlite3 = try #require(ShellProcess.sqlite3)
        let expected = try ShellProcess.runRaw(sqlite3, [":memory:"], input: Data(script))
        let actual = try ShellProcess.runRaw(sqltk, [":memory:"], input: Data(script))
        #expect(actual.output == expected.output, "seed \(seed), script bytes: \(script)")
        #expect(actual.status == expected.status, "seed \(seed)")

        // sqltk's dump, loaded by sqlite3, must rebuild what sqlite3's own dump describes.
        let folder = try TemporaryFolder()
        let made = try ShellProcess.runRaw(sqlite3, ["a.db"], input: Data(table), directory: folder.url)
        try #require(made.status == 0, "seed \(seed): setup failed")
        let dump = try ShellProcess.runRaw(sqltk, ["a.db", ".dump"], input: Data(), directory: folder.url)
        #expect(dump.status == 0, "seed \(seed): \(String(decoding: dump.error, as: UTF8.self))")
        _ = try ShellProcess.runRaw(sqlite3, ["b.db"], input: dump.output, directory: folder.url)
        let check = ".mode quote\nSELECT typeof(a), a, typeof(b), b, typeof(c), c FROM r ORDER BY rowid;\n"
        let original = try ShellProcess.runRaw(sqlite3, ["a.db"], input: Data(check.utf8), directory: folder.url)
        let loaded = try ShellProcess.runRaw(sqlite3, ["b.db"], input: Data(check.utf8), directory: folder.url)
        #expect(loaded.output == original.output, "seed \(seed): sqltk's dump did not rebuild the rows")
        #expect(!original.output.isEmpty, "seed \(seed)")
    }
}
