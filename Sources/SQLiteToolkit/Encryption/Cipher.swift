/// An encryption scheme of the codec built into this SQLite (SQLite3 Multiple Ciphers), with its parameters.
///
/// Choose one with a static function; every parameter left `nil` keeps the scheme's default:
///
/// ```swift
/// var configuration = Database.Configuration()
/// configuration.key = .passphrase("correct horse battery staple")
/// configuration.cipher = .sqlcipher(version: 4)  // files SQLCipher 4 opens
/// let db = try Database(path: path, configuration: configuration)
/// ```
///
/// The toolkit applies a cipher in the one order the codec honours — the scheme, then its legacy level, then its
/// other parameters, then the key — and checks the value every step returns: a parameter the codec refuses (out
/// of range, or unknown to the scheme) throws ``DatabaseError/Reason/cipherParameterRejected(cipher:parameter:)``
/// instead of being silently ignored.
///
/// RC4 is not offered: it is broken, and the codec keeps it only to read old files.
///
/// Related SQLite documentation: <https://utelle.github.io/SQLite3MultipleCiphers/docs/ciphers/cipher_chacha20/>
public struct Cipher: Sendable, Hashable, CustomStringConvertible {
    /// The codec's name for the scheme (`"chacha20"`, `"sqlcipher"`, ...).
    public let name: String
    /// The legacy level, applied right after the scheme and before every other parameter; `nil` keeps the default.
    public let legacy: Int?
    /// The other parameters in the order they are applied, by the codec's names (`"kdf_iter"`, ...).
    public let parameters: [Parameter]

    /// One codec parameter and its value.
    public struct Parameter: Sendable, Hashable {
        /// The codec's name of the parameter (`"kdf_iter"`).
        public let name: String
        /// Its value.
        public let value: Int

        /// Creates a parameter.
        public init(_ name: String, _ value: Int) {
            self.name = name
            self.value = value
        }
    }

    /// The hash function of a PBKDF2 key derivation or an HMAC, for SQLCipher-compatible files.
    public enum HashAlgorithm: Int, Sendable, Hashable {
        /// SHA-1: SQLCipher 1 to 3.
        case sha1 = 0
        /// SHA-256.
        case sha256 = 1
        /// SHA-512: SQLCipher 4.
        case sha512 = 2
    }

    /// The variant of AEGIS (a fast authenticated cipher built on the AES round function).
    public enum AEGISAlgorithm: Int, Sendable, Hashable {
        /// AEGIS-128L (128-bit key: a raw key must be 16 bytes, which ``DatabaseKey/raw(_:)`` does not accept).
        case aegis128L = 1
        /// AEGIS-128X2 (128-bit key).
        case aegis128X2 = 2
        /// AEGIS-128X4 (128-bit key).
        case aegis128X4 = 3
        /// AEGIS-256, the default (256-bit key).
        case aegis256 = 4
        /// AEGIS-256X2 (256-bit key).
        case aegis256X2 = 5
        /// AEGIS-256X4 (256-bit key).
        case aegis256X4 = 6
    }

    /// Creates a cipher from the codec's names, for a parameter this type has no function for. Prefer the static
    /// functions: a name the codec does not know throws at use, not here.
    public init(name: String, legacy: Int? = nil, parameters: [Parameter] = []) {
        self.name = name
        self.legacy = legacy
        self.parameters = parameters
    }

