import Foundation
import SQLiteToolkit
import Testing

@Suite("Defensive mode, turned off for one piece of work")
struct DefensiveModeTests {
    static let insertSchemaRow =
        "INSERT INTO sqlite_schema (type, name, tbl_name, rootpage, sql) "
        + "VALUES ('table', 'ft', 'ft', 0, 'CREATE VIRTUAL TABLE ft USING fts5(body)')"

    @Test("a defensive connection refuses to write the schema table even with writable_schema on")
    func defensiveRefuses() throws {
        let db = try Database()
        #expect(try db.isDefensive)
        try db.execute("PRAGMA writable_schema = ON")  // ignored in defensive mode
        #expect(throws: DatabaseError.self) { try db.execute(Self.insertSchemaRow) }
    }

    @Test("withDefensiveModeDisabled lets the body write the schema table, then turns defensive mode back on")
    func bodyWritesSchema() throws {
        let db = try Database()
        let wasDefensive = try db.withDefensiveModeDisabled { db in
            let inside = try db.isDefensive
            try db.execute("PRAGMA writable_schema = ON")
            try db.execute(Self.insertSchemaRow)
            try db.execute("PRAGMA writable_schema = OFF")
            return inside
        }
        #expect(!wasDefensive)
        #expect(try db.isDefensive)
        #expect(try db.queryValue("SELECT count(*) FROM sqlite_schema WHERE name = 'ft'", as: Int.self) == 1)
        // The same write after the body is refused again.
        try db.execute("PRAGMA writable_schema = ON")
        #expect(throws: DatabaseError.self) {
            try db.execute(Self.insertSchemaRow.replacingOccurrences(of: "'ft'", with: "'ft2'"))
        }
    }

    @Test("defensive mode is back on after the body throws")
    func restoredAfterThrow() throws {
        struct Stop: Error {}
        let db = try Database()
        #expect(throws: Stop.self) {
            try db.withDefensiveModeDisabled { _ in throw Stop() }
        }
        #expect(try db.isDefensive)
    }

    @Test("a connection opened without defensive mode stays without it")
    func staysOff() throws {
        var configuration = Database.Configuration()
        configuration.isDefensive = false
        let db = try Database(path: ":memory:", configuration: configuration)
        try db.withDefensiveModeDisabled { _ in }
        #expect(try !db.isDefensive)
    }

    @Test("a closed connection throws instead of changing the setting")
    func closedConnection() throws {
        let db = try Database()
        db.close()
        #expect(throws: DatabaseError.self) { try db.withDefensiveModeDisabled { _ in } }
        #expect(throws: DatabaseError.self) { try db.isDefensive }
    }
}
