import Foundation
import SQLiteToolkit
import Testing

/// Wrong results (not crashes) that the randomized model test found in the connection layer: each test states the
/// behaviour the fix gives.
@Suite("Regression tests: wrong results found by the randomized model test")
struct WrongResultRegressionTests {
    @Test("reading a column as String does not change the storage class a later read of the same column sees")
    func secondReadSeesConversion() throws {
        let db = try Database()
        let blob = Data([0x45, 0xC3, 0x89, 0x21])  // valid UTF-8: invalid bytes throw when read as String
        let rows = try db.query("SELECT ?, ?", blob, 7)
        let row = try #require(try rows.next())
        // The text is what SQLite's own conversion of the blob gives.
        let asText = try db.queryValue("SELECT CAST(? AS TEXT)", blob, as: String.self)
        #expect(try row.value(at: 0, as: String.self) == asText)
        _ = try row.value(at: 1, as: String.self)
        #expect(row[0] == .blob(blob))
        #expect(try row.value(at: 0, as: DatabaseValue.self) == .blob(blob))
        #expect(row[1] == .integer(7))
    }
}