    /// ChaCha20-Poly1305 with a PBKDF2-SHA256 key derivation (64,007 iterations by default): the default scheme,
    /// fast on every platform and authenticated (a changed byte is detected).
    ///
    /// - Parameters:
    ///   - kdfIterations: the PBKDF2 iterations for a passphrase; lower them only for test databases.
    ///   - plaintextHeaderSize: bytes of the database header left unencrypted (0 to 100), for platforms that
    ///     read them (iOS shared containers); the rest stays encrypted.
    ///   - sqleetCompatible: the layout of sqleet, the original ChaCha20 codec (legacy 1).
    ///
    /// Related SQLite documentation: <https://utelle.github.io/SQLite3MultipleCiphers/docs/ciphers/cipher_chacha20/>
    public static func chaCha20(
        kdfIterations: Int? = nil,
        plaintextHeaderSize: Int? = nil,
        sqleetCompatible: Bool = false
    ) -> Cipher {
        Cipher(
            name: "chacha20",
            legacy: sqleetCompatible ? 1 : nil,
            parameters: .build(("kdf_iter", kdfIterations), ("plaintext_header_size", plaintextHeaderSize))
        )
    }

    /// The default scheme: ChaCha20-Poly1305 with its default parameters.
    public static let `default` = Cipher.chaCha20()

    /// AES-128 in CBC mode, the wxSQLite3 scheme. It is not authenticated (a changed byte is not detected), its
    /// key derivation is a single hash round, and it takes no raw key; prefer ChaCha20 or AEGIS for new files.
    ///
    /// Related SQLite documentation: <https://utelle.github.io/SQLite3MultipleCiphers/docs/ciphers/cipher_aes128cbc/>
    public static func aes128CBC(legacy: Bool = false) -> Cipher {
        Cipher(name: "aes128cbc", legacy: legacy ? 1 : nil, parameters: [])
    }

    /// AES-256 in CBC mode, the wxSQLite3 scheme, with a SHA-256 key derivation (4,001 iterations by default).
    /// It is not authenticated and takes no raw key; prefer ChaCha20 or AEGIS for new files.
    ///
    /// Related SQLite documentation: <https://utelle.github.io/SQLite3MultipleCiphers/docs/ciphers/cipher_aes256cbc/>
    public static func aes256CBC(kdfIterations: Int? = nil, legacy: Bool = false) -> Cipher {
        Cipher(name: "aes256cbc", legacy: legacy ? 1 : nil, parameters: .build(("kdf_iter", kdfIterations)))
    }

    /// AEGIS, authenticated and the fastest scheme on CPUs with AES instructions, with an Argon2id key
    /// derivation whose costs are set here.
    ///
    /// - Parameters:
    ///   - algorithm: the AEGIS variant (AEGIS-256 by default).
    ///   - timeCost: Argon2id passes (default 2).
    ///   - memoryCost: Argon2id memory in KiB (default 19,456).
    ///   - parallelism: Argon2id lanes (default 1).
    ///   - plaintextHeaderSize: bytes of the database header left unencrypted (0 to 100).
    ///
    /// Related SQLite documentation: <https://utelle.github.io/SQLite3MultipleCiphers/docs/ciphers/cipher_aegis/>
    public static func aegis(
        algorithm: AEGISAlgorithm? = nil,
        timeCost: Int? = nil,
        memoryCost: Int? = nil,
        parallelism: Int? = nil,
        plaintextHeaderSize: Int? = nil
    ) -> Cipher {
        Cipher(
            name: "aegis",
            legacy: nil,
            parameters: .build(
                ("algorithm", algorithm?.rawValue), ("tcost", timeCost), ("mcost", memoryCost),
                ("pcost", parallelism), ("plaintext_header_size", plaintextHeaderSize))
        )
    }

    /// Ascon-128, a lightweight authenticated cipher (the NIST lightweight-cryptography winner), with an
    /// Ascon-based PBKDF2 (64,007 iterations by default).
    ///
    /// Related SQLite documentation: <https://utelle.github.io/SQLite3MultipleCiphers/docs/ciphers/cipher_ascon/>
    public static func ascon128(kdfIterations: Int? = nil, plaintextHeaderSize: Int? = nil) -> Cipher {
        Cipher(
            name: "ascon128",
            legacy: nil,
            parameters: .build(("kdf_iter", kdfIterations), ("plaintext_header_size", plaintextHeaderSize))
        )
    }

