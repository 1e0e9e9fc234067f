// Key hygiene, checked from the outside: after a raw key was used and every copy of it released, its bytes (and
// the hexadecimal text the codec is given) appear nowhere in this process's writable memory
// (Tests/SQLiteToolkitTests/KeyHygieneTests.swift). Linux only: it reads its own memory through /proc/self/mem.

import Foundation
import SQLiteToolkit

#if os(Linux)
    /// The patterns searched for, the text of /proc/self/maps, the buffer memory is read into and the hits, in one
    /// mapping of their own that the scan skips: they hold the key and copies of memory that held it. The scan
    /// itself allocates nothing on the heap, so it cannot reuse (and overwrite) a freed block that still holds a
    /// key before reading it.
    struct ScanArea {
        static let patternSize = 32 + 64
        static let mapsSize = 1 << 20
        static let chunkSize = 1 << 20
        static let maximumHits = 64
        let base: UnsafeMutableRawPointer
        let size = patternSize + mapsSize + chunkSize + maximumHits * 16

        init() throws {
            guard let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                mapped != MAP_FAILED
            else { throw UsageError(description: "mmap failed") }
            base = mapped
        }

        var raw: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: 32) }
        var hex: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base + 32, count: 64) }
        var maps: UnsafeMutableRawPointer { base + Self.patternSize }
        var chunk: UnsafeMutableRawPointer { maps + Self.mapsSize }
        /// Each hit: the address (8 bytes), then the kind (0 raw, 1 hex) in the next 8.
        var hits: UnsafeMutablePointer<UInt> { (chunk + Self.chunkSize).assumingMemoryBound(to: UInt.self) }

        func contains(_ address: UInt) -> Bool {
            let start = UInt(bitPattern: base)
            return address >= start && address < start + UInt(size)
        }

        func release() {
            explicit_bzero(base, size)
            munmap(base, size)
        }
    }

    /// Scans every writable mapping but the scan area; returns the number of hits (their addresses and kinds are
    /// in `area.hits`, at most `maximumHits`) and the bytes read.
    func scanWritableMemory(_ area: ScanArea) -> (hits: Int, scanned: Int) {
        let mapsFile = open("/proc/self/maps", O_RDONLY)
        var mapsLength = 0
        if mapsFile >= 0 {
            while mapsLength < ScanArea.mapsSize {
                let count = read(mapsFile, area.maps + mapsLength, ScanArea.mapsSize - mapsLength)
                guard count > 0 else { break }
                mapsLength += count
            }
            close(mapsFile)
        }
        let memory = open("/proc/self/mem", O_RDONLY)
        guard memory >= 0 else { return (0, 0) }
        defer { close(memory) }
        let text = UnsafeRawBufferPointer(start: area.maps, count: mapsLength)
        var hits = 0
        var scanned = 0
        var lineStart = 0
        while lineStart < mapsLength {
            var lineEnd = lineStart
            while lineEnd < mapsLength && text[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
            defer { lineStart = lineEnd + 1 }
            // "start-end perms ...": two hex numbers, then the permissions.
            var index = lineStart
            func hexNumber() -> UInt {
                var value: UInt = 0
                while index < lineEnd {
                    let byte = text[index]
                    let digit: UInt
                    switch byte {
                    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt(byte - UInt8(ascii: "0"))
                    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt(byte - UInt8(ascii: "a") + 10)
                    default: return value
                    }
                    value = value << 4 | digit
                    index += 1
                }
                return value
            }
            let low = hexNumber()
            index += 1
            let high = hexNumber()
            index += 1
            guard index + 1 < lineEnd, text[index] == UInt8(ascii: "r"), text[index + 1] == UInt8(ascii: "w"),
                low < high
            else { continue }
            var address = low
            while address < high {
                let length = Int(min(UInt(ScanArea.chunkSize), high - address))
                // Chunks overlap by one pattern less a byte, so a pattern across a chunk edge is found too.
                let isLast = address + UInt(length) >= high
                defer { address += UInt(isLast ? length : length - (ScanArea.patternSize - 1)) }
                if area.contains(address) { continue }
                let count = pread(memory, area.chunk, length, off_t(truncatingIfNeeded: address))
                guard count > 0 else { continue }
                scanned += count
                let chunk = UnsafeRawBufferPointer(start: area.chunk, count: count)
                for kind in 0..<2 {
                    forEachOccurrence(of: kind == 0 ? area.raw : area.hex, in: chunk) { offset in
                        if hits < ScanArea.maximumHits {
                            area.hits[2 * hits] = address + UInt(offset)
                            area.hits[2 * hits + 1] = UInt(kind)
                        }
                        hits += 1
                    }
                }
            }
        }
        return (hits, scanned)
    }

    /// The name of the mapping holding `address`, from the maps text the last scan read.
    func mappingName(of address: UInt, in area: ScanArea) -> String {
        let maps = String(cString: area.maps.assumingMemoryBound(to: CChar.self))
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            let bounds = fields.first?.split(separator: "-").compactMap { UInt($0, radix: 16) } ?? []
            if bounds.count == 2, address >= bounds[0], address < bounds[1] {
                return fields.count >= 6 ? String(fields[5]) : "anonymous memory"
            }
        }
        return "unknown memory"
    }
