import Foundation
import SQLiteToolkit
import Testing

/// The samples of the Custom functions article (Sources/SQLiteToolkit/SQLiteToolkit.docc/CustomFunctions.md), line
/// for line: `DocsSampleTests` checks that every line of the article's samples appears here.
@Suite("Docs: Custom functions")
struct DocsCustomFunctionsTests {
    @Test("scalar functions: typed, any arity, low level")
    func scalarFunctions() throws {
        let db = try Database()
        try db.createFunction("RemoveDiacritics", options: [.deterministic, .innocuous]) { (text: String?) in
            text?.folding(options: .diacriticInsensitive, locale: nil)
        }
        try db.createFunction("joined", argumentCount: nil) { arguments in
            let texts = try (0..<arguments.count).compactMap { try arguments.value(at: $0, as: String?.self) }
            return texts.joined(separator: "-")
        }
        try db.createFunction("double", argumentCount: 1, options: .deterministic) { context, arguments in
            context.resultInt64(arguments[0].valueInt64() * 2)
        }
        #expect(try db.queryValue("SELECT RemoveDiacritics('José')", as: String.self) == "Jose")
        #expect(try db.query("SELECT RemoveDiacritics(NULL)").map { try $0.value(at: 0) as String? } == [nil])
        #expect(try db.queryValue("SELECT joined('a', NULL, 'b', 3)", as: String.self) == "a-b-3")
        #expect(try db.queryValue("SELECT double(21)", as: Int.self) == 42)
    }

    @Test("an aggregate and a window function")
    func aggregates() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, x INT)")
        try db.execute("INSERT INTO t (x) VALUES (1), (2), (3), (4)")

        struct SumOfSquares: DatabaseAggregate {
            var sum = 0
            mutating func step(_ arguments: FunctionValues) throws {
                if let value = try arguments.value(at: 0, as: Int?.self) { sum += value * value }
            }
            func finalize() -> Int { sum }
        }
        try db.createAggregate("sumsq", argumentCount: 1, SumOfSquares.self)
        #expect(try db.queryValue("SELECT sumsq(x) FROM t", as: Int.self) == 1 + 4 + 9 + 16)

        struct MovingSum: DatabaseWindowFunction {
            var sum = 0
            mutating func step(_ arguments: FunctionValues) throws { sum += try arguments.value(at: 0, as: Int.self) }
            mutating func inverse(_ arguments: FunctionValues) throws {
                sum -= try arguments.value(at: 0, as: Int.self)
            }
            func value() -> Int { sum }
            func finalize() -> Int { sum }
        }
        try db.createWindowFunction("moving_sum", argumentCount: 1, MovingSum.self)
        let sums = try db.query(
            "SELECT moving_sum(x) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM t"
        )
        .map { try $0.value(at: 0) as Int }
        #expect(sums == [1, 1 + 2, 1 + 2 + 3, 2 + 3 + 4])
    }

    @Test("collations: a closure, a ready-made one in an index, removal")
    func collations() throws {
        let db = try Database()
        try db.execute("CREATE TABLE person (name TEXT)")
        try db.execute("INSERT INTO person VALUES ('bob'), ('Al'), ('carol')")
        try db.createCollation("length") { left, right in
            if left.count == right.count { return .orderedSame }
            return left.count < right.count ? .orderedAscending : .orderedDescending
        }
        try db.createCollation(.caseInsensitive)  // registers "unicode_nocase"
        try db.execute("CREATE INDEX person_name ON person(name COLLATE unicode_nocase)")
        let byLength = try db.query("SELECT name FROM person ORDER BY name COLLATE length").map {
            try $0.value(at: 0) as String
        }
        #expect(byLength == ["Al", "bob", "carol"])
        let found = try db.queryValue(
            "SELECT name FROM person WHERE name = 'BOB' COLLATE unicode_nocase", as: String.self)
        #expect(found == "bob")
        try db.removeCollation("length")
        #expect(throws: DatabaseError.self) { try db.execute("SELECT name FROM person ORDER BY name COLLATE length") }
    }

    /// What the `tagged` function of the sample computes once per statement.
    final class Prefix {
        let text: String
        init(_ text: String) { self.text = "[\(text)] " }
    }

    @Test("auxiliary data: a value computed once per statement from a constant argument")
    func auxiliaryData() throws {
        let db = try Database()
        try db.createFunction("tagged", argumentCount: 2) { context, arguments in
            let prefix: Prefix
            if let cached = context.auxiliaryObject(forArgument: 0, as: Prefix.self) {
                prefix = cached
            } else {
                prefix = Prefix(arguments[0].valueString() ?? "")  // computed once per statement
                context.setAuxiliaryObject(prefix, forArgument: 0)
            }
            context.resultString(prefix.text + (arguments[1].valueString() ?? ""))
        }
        let tagged = try db.query("SELECT tagged('note', value) FROM json_each('[\"a\", \"b\"]')").map {
            try $0.value(at: 0) as String
        }
        #expect(tagged == ["[note] a", "[note] b"])
    }

    @Test("a wrapper tokenizer folds case and accents")
    func tokenizer() throws {
        let db = try Database()
        try db.createWrapperTokenizer("fold") {
            $0.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        }
        try db.execute("CREATE VIRTUAL TABLE doc USING fts5(body, tokenize = 'fold unicode61 remove_diacritics 0')")
        // doc MATCH 'cafe' and doc MATCH 'café' both find "Un café noir"; highlight() marks "[café]".
        try db.execute("INSERT INTO doc (body) VALUES ('Un café noir')")
        for query in ["cafe", "café"] {
            let marked = try db.queryValue(
                "SELECT highlight(doc, 0, '[', ']') FROM doc WHERE doc MATCH ?", query, as: String.self)
            #expect(marked == "Un [café] noir")
        }
    }
}