    /// The file format of SQLCipher `version` (1 to 4): AES-256-CBC with an HMAC per page, files SQLCipher itself
    /// reads and writes. Each version loads SQLCipher's defaults for it (version 4: 256,000 PBKDF2-HMAC-SHA512
    /// iterations, 4096-byte pages, HMAC-SHA512; version 3: 64,000 iterations of SHA-1, 1024-byte pages); the
    /// other parameters change them, as SQLCipher's `PRAGMA cipher_*` settings do.
    ///
    /// - Parameters:
    ///   - version: the SQLCipher major version whose format to use (`PRAGMA cipher_compatibility`).
    ///   - kdfIterations: `PRAGMA kdf_iter`.
    ///   - pageSize: `PRAGMA cipher_page_size`.
    ///   - usesHMAC: `PRAGMA cipher_use_hmac`.
    ///   - kdfAlgorithm: `PRAGMA cipher_kdf_algorithm`.
    ///   - hmacAlgorithm: `PRAGMA cipher_hmac_algorithm`.
    ///   - plaintextHeaderSize: `PRAGMA cipher_plaintext_header_size` (0 to 100; SQLCipher uses 32 on iOS).
    ///
    /// Related SQLite documentation: <https://utelle.github.io/SQLite3MultipleCiphers/docs/ciphers/cipher_sqlcipher/>
    public static func sqlcipher(
        version: Int = 4,
        kdfIterations: Int? = nil,
        pageSize: Int? = nil,
        usesHMAC: Bool? = nil,
        kdfAlgorithm: HashAlgorithm? = nil,
        hmacAlgorithm: HashAlgorithm? = nil,
        plaintextHeaderSize: Int? = nil
    ) -> Cipher {
        Cipher(
            name: "sqlcipher",
            legacy: version,
            parameters: .build(
                ("kdf_iter", kdfIterations), ("legacy_page_size", pageSize), ("hmac_use", usesHMAC.map { $0 ? 1 : 0 }),
                ("kdf_algorithm", kdfAlgorithm?.rawValue), ("hmac_algorithm", hmacAlgorithm?.rawValue),
                ("plaintext_header_size", plaintextHeaderSize))
        )
    }

    /// The cipher a command-line option or a setting names, with its default parameters: `chacha20`, `aes128cbc`,
    /// `aes256cbc`, `aegis`, `ascon128`, `sqlcipher` (SQLCipher 4) or `sqlcipher1` to `sqlcipher4`, in any case;
    /// `nil` for any other name (`rc4` included).
    ///
    /// ```swift
    /// configuration.cipher = Cipher(named: "sqlcipher3") ?? .default
    /// ```
    public init?(named name: String) {
        switch name.lowercased() {
        case "chacha20": self = .chaCha20()
        case "aes128cbc": self = .aes128CBC()
        case "aes256cbc": self = .aes256CBC()
        case "aegis": self = .aegis()
        case "ascon128": self = .ascon128()
        case "sqlcipher", "sqlcipher4": self = .sqlcipher(version: 4)
        case "sqlcipher3": self = .sqlcipher(version: 3)
        case "sqlcipher2": self = .sqlcipher(version: 2)
        case "sqlcipher1": self = .sqlcipher(version: 1)
        default: return nil
        }
    }

    /// The scheme and every parameter set, for logs (a cipher holds no secret).
    public var description: String {
        var items: [String] = []
        if let legacy { items.append("legacy: \(legacy)") }
        items += parameters.map { "\($0.name): \($0.value)" }
        return items.isEmpty ? name : "\(name)(\(items.joined(separator: ", ")))"
    }
}

extension [Cipher.Parameter] {
    /// The parameters whose value is set, in order.
    fileprivate static func build(_ items: (String, Int?)...) -> [Cipher.Parameter] {
        items.compactMap { name, value in value.map { Cipher.Parameter(name, $0) } }
    }
}
