import Foundation
import SQLiteToolkit
import Testing

/// Wrong results (not crashes) found by the randomized model test in the connection layer as it stands, with the
/// behaviour a fix must give; disabled until then.
@Suite("Known issues found by the randomized model test")
struct KnownIssueTests {
    @Test(
        "reading a column as String does not change the storage class a later read of the same column sees",
        .disabled(
            "fails: sqlite3_column_text converts the value in place, after which sqlite3_column_type reports TEXT"))
    func secondReadSeesConversion() throws {
        let db = try Database()
        let blob = Data([0x45, 0xC5, 0x44, 0x21])
        let rows = try db.query("SELECT ?, ?", blob, 7)
        let row = try #require(try rows.next())
        _ = try row.value(at: 0, as: String.self)
        _ = try row.value(at: 1, as: String.self)
        #expect(row[0] == .blob(blob))
        #expect(try row.value(at: 0, as: DatabaseValue.self) == .blob(blob))
        #expect(row[1] == .integer(7))
    }
}
