import Foundation
import SQLiteToolkit
import Testing

@Suite("Collations")
struct CollationTests {
    func database(_ names: [String]) throws -> Database {
        let db = try Database()
        try db.execute("CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT)")
        for name in names { try db.execute("INSERT INTO person (name) VALUES (?)", name) }
        return db
    }

    func names(_ db: Database, _ sql: String) throws -> [String] {
        try allValues(db, sql).map { row in
            if case .text(let text) = row[0] { return text }
            return "?"
        }
    }

    @Test("a closure collation orders ORDER BY and is released when replaced, removed, closed")
    func closureCollation() throws {
        let counter = ReleaseCounter()
        let db = try database(["ccc", "a", "bb"])
        do {
            let token = counter.token()
            try db.createCollation("length") { left, right in
                _ = token
                return left.count == right.count
                    ? .orderedSame : (left.count < right.count ? .orderedAscending : .orderedDescending)
            }
        }
        #expect(try names(db, "SELECT name FROM person ORDER BY name COLLATE length") == ["a", "bb", "ccc"])
        do {
            let token = counter.token()
            try db.createCollation("length") { left, right in
                _ = token
                return right.count == left.count
                    ? .orderedSame : (right.count < left.count ? .orderedAscending : .orderedDescending)
            }
        }
        #expect(counter.released == 1)
        #expect(try names(db, "SELECT name FROM person ORDER BY name COLLATE length") == ["ccc", "bb", "a"])
        try db.removeCollation("length")
        #expect(counter.released == 2)
        let error = try #require(throws: DatabaseError.self) {
            try db.execute("SELECT name FROM person ORDER BY name COLLATE length")
        }
        #expect(error.message.contains("no such collation sequence"))
        do {
            let token = counter.token()
            try db.createCollation("kept") { left, right in
                _ = token
                return left.compare(right)
            }
        }
        db.close()
        #expect(counter.released == 3)
        let closed = try #require(throws: DatabaseError.self) { try db.createCollation(.unicode) }
        #expect(closed.reason == .connectionClosed)
    }

    @Test("invalid names throw a typed error")
    func invalidName() throws {
        let db = try Database()
        let error = try #require(throws: DatabaseError.self) { try db.createCollation("") { _, _ in .orderedSame } }
        #expect(error.reason == .invalidCollationName(""))
        #expect(throws: DatabaseError.self) { try db.removeCollation(String(repeating: "n", count: 300)) }
    }

    @Test("the case-insensitive collation folds case beyond ASCII, unlike NOCASE")
    func caseInsensitive() throws {
        let db = try database(["Émile", "émile", "Zoë", "adam"])
        try db.createCollation(.caseInsensitive)
        #expect(
            try db.queryValue("SELECT count(*) FROM person WHERE name = 'ÉMILE' COLLATE unicode_nocase", as: Int.self)
                == 2)
        // NOCASE folds only ASCII: "ÉMILE" matches "Émile" (same É) but not "émile".
        #expect(try db.queryValue("SELECT count(*) FROM person WHERE name = 'ÉMILE' COLLATE NOCASE", as: Int.self) == 1)
        let ordered = try names(db, "SELECT name FROM person ORDER BY name COLLATE unicode_nocase, id")
        #expect(ordered == ["adam", "Émile", "émile", "Zoë"])
    }

    @Test("the unicode collation treats canonically equivalent text as equal")
    func unicode() throws {
        let precomposed = "Jos\u{E9}"
        let decomposed = "Jose\u{301}"
        let db = try database([precomposed, decomposed])
        try db.createCollation(.unicode)
        #expect(
            try db.queryValue("SELECT count(*) FROM person WHERE name = ? COLLATE unicode", precomposed, as: Int.self)
                == 2)
        #expect(try db.queryValue("SELECT count(*) FROM person WHERE name = ?", precomposed, as: Int.self) == 1)
    }

    @Test("an index with COLLATE uses the collation, for lookups and UNIQUE")
    func index() throws {
        let db = try Database()
        try db.createCollation(.caseAndDiacriticInsensitive)
        try db.execute("CREATE TABLE tag (name TEXT)")
        try db.execute("CREATE UNIQUE INDEX tag_name ON tag(name COLLATE unicode_nocase_noaccent)")
        try db.execute("INSERT INTO tag (name) VALUES ('Café'), ('thé')")
        let error = try #require(throws: DatabaseError.self) {
            try db.execute("INSERT INTO tag (name) VALUES ('CAFE')")
        }
        #expect(error.extendedCode == .constraintUnique)
        let plan = try allValues(
            db, "EXPLAIN QUERY PLAN SELECT name FROM tag WHERE name = 'cafe' COLLATE unicode_nocase_noaccent")
        #expect(plan.description.contains("USING COVERING INDEX tag_name"))
        #expect(
            try db.queryValue(
                "SELECT name FROM tag WHERE name = 'cafe' COLLATE unicode_nocase_noaccent", as: String.self) == "Café")
    }
}
