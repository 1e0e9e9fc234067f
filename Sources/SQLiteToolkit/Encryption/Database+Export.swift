import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Database {
    // MARK: - Export

    /// Writes a copy of the main database to a new file at `path`: encrypted with `key` and `cipher`, or plain
    /// when `key` is `nil`. A plain database exports to an encrypted copy and an encrypted one to a plain copy,
    /// for migrations; the original is unchanged. The copy is compacted, like any `VACUUM INTO`.
    ///
    /// The copy is written by `VACUUM INTO` through the codec of the destination, so no plaintext of an encrypted
    /// copy reaches the disk. The destination file must not exist. The key reaches the codec as a `hexkey` URI
    /// parameter from a buffer the toolkit zeroes; SQLite's own copy of that filename is freed unzeroed.
    ///
    /// Related SQLite documentation: <https://sqlite.org/lang_vacuum.html#vacuuminto>
    public func export(to path: String, key: DatabaseKey?, cipher: Cipher = .default) throws {
        _ = try connection()
        if FileManager.default.fileExists(atPath: path) {
            throw DatabaseError(extendedCode: .cantopen, message: "the export destination already exists: \(path)")
        }
        try writeCopy(to: path, key: key, cipher: cipher)
    }

    /// ``export(to:key:cipher:)`` into a file that does not exist or is empty (`VACUUM INTO` takes both): the
    /// atomic key change creates its copy first, with the original's metadata.
    func writeCopy(to path: String, key: DatabaseKey?, cipher: Cipher) throws {
        let connection = try connection()
        try checkNoTransaction()
        if let key {
            try applyCipher(cipher, to: connection)
            try checkRawKey(key, cipher: cipher)
        }
        defer { try? applyCipher(mainCipher ?? .default, to: connection) }
        // A legacy scheme needs its page size in the copy. `PRAGMA page_size` on the source only asks the next
        // VACUUM for it, which VACUUM INTO honours for a plain source even in WAL mode: the source itself is never
        // rewritten (a failure leaves it as it was), and its requested size is put back after.
        if key != nil, mainCipher == nil, let required = legacyPageSize(of: cipher, on: connection),
            let current = try queryValue("PRAGMA page_size", as: Int.self), current != required
        {
            try execute("PRAGMA page_size = \(required)")
            defer { try? execute("PRAGMA page_size = \(current)") }
            try runVacuumInto(path, key: key, on: connection)
            return
        }
        try runVacuumInto(path, key: key, on: connection)
    }

    /// The page size `cipher` requires (SQLCipher 1 to 3: 1024 bytes), or `nil` when it takes any. `cipher` must
    /// be the connection's current cipher setting.
    private func legacyPageSize(of cipher: Cipher, on connection: ConnectionHandle) -> Int? {
        guard let legacy = cipher.legacy, legacy > 0 else { return nil }
        let required = connection.configureCipher(cipher.name, "legacy_page_size", -1)
        return required > 0 ? Int(required) : nil
    }

    /// `VACUUM INTO` the file `path`, its URI carrying `key` (or no key) for the codec.
    private func runVacuumInto(_ path: String, key: DatabaseKey?, on connection: ConnectionHandle) throws {
        // Without a key parameter the codec would give the copy the main database's key: `key=` asks for none.
        let uriPrefix = "file:" + Database.percentEncodedPath(path) + (key == nil ? "?key=" : "?hexkey=")
        let sql = "VACUUM INTO ?"
        let (prepareCode, prepared) = connection.prepare(sql: sql, flags: [])
        guard prepareCode == .ok, let statement = prepared else { throw error(prepareCode, sql: sql) }
        let runCode = try { () throws -> ResultCode in
            defer { _ = statement.finalize() }
            let write = { (uri: UnsafeRawBufferPointer) -> ResultCode in
                let bound = statement.bindText(
                    1, uri.baseAddress?.assumingMemoryBound(to: CChar.self), byteCount: UInt64(uri.count),
                    destructor: nil)
                return bound == .ok ? statement.step() : bound
            }
            guard let key else { return Array(uriPrefix.utf8).withUnsafeBytes(write) }
            return try key.withCodecBytes { keyBytes in
                let prefix = Array(uriPrefix.utf8)
                let uri = UnsafeMutableRawBufferPointer.allocate(
                    byteCount: prefix.count + 2 * keyBytes.count, alignment: 1)
                defer {
                    zeroBytes(uri)
                    uri.deallocate()
                }
                let hexDigits = Array("0123456789abcdef".utf8)
                for (index, byte) in prefix.enumerated() { uri[index] = byte }
                for (index, byte) in keyBytes.enumerated() {
                    uri[prefix.count + 2 * index] = hexDigits[Int(byte >> 4)]
                    uri[prefix.count + 2 * index + 1] = hexDigits[Int(byte & 0x0F)]
                }
                return write(UnsafeRawBufferPointer(uri))
            }
        }()
        guard runCode == .done else {
            // SQLite's message may quote the copy's URI, key and all ("unable to open database: file:…?hexkey=…"):
            // the message names the file without it.
            var failure = error(runCode, sql: sql)
            failure.message = Self.hidingURIKeys(in: failure.message)
            throw failure
        }
    }

    /// `text` without the `hexkey=` parameter of any URI in it (the parameter and its value are left out).
    static func hidingURIKeys(in text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let range = rest.range(of: "hexkey=") {
            var kept = rest[..<range.lowerBound]
            // The `?` or `&` that starts the parameter goes with it.
            if let last = kept.last, last == "?" || last == "&" { kept = kept.dropLast() }
            result += kept
            rest = rest[range.upperBound...].drop { $0.isHexDigit }
        }
        return result + rest
    }

    /// `path` with every byte a URI path cannot hold as is written `%XX`.
    static func percentEncodedPath(_ path: String) -> String {
        var encoded = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "_"),
                UInt8(ascii: "."), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                encoded += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return encoded
    }
}
