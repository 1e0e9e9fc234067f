import Foundation
import SQLiteToolkit
import Testing

/// The README's custom-function example, line for line: `DocsSampleTests` checks that every line of it appears here.
@Suite("README custom function")
struct ReadmeFunctionTests {
    @Test("RemoveDiacritics(first_name) LIKE 'jose' matches both Jose and José")
    func removeDiacritics() throws {
        let db = try Database()
        try db.execute("CREATE TABLE person (first_name TEXT)")
        try db.execute("INSERT INTO person (first_name) VALUES ('Jose'), ('José'), ('Josie')")

        // Typed arguments in (read like Row's columns), any bindable value out (nil is NULL)
        try db.createFunction("RemoveDiacritics", options: [.deterministic, .innocuous]) { (text: String?) in
            text?.folding(options: .diacriticInsensitive, locale: nil)
        }
        // Matches both "Jose" and "José"
        let rows = try db.query("SELECT first_name FROM person WHERE RemoveDiacritics(first_name) LIKE 'jose'")
        var names: [String] = []
        while let row = try rows.next() {
            names.append(try row.value(at: 0))
        }
        #expect(names == ["Jose", "José"])
    }
}
