/// The key of an encrypted database: a passphrase the codec derives a key from, or a raw 256-bit key used as is.
///
/// ```swift
/// configuration.key = .passphrase("correct horse battery staple")  // its UTF-8 bytes
/// configuration.key = .raw(keyBytes)                                // 32 bytes: no key derivation at open
/// ```
///
/// A passphrase is always taken as its UTF-8 bytes, never its count of characters, so `"pässword"` and
/// `"pässworX"` are different keys. A raw key is handed to the codec in SQLite's `x'…'` form, which skips the
/// key derivation: opening costs microseconds instead of the derivation's tens or hundreds of milliseconds.
///
/// The key's bytes live in one buffer that is overwritten with zeros when the last copy of the key is released,
/// and the toolkit zeroes every temporary copy it makes for the codec. That narrows the time a key stays in
/// memory; it does not protect against a debugger, a core dump or swapped-out pages while the key is alive, nor
/// reach the `String` or array you built the key from. See <doc:Encryption>.
///
/// A key's `description` never shows its bytes.
///
/// Related SQLite documentation: <https://utelle.github.io/SQLite3MultipleCiphers/docs/configuration/config_sql_pragmas/#pragma-key>
public struct DatabaseKey: Sendable, Hashable, CustomStringConvertible {
    /// What kind of key it is.
    public enum Kind: Sendable, Hashable {
        /// A passphrase: the codec derives the key from it (PBKDF2 or Argon2id, per cipher).
        case passphrase
        /// A raw 256-bit key: no derivation.
        case raw
    }

    /// Whether the key is a passphrase or a raw key.
    public let kind: Kind
    /// The bytes, zeroed on release.
    let storage: KeyStorage

    private init(kind: Kind, bytes: some Collection<UInt8>) {
        self.kind = kind
        self.storage = KeyStorage(bytes)
    }

    /// A passphrase, as its UTF-8 bytes. An empty passphrase is refused at use: the codec takes it as "no key".
    public static func passphrase(_ passphrase: String) -> DatabaseKey {
        DatabaseKey(kind: .passphrase, bytes: passphrase.utf8)
    }

    /// A passphrase given as bytes (for example one that is not valid UTF-8, or SQLCipher's `sqlite3_key` bytes).
    public static func passphrase(bytes: some Collection<UInt8>) -> DatabaseKey {
        DatabaseKey(kind: .passphrase, bytes: bytes)
    }

    /// A raw 256-bit key: exactly 32 bytes (another length is refused at use with
    /// ``DatabaseError/Reason/invalidRawKey``). SQLCipher's `PRAGMA key = "x'…'"` with the same 64 hex digits
    /// opens the same file.
    ///
    /// AES-128-CBC, AES-256-CBC and the 128-bit AEGIS variants take no 32-byte raw key: using one with them throws.
    public static func raw(_ bytes: some Collection<UInt8>) -> DatabaseKey {
        DatabaseKey(kind: .raw, bytes: bytes)
    }

    /// A raw 256-bit key written as 64 hexadecimal digits (SQLCipher's `x'…'` form without the `x'` and `'`).
    /// Text that is not 64 hex digits gives a key refused at use with ``DatabaseError/Reason/invalidRawKey``.
    public static func raw(hex: String) -> DatabaseKey {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        var high: UInt8?
        var isValid = true
        for character in hex.utf8 {
            guard let nibble = Self.nibble(character) else {
                isValid = false
                break
            }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        if high != nil { isValid = false }
        let key = DatabaseKey(kind: .raw, bytes: isValid ? bytes : [])
        bytes.withUnsafeMutableBytes { zeroBytes($0) }
        return key
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The number of bytes of the passphrase or raw key.
    public var byteCount: Int { storage.count }

    /// The kind of key, never its bytes.
    public var description: String {
        kind == .raw ? "DatabaseKey(raw, \(byteCount) bytes)" : "DatabaseKey(passphrase, \(byteCount) bytes)"
    }

    /// Two keys are equal when their kind and bytes are.
    public static func == (lhs: DatabaseKey, rhs: DatabaseKey) -> Bool {
        lhs.kind == rhs.kind
            && lhs.storage.withBytes { left in rhs.storage.withBytes { right in left.elementsEqual(right) } }
    }

    /// Hashes the kind and the length only, so a hash never depends on the key's bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(byteCount)
    }

    /// Checks the key, then calls `body` with the bytes the codec takes: the passphrase, or `x'` + 64 hex digits
    /// + `'` for a raw key, in a temporary buffer zeroed afterwards.
    func withCodecBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) throws -> Result {
        switch kind {
        case .passphrase:
            guard byteCount > 0 else {
                throw DatabaseError.misuse(
                    "an empty passphrase is no key; use a non-empty passphrase or a raw key", reason: .invalidKey)
            }
            return try storage.withBytes(body)
        case .raw:
            guard byteCount == 32 else {
                throw DatabaseError.misuse(
                    "a raw key must be 32 bytes (64 hex digits); this one has \(byteCount)", reason: .invalidRawKey)
            }
            let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 3 + 64, alignment: 1)
            defer {
                zeroBytes(buffer)
                buffer.deallocate()
            }
            buffer[0] = UInt8(ascii: "x")
            buffer[1] = UInt8(ascii: "'")
            storage.withBytes { bytes in
                for (index, byte) in bytes.enumerated() {
                    buffer[2 + 2 * index] = hexDigits[Int(byte >> 4)]
                    buffer[3 + 2 * index] = hexDigits[Int(byte & 0x0F)]
                }
            }
            buffer[66] = UInt8(ascii: "'")
            return try body(UnsafeRawBufferPointer(buffer))
        }
    }
}

/// The bytes of a key in a buffer of their own, zeroed when the last ``DatabaseKey`` holding them is released.
///
/// `@unchecked Sendable` without a lock: the buffer is written only in `init`, before the instance is shared,
/// only read afterwards, and zeroed in `deinit`, when no other reference to it exists.
final class KeyStorage: @unchecked Sendable {
    private let buffer: UnsafeMutableRawBufferPointer

    init(_ bytes: some Collection<UInt8>) {
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        _ = buffer.initializeMemory(as: UInt8.self, from: bytes)
    }

    deinit {
        zeroBytes(buffer)
        buffer.deallocate()
    }

    var count: Int { buffer.count }

    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(buffer))
    }
}
