import SQLiteBindings

extension Database {
    /// The `user_version` of the schema `schema`: a number the database keeps for the application, often the
    /// version of its schema (0 in a new database).
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_user_version>
    public func userVersion(schema: String = "main") throws -> Int32 {
        try headerValue("user_version", schema: schema)
    }

    /// Sets the `user_version` of the schema `schema`. Inside a transaction, it rolls back with it.
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_user_version>
    public func setUserVersion(_ version: Int32, schema: String = "main") throws {
        try execute("PRAGMA \(try Database.quoteIdentifier(schema)).user_version = \(version)")
    }

    /// The `application_id` of the schema `schema`, which tells which application a database file belongs to
    /// (0 when unset).
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_application_id>
    public func applicationID(schema: String = "main") throws -> Int32 {
        try headerValue("application_id", schema: schema)
    }

    /// Sets the `application_id` of the schema `schema`.
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_application_id>
    public func setApplicationID(_ id: Int32, schema: String = "main") throws {
        try execute("PRAGMA \(try Database.quoteIdentifier(schema)).application_id = \(id)")
    }

    /// Sets the `application_id` from a four-character code, big-endian as `file(1)` shows it: `"SQTK"` is
    /// `0x5351_544B`.
    ///
    /// ```swift
    /// try db.setApplicationID(fourCharacterCode: "SQTK")
    /// try db.applicationIDFourCharacterCode()  // "SQTK"
    /// ```
    ///
    /// - Throws: ``DatabaseError/Reason/invalidApplicationID`` unless `code` is four ASCII characters.
    public func setApplicationID(fourCharacterCode code: String, schema: String = "main") throws {
        let bytes = Array(code.utf8)
        guard bytes.count == 4, bytes.allSatisfy({ $0 < 0x80 }) else {
            throw DatabaseError.misuse(
                "an application ID code is four ASCII characters", reason: .invalidApplicationID)
        }
        let value = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        try setApplicationID(Int32(bitPattern: value), schema: schema)
    }

    /// The `application_id` as a four-character code, or `nil` when its bytes are not all printable ASCII
    /// (0, an unset ID, gives `nil`).
    public func applicationIDFourCharacterCode(schema: String = "main") throws -> String? {
        let value = UInt32(bitPattern: try applicationID(schema: schema))
        let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
        guard bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func headerValue(_ pragma: String, schema: String) throws -> Int32 {
        try queryValue("PRAGMA \(try Database.quoteIdentifier(schema)).\(pragma)", as: Int32.self) ?? 0
    }
}
