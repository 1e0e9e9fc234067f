import Foundation
import SQLiteToolkit
import Testing

/// The README's custom-function example, line for line, so it stays true. Keep the two in step.
@Suite("README custom function")
struct ReadmeFunctionTests {
    @Test("RemoveDiacritics(first_name) LIKE 'jose' matches both Jose and José")
    func removeDiacritics() throws {
        let db = try Database()
        try db.execute("CREATE TABLE person (first_name TEXT)")
        try db.execute("INSERT INTO person (first_name) VALUES ('Jose'), ('José'), ('Josie')")

        // A custom SQL function written in Swift: typed arguments in, any bindable value (or nil for NULL) out
        try db.createFunction("RemoveDiacritics", options: [.deterministic, .innocuous]) { (text: String?) in
            text?.folding(options: .diacriticInsensitive, locale: nil)
        }
        let rows = try db.query("SELECT first_name FROM person WHERE RemoveDiacritics(first_name) LIKE 'jose'")
        var names: [String] = []
        while let row = try rows.next() {
            names.append(try row.value(at: 0))
        }
        #expect(names == ["Jose", "José"])
    }
}
