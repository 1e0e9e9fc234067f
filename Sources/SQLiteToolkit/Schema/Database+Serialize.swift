import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Database {
    /// The database of the schema `schema` as the bytes of a database file: an in-memory snapshot to keep, or a
    /// database to send over the wire and open elsewhere with ``deserialize(_:schema:readOnly:)``.
    ///
    /// ```swift
    /// let bytes = try db.serialize()
    /// let copy = try Database()
    /// try copy.deserialize(bytes)
    /// ```
    ///
    /// - Throws: ``DatabaseError/Reason/noSuchSchema(_:)``, or `SQLITE_NOMEM`.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/serialize.html>
    public func serialize(schema: String = "main") throws -> Data {
        let connection = try connection()
        try checkSchemaExists(schema)
        let (bytes, size) = connection.serialize(schema, flags: [])
        guard let bytes, size > 0 else {
            SQLiteLibrary.free(bytes)
            // An empty database has no page, and SQLite returns no buffer for it.
            let pages = try queryValue("PRAGMA \(try Database.quoteIdentifier(schema)).page_count", as: Int.self)
            guard pages == 0 else {
                throw DatabaseError(extendedCode: .nomem, message: "out of memory while serializing \(schema)")
            }
            return Data()
        }
        // The copy SQLite made becomes the Data's storage, freed by SQLite's allocator: no second copy.
        return Data(
            bytesNoCopy: bytes, count: Int(size), deallocator: .custom { pointer, _ in SQLiteLibrary.free(pointer) })
    }

    /// Replaces the database of the schema `schema` with the database file image `bytes`, held in memory by the
    /// connection from now on (the bytes are copied; writes change the copy, never a file).
    ///
    /// The image is checked before it replaces anything: bytes that are not a database throw `SQLITE_NOTADB`, a
    /// damaged schema `SQLITE_CORRUPT`, and the connection keeps its previous database. An image written in WAL
    /// mode is opened in rollback mode, as an in-memory database must be.
    ///
    /// - Parameters:
    ///   - bytes: a database file image, as ``serialize(schema:)`` returns.
    ///   - schema: `main` by default, or an attached database's name (not `temp`).
    ///   - readOnly: open the image read-only; otherwise it can grow as it is written.
    /// - Throws: ``DatabaseError``: `SQLITE_NOTADB`, `SQLITE_CORRUPT`, `SQLITE_BUSY` while the schema is in use
    ///   (a transaction or a running statement), ``DatabaseError/Reason/noSuchSchema(_:)``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/deserialize.html>
    public func deserialize(_ bytes: some ContiguousBytes, schema: String = "main", readOnly: Bool = false) throws {
        let connection = try connection()
        try checkSchemaExists(schema)
        let (buffer, size) = try bytes.withUnsafeBytes { source -> (UnsafeMutablePointer<UInt8>, Int) in
            // SQLite's own allocator, so that SQLite can grow and free the buffer.
            guard let raw = SQLiteLibrary.allocate(byteCount: UInt64(max(source.count, 1))) else {
                throw DatabaseError(extendedCode: .nomem, message: "out of memory for a database image")
            }
            if let base = source.baseAddress, source.count > 0 { raw.copyMemory(from: base, byteCount: source.count) }
            return (raw.assumingMemoryBound(to: UInt8.self), source.count)
        }
        // The file format's read and write versions (bytes 18 and 19) are 2 in WAL mode; memory databases cannot
        // use WAL, so the image is marked as a rollback-journal database, as SQLite's own shell does.
        if size >= 20, buffer[18] == 2, buffer[19] == 2 {
            buffer[18] = 1
            buffer[19] = 1
        }
        do {
            try Database.checkImage(buffer, size: size)
        } catch {
            SQLiteLibrary.free(buffer)
            throw error
        }
        var flags: DeserializeFlags = [.freeonclose]
        if readOnly { flags.insert(.readonly) } else { flags.insert(.resizeable) }
        // From here SQLite owns the buffer, even when the call fails.
        let code = connection.deserialize(
            schema, data: buffer, size: Int64(size), bufferSize: Int64(max(size, 1)), flags: flags)
        if code != .ok { throw error(code, sql: nil) }
        clearStatementCache()
    }

    /// Opens `buffer` read-only on a private connection and reads its schema: bytes that are not a database, or
    /// whose schema is damaged, fail here instead of in the connection they would replace.
    private static func checkImage(_ buffer: UnsafeMutablePointer<UInt8>, size: Int) throws {
        let scratch = try Database()
        defer { scratch.close() }
        let connection = try scratch.connection()
        let code = connection.deserialize(
            "main", data: buffer, size: Int64(size), bufferSize: Int64(max(size, 1)), flags: [.readonly])
        if code != .ok { throw scratch.error(code, sql: nil) }
        _ = try scratch.queryValue("SELECT count(*) FROM sqlite_schema", as: Int.self)
    }
}
