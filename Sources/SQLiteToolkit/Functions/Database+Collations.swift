import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Database {
    /// Defines or replaces the collation `name`, which compares text with `compare`.
    ///
    /// ```swift
    /// try db.createCollation("length") { left, right in
    ///     left.count == right.count ? .orderedSame : (left.count < right.count ? .orderedAscending : .orderedDescending)
    /// }
    /// let rows = try db.query("SELECT name FROM person ORDER BY name COLLATE length")
    /// ```
    ///
    /// SQLite passes the text as UTF-8; bytes that are not valid UTF-8 become U+FFFD before `compare` sees them.
    /// The comparison must be a total order (consistent, antisymmetric, transitive), or indexes that use the
    /// collation break. It runs on the thread that runs the statement; a collation cannot fail, so closing the
    /// connection from inside it is ignored.
    ///
    /// - Throws: ``DatabaseError`` when the connection is closed, the name is invalid
    ///   (``DatabaseError/Reason/invalidCollationName(_:)``), or SQLite refuses (`SQLITE_BUSY` while a statement
    ///   using the collation runs). The closure is released then, when the collation is replaced or removed, and
    ///   when the connection closes.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/create_collation.html>
    public func createCollation(_ name: String, _ compare: @escaping (String, String) -> ComparisonResult) throws {
        let connection = try connection()
        try Database.checkName(name, reason: .invalidCollationName(name))
        let scope = runningCallbacks
        let code = connection.createCollation(name: name) { left, right in
            let order = scope.run {
                compare(String(decoding: left, as: UTF8.self), String(decoding: right, as: UTF8.self))
            }
            return Int32(order.rawValue)
        }
        guard code == .ok else { throw error(code, sql: nil) }
    }

    /// Defines or replaces a ready-made collation, such as ``DatabaseCollation/caseInsensitive``, under its name.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/create_collation.html>
    public func createCollation(_ collation: DatabaseCollation) throws {
        try createCollation(collation.name, collation.compare)
    }

    /// Removes the collation `name`, releasing its closure. Statements prepared later that use it fail with
    /// "no such collation sequence"; removing a collation that does not exist does nothing.
    ///
    /// - Throws: ``DatabaseError`` when the connection is closed, the name is invalid, or SQLite refuses
    ///   (`SQLITE_BUSY` while a statement using the collation runs).
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/create_collation.html>
    public func removeCollation(_ name: String) throws {
        let connection = try connection()
        try Database.checkName(name, reason: .invalidCollationName(name))
        let code = connection.createCollation(name: name, context: nil, compare: nil, destroy: nil)
        guard code == .ok else { throw error(code, sql: nil) }
    }
}
