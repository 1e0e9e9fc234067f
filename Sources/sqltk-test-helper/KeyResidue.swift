// Key hygiene, checked from the outside: after a raw key was used and every copy of it released, its bytes (and
// the hexadecimal text the codec is given) appear nowhere in this process's writable memory
// (Tests/SQLiteToolkitTests/KeyHygieneTests.swift). Linux only: it reads its own memory through /proc/self/mem.

import Foundation
import SQLiteToolkit

#if os(Linux)
    /// The patterns searched for, and the buffer memory is read into, in one mapping of their own that the scan
    /// skips: they hold the key, and copies of memory that held it.
    struct ScanArea {
        static let patternSize = 32 + 64
        static let chunkSize = 1 << 20
        let base: UnsafeMutableRawPointer
        let size = patternSize + chunkSize

        init() throws {
            guard let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                mapped != MAP_FAILED
            else { throw UsageError(description: "mmap failed") }
            base = mapped
        }

        var raw: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: 32) }
        var hex: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base + 32, count: 64) }
        var chunk: UnsafeMutableRawPointer { base + Self.patternSize }

        func contains(_ address: UInt) -> Bool {
            let start = UInt(bitPattern: base)
            return address >= start && address < start + UInt(size)
        }

        func release() {
            explicit_bzero(base, size)
            munmap(base, size)
        }
    }

    /// The whole text of a /proc file (whose size reads as 0, so it is read until the end).
    func readProcFile(_ path: String) throws -> String {
        let file = open(path, O_RDONLY)
        guard file >= 0 else { throw UsageError(description: "cannot open \(path)") }
        defer { close(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(file, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Where the patterns were found: one line per hit, with the region's name from /proc/self/maps.
    func scanWritableMemory(for area: ScanArea) throws -> (hits: [String], scanned: Int) {
        let maps = try readProcFile("/proc/self/maps")
        let memory = open("/proc/self/mem", O_RDONLY)
        guard memory >= 0 else { throw UsageError(description: "cannot open /proc/self/mem") }
        defer { close(memory) }
        var hits: [String] = []
        var scanned = 0
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 5, fields[1].hasPrefix("rw") else { continue }
            let name = fields.count >= 6 ? String(fields[5]) : "anonymous"
            if name == "[vvar]" || name == "[vsyscall]" { continue }
            let bounds = fields[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
            guard bounds.count == 2 else { continue }
            var address = bounds[0]
            while address < bounds[1] {
                let length = Int(min(UInt(ScanArea.chunkSize), bounds[1] - address))
                // Chunks overlap by one pattern less a byte, so a pattern across a chunk edge is found too.
                let isLast = address + UInt(length) >= bounds[1]
                defer { address += UInt(isLast ? length : length - (ScanArea.patternSize - 1)) }
                if area.contains(address) { continue }
                let read = pread(memory, area.chunk, length, off_t(truncatingIfNeeded: address))
                guard read > 0 else { continue }
                scanned += read
                let chunk = UnsafeRawBufferPointer(start: area.chunk, count: read)
                for (label, pattern) in [("raw key bytes", area.raw), ("hex key text", area.hex)] {
                    for offset in occurrences(of: pattern, in: chunk) {
                        hits.append("\(label) in \(name) at 0x\(String(address + UInt(offset), radix: 16))")
                    }
                }
            }
        }
        return (hits, scanned)
    }
#endif

/// The offsets of `pattern` in `bytes`: memchr finds each candidate first byte, memcmp checks the rest.
func occurrences(of pattern: UnsafeRawBufferPointer, in bytes: UnsafeRawBufferPointer) -> [Int] {
    guard let needle = pattern.baseAddress, let base = bytes.baseAddress, pattern.count > 0 else { return [] }
    var offsets: [Int] = []
    var offset = 0
    while bytes.count - offset >= pattern.count {
        guard let candidate = memchr(base + offset, Int32(pattern[0]), bytes.count - offset - pattern.count + 1)
        else { break }
        let position = base.distance(to: UnsafeRawPointer(candidate))
        if memcmp(base + position, needle, pattern.count) == 0 { offsets.append(position) }
        offset = position + 1
    }
    return offsets
}

/// `key-residue PATH`: makes a random raw key, creates an encrypted database with it, reopens it with a second
/// key object holding the same bytes, then releases every key and scans. Prints `before N` (hits while the key is
/// alive: the scan's control, at least 1), then `after N` and one line per hit. Exits 0.
func keyResidue(_ arguments: [String]) throws {
    guard arguments.count == 1 else { throw UsageError(description: "key-residue PATH") }
    #if os(Linux)
        let area = try ScanArea()
        defer { area.release() }
        let pattern = UnsafeMutableRawBufferPointer(start: area.base, count: ScanArea.patternSize)
        var generator = SystemRandomNumberGenerator()
        for index in 0..<32 { pattern[index] = UInt8.random(in: 0...255, using: &generator) }
        let digits = Array("0123456789abcdef".utf8)
        for index in 0..<32 {
            pattern[32 + 2 * index] = digits[Int(pattern[index] >> 4)]
            pattern[33 + 2 * index] = digits[Int(pattern[index] & 0x0F)]
        }
        do {
            // The key reads its bytes straight from the scan area: no other copy is made here.
            var configuration = Database.Configuration()
            configuration.key = .raw(area.raw)
            let before = try scanWritableMemory(for: area)
            print("before \(before.hits.count)")
            let db = try Database(path: arguments[0], configuration: configuration)
            try db.execute("CREATE TABLE t (x)")
            try db.execute("INSERT INTO t VALUES ('row')")
            db.close()
            configuration.key = .raw(area.raw)
            let again = try Database(path: arguments[0], configuration: configuration)
            _ = try again.queryValue("SELECT count(*) FROM t", as: Int.self)
            again.close()
        }
        let after = try scanWritableMemory(for: area)
        print("after \(after.hits.count) scanned \(after.scanned)")
        for hit in after.hits { print(hit) }
    #else
        print("unsupported")
    #endif
}
