import CSQLiteToolkit
import SQLiteToolkit
import Testing

/// The samples of the Generated bindings article (Sources/SQLiteBindings/SQLiteBindings.docc/GeneratedBindings.md),
/// line for line: `DocsSampleTests` checks that every line of the article's samples appears here.
@Suite("Docs: The generated bindings")
struct DocsGeneratedBindingsTests {
    @Test("a wrapper from a Database's handle; a statement driven by hand")
    func wrappers() throws {
        let db = try Database()
        #expect(db.handle != nil)
        guard let connection = db.handle else { return }  // nil once the database is closed
        let (code, current, _) = connection.status(.cacheUsed, reset: false)  // sqlite3_db_status64
        #expect(code == .ok)
        #expect(current > 0)

        let (prepared, statement) = connection.prepare(sql: "SELECT ?1 * 2", flags: [])
        guard prepared == .ok, let statement else { throw prepared }  // a ResultCode is an Error
        defer { _ = statement.finalize() }
        _ = statement.bindInt64(1, 21)
        if statement.step() == .row {
            let answer = statement.columnInt64(0)  // 42
            #expect(answer == 42)
        }
        #expect(SQLiteLibrary.versionNumber() >= 3_054_000)
    }

    @Test("a C function the bindings do not wrap, called with the raw pointer")
    func rawC() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (x)")
        let connection = try #require(db.handle)
        // import CSQLiteToolkit: every C name carries the prefix sqltk_
        let autocommit = sqltk_sqlite3_get_autocommit(connection.rawValue)  // 1: no transaction open
        #expect(autocommit == 1)
        let code = sqltk_sqlite3_table_column_metadata(connection.rawValue, "main", "t", "x", nil, nil, nil, nil, nil)
        #expect(code == SQLITE_OK)  // main.t has a column x
    }
}