#endif

/// Calls `body` with the offset of each occurrence of `pattern` in `bytes`: memchr finds each candidate first
/// byte, memcmp checks the rest.
func forEachOccurrence(
    of pattern: UnsafeRawBufferPointer, in bytes: UnsafeRawBufferPointer, _ body: (Int) -> Void
) {
    guard let needle = pattern.baseAddress, let base = bytes.baseAddress, pattern.count > 0 else { return }
    var offset = 0
    while bytes.count - offset >= pattern.count {
        guard let candidate = memchr(base + offset, Int32(pattern[0]), bytes.count - offset - pattern.count + 1)
        else { return }
        let position = base.distance(to: UnsafeRawPointer(candidate))
        if memcmp(base + position, needle, pattern.count) == 0 { body(position) }
        offset = position + 1
    }
}

/// `key-residue PATH (raw|passphrase)`: makes a random 32-byte key (a raw key, or a passphrase of those bytes),
/// creates an encrypted database with it, reopens it with a second key object holding the same bytes, then
/// releases every key and scans. `unzeroed-copy` is the raw case plus an array copy of the key released without
/// zeroing: the control that shows the scan finds freed memory that still holds a key. Prints `before N` (hits while the key is
/// alive: the scan's control, at least 1), then `after N` and one line per hit. Exits 0.
func keyResidue(_ arguments: [String]) throws {
    guard arguments.count == 2, ["raw", "passphrase", "unzeroed-copy"].contains(arguments[1]) else {
        throw UsageError(description: "key-residue PATH (raw|passphrase|unzeroed-copy)")
    }
    let isRaw = arguments[1] != "passphrase"
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
            configuration.key = isRaw ? .raw(area.raw) : .passphrase(bytes: area.raw)
            let before = scanWritableMemory(area)
            print("before \(before.hits)")
            let db = try Database(path: arguments[0], configuration: configuration)
            try db.execute("CREATE TABLE t (x)")
            try db.execute("INSERT INTO t VALUES ('row')")
            db.close()
            configuration.key = isRaw ? .raw(area.raw) : .passphrase(bytes: area.raw)
            let again = try Database(path: arguments[0], configuration: configuration)
            _ = try again.queryValue("SELECT count(*) FROM t", as: Int.self)
            again.close()
            if arguments[1] == "unzeroed-copy" {
                let copy = Array(area.raw)
                if copy.isEmpty { print("empty") }  // keeps the copy from being optimized away
            }
        }
        let after = scanWritableMemory(area)
        print("after \(after.hits) scanned \(after.scanned)")
        for index in 0..<min(after.hits, ScanArea.maximumHits) {
            let address = area.hits[2 * index]
            let kind = area.hits[2 * index + 1] == 0 ? "raw key bytes" : "hex key text"
            print("\(kind) in \(mappingName(of: address, in: area)) at 0x\(String(address, radix: 16))")
        }
    #else
        print("unsupported")
    #endif
}
