import SQLiteToolkit
import Testing

/// A value computed once from a constant argument, kept as auxiliary data.
final class Prepared {
    let text: String
    init(_ text: String) { self.text = text }
}

@Suite("Auxiliary data and REGEXP")
struct RegexpTests {
    func database() throws -> Database {
        let db = try Database()
        try db.execute("CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT)")
        for name in ["Jose", "José", "Josie", "Maria", "joseph"] {
            try db.execute("INSERT INTO person (name) VALUES (?)", name)
        }
        try db.execute("INSERT INTO person (name) VALUES (NULL)")
        return db
    }

    @Test("auxiliary data computed from a constant argument is kept for the whole statement, then released")
    func auxiliaryData() throws {
        let db = try database()
        let counter = ReleaseCounter()
        var computed = 0
        try db.createFunction("tagged", argumentCount: 2) { context, arguments in
            let prepared: Prepared
            if let cached = context.auxiliaryObject(forArgument: 0, as: Prepared.self) {
                prepared = cached
            } else {
                computed += 1
                prepared = Prepared("<\(arguments[0].valueString() ?? "")>")
                context.setAuxiliaryObject(prepared, forArgument: 0)
                context.setAuxiliaryObject(counter.token(), forArgument: 1)
            }
            context.resultString(prepared.text + (arguments[1].valueString() ?? ""))
        }
        let values = try allValues(db, "SELECT tagged('p', name) FROM person WHERE name IS NOT NULL ORDER BY id")
        #expect(values.first == ["<p>Jose"])
        #expect(values.count == 5)
        #expect(computed == 1)
        // Everything attached was released by the end of the statement (the token on the non-constant argument
        // is dropped after each call).
        #expect(counter.released == counter.created)
        // A bound pattern is constant too; a new statement computes again.
        _ = try db.query("SELECT tagged(?, name) FROM person", "q").map(\.values)
        #expect(computed == 2)
    }

    @Test("without the opt-in, REGEXP does not exist")
    func regexpIsOptIn() throws {
        let db = try database()
        let error = try #require(throws: DatabaseError.self) {
            try db.execute("SELECT name FROM person WHERE name REGEXP 'J'")
        }
        #expect(error.message.contains("no such function: REGEXP"))
    }

    @Test("x REGEXP pattern matches anywhere with Swift's Regex, NULL stays NULL")
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, visionOS 1, *)
    func regexp() throws {
        let db = try database()
        try db.createRegexpFunction()
        let names = try allValues(db, "SELECT name FROM person WHERE name REGEXP '^Jos[eé]$' ORDER BY id")
        #expect(names == [["Jose"], ["José"]])
        #expect(try allValues(db, "SELECT name FROM person WHERE name REGEXP 'ph' ORDER BY id") == [["joseph"]])
        #expect(
            try allValues(db, "SELECT 'abc' REGEXP NULL, NULL REGEXP 'a', 'abc' REGEXP 'B', 'abc' REGEXP '(?i)B'") == [
                [.null, .null, 0, 1]
            ])
        // A pattern from a column changes per row: still right.
        try db.execute("CREATE TABLE rule (pattern TEXT)")
        try db.execute("INSERT INTO rule VALUES ('^M'), ('ie$')")
        let matched = try allValues(
            db, "SELECT name FROM person JOIN rule ON name REGEXP pattern ORDER BY person.id")
        #expect(matched == [["Josie"], ["Maria"]])
    }

    @Test("an invalid pattern fails the statement without quoting it")
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, visionOS 1, *)
    func invalidPattern() throws {
        let db = try database()
        try db.createRegexpFunction()
        let error = try #require(throws: DatabaseError.self) {
            try db.execute("SELECT name FROM person WHERE name REGEXP ?", "secret[")
        }
        #expect(error.message == "invalid regular expression pattern for REGEXP")
        #expect(!error.description.contains("secret["))
    }
}
