import SQLiteBindings

extension Database {
    // MARK: - Cipher configuration

    /// Refuses a raw key for a scheme whose key is not 256 bits: the codec would take its `x'…'` text as a
    /// passphrase, or split it into a shorter key and a salt.
    func checkRawKey(_ key: DatabaseKey, cipher: Cipher) throws {
        guard key.kind == .raw else { return }
        let aegisAlgorithm = cipher.parameters.last { $0.name == "algorithm" }?.value
        let takesRawKey: Bool
        switch cipher.name {
        case "chacha20", "sqlcipher", "ascon128": takesRawKey = true
        case "aegis": takesRawKey = aegisAlgorithm.map { $0 >= Cipher.AEGISAlgorithm.aegis256.rawValue } ?? true
        default: takesRawKey = false
        }
        guard takesRawKey else {
            throw DatabaseError.misuse(
                "cipher \(cipher.name) takes no 256-bit raw key; use a passphrase or another cipher",
                reason: .invalidRawKey)
        }
    }

    /// Applies `cipher` to the connection's codec settings, which the next key, rekey or `ATTACH … KEY` uses: the
    /// scheme, then every parameter back to its default, then the legacy level, then the parameters asked for,
    /// checking the value each call returns (the codec ignores a value it refuses without an error).
    func applyCipher(_ cipher: Cipher, to connection: ConnectionHandle) throws {
        func rejected(_ parameter: String) -> DatabaseError {
            DatabaseError.misuse(
                "the codec refused \(parameter) of cipher \(cipher.name)",
                reason: .cipherParameterRejected(cipher: cipher.name, parameter: parameter))
        }
        let index = SQLiteLibrary.cipherIndex(cipher.name)
        guard index >= 1, cipher.name != "rc4" else { throw rejected("cipher") }
        guard connection.configureCipher("cipher", index) == index else { throw rejected("cipher") }
        for parameter in Cipher.resettableParameters[cipher.name] ?? [] {
            let defaultValue = connection.configureCipher(cipher.name, "default:" + parameter, -1)
            guard defaultValue >= 0, connection.configureCipher(cipher.name, parameter, defaultValue) == defaultValue
            else { throw rejected(parameter) }
        }
        if let legacy = cipher.legacy {
            // The codec takes 0 as "not SQLCipher-compatible", a layout SQLCipher cannot read.
            let lowest: Int32 = cipher.name == "sqlcipher" ? 1 : 0
            guard let value = Int32(exactly: legacy), value >= lowest,
                connection.configureCipher(cipher.name, "legacy", value) == value
            else { throw rejected("legacy") }
        }
        for parameter in cipher.parameters {
            guard let value = Int32(exactly: parameter.value), value >= 0,
                connection.configureCipher(cipher.name, parameter.name, value) == value
            else { throw rejected(parameter.name) }
        }
    }
}

extension Cipher {
    /// The parameters of each scheme that a connection keeps between keys, reset to their defaults before a
    /// cipher is applied so a setting of an earlier key never leaks into the next one.
    static let resettableParameters: [String: [String]] = [
        "chacha20": ["legacy", "legacy_page_size", "kdf_iter", "plaintext_header_size"],
        "aes128cbc": ["legacy", "legacy_page_size"],
        "aes256cbc": ["legacy", "legacy_page_size", "kdf_iter"],
        "sqlcipher": [
            "legacy", "legacy_page_size", "kdf_iter", "fast_kdf_iter", "hmac_use", "hmac_pgno", "hmac_salt_mask",
            "kdf_algorithm", "hmac_algorithm", "plaintext_header_size",
        ],
        "ascon128": ["kdf_iter", "plaintext_header_size"],
        "aegis": ["tcost", "mcost", "pcost", "algorithm", "plaintext_header_size"],
    ]
}
