import Foundation
import SQLiteToolkit
import Testing

/// Splits text into words of letters and digits, folding case and accents, with each word's UTF-8 byte range: the
/// Swift tokenizer of the Full-text search article.
final class WordTokenizer: FTS5Tokenizer {
    func tokenize(_ text: String, flags: FTS5TokenizeFlags, emit: (FTS5Token) throws -> Void) throws {
        let utf8 = text.utf8
        var index = text.startIndex
        while index < text.endIndex {
            guard text[index].isLetter || text[index].isNumber else {
                index = text.index(after: index)
                continue
            }
            let start = index
            while index < text.endIndex, text[index].isLetter || text[index].isNumber {
                index = text.index(after: index)
            }
            let word = text[start..<index].folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            let begin = utf8.distance(from: utf8.startIndex, to: start)
            let end = utf8.distance(from: utf8.startIndex, to: index)
            try emit(FTS5Token(word, byteRange: begin..<end))
        }
    }
}

/// The samples of the Full-text search article (Sources/SQLiteToolkit/SQLiteToolkit.docc/FullTextSearch.md), line
/// for line: `DocsSampleTests` checks that every line of the article's samples appears here.
@Suite("Docs: Full-text search")
struct DocsFullTextSearchTests {
    @Test("an FTS5 table, a ranked search with highlights and snippets")
    func rankedSearch() throws {
        let db = try Database()
        try db.execute("CREATE VIRTUAL TABLE note USING fts5(title, body)")
        try db.execute(
            "INSERT INTO note (title, body) VALUES (?, ?)", "Groceries", "Milk, eggs, and bread for the week")
        try db.execute("INSERT INTO note (title, body) VALUES (?, ?)", "Bread", "Bread, bread and more bread")
        try db.execute("INSERT INTO note (title, body) VALUES (?, ?)", "Trip", "Train tickets and a map")

        let hits = try db.query(
            """
            SELECT title, highlight(note, 1, '[', ']') AS body
            FROM note WHERE note MATCH ? ORDER BY rank
            """,
            "bread"
        ).map { row in
            (try row.value(named: "title") as String, try row.value(named: "body") as String)
        }
        // hits[0] == ("Bread", "[Bread], [bread] and more [bread]"): more matches in a shorter text rank first
        #expect(hits.map(\.0) == ["Bread", "Groceries"])
        #expect(hits.first?.1 == "[Bread], [bread] and more [bread]")
        #expect(hits.last?.1 == "Milk, eggs, and [bread] for the week")

        let snippet = try db.queryValue(
            "SELECT snippet(note, 1, '<b>', '</b>', '…', 4) FROM note WHERE note MATCH ?", "tickets", as: String.self)
        #expect(snippet == "Train <b>tickets</b> and a…")

        // Queries: phrases, prefixes, a column, boolean operators
        let count = { (query: String) in
            try db.queryRequiredValue("SELECT count(*) FROM note WHERE note MATCH ?", query, as: Int.self)
        }
        #expect(try count("\"more bread\"") == 1)  // a phrase
        #expect(try count("tick*") == 1)  // a prefix
        #expect(try count("title:bread") == 1)  // one column
        #expect(try count("bread NOT milk") == 1)
        #expect(try count("bread OR train") == 3)
    }

    @Test("user input is bound as a query string; a syntax error is a typed SQLite error")
    func userInput() throws {
        let db = try Database()
        try db.execute("CREATE VIRTUAL TABLE note USING fts5(title, body)")
        try db.execute("INSERT INTO note (title, body) VALUES (?, ?)", "Trip", "Train tickets and a map")

        let input = "tickets AND"  // an unfinished query typed by a user
        let quoted = "\"" + input.replacingOccurrences(of: "\"", with: "\"\"") + "\""  // one phrase
        let found = try db.query("SELECT title FROM note WHERE note MATCH ?", quoted).map {
            try $0.value(at: 0) as String
        }
        #expect(found == ["Trip"])  // the phrase "tickets and" is in the text
        let error = try #require(throws: DatabaseError.self) {
            try db.query("SELECT title FROM note WHERE note MATCH ?", input).map { try $0.value(at: 0) as String }
        }
        #expect(error.code == .error)
        #expect(error.message.contains("fts5: syntax error"))
    }

    @Test("a tokenizer written in Swift, and the ready-made wrappers")
    func tokenizers() throws {
        let db = try Database()
        try db.createTokenizer("words") { _ in WordTokenizer() }
        try db.execute("CREATE VIRTUAL TABLE doc USING fts5(body, tokenize = 'words')")
        try db.execute("INSERT INTO doc (body) VALUES (?)", "Un café noir, s'il vous plaît")
        let marked = try db.queryValue(
            "SELECT highlight(doc, 0, '[', ']') FROM doc WHERE doc MATCH ?", "cafe", as: String.self)
        // marked == "Un [café] noir, s'il vous plaît": the match is folded, the highlight keeps the original bytes
        #expect(marked == "Un [café] noir, s'il vous plaît")

        try db.createWrapperTokenizer("fold") {
            $0.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        }
        try db.createStopWordTokenizer("english", stopWords: ["a", "an", "and", "the"])
        try db.execute("CREATE VIRTUAL TABLE folded USING fts5(body, tokenize = 'fold unicode61 remove_diacritics 0')")
        try db.execute("CREATE VIRTUAL TABLE stopped USING fts5(body, tokenize = 'english')")
        try db.execute("INSERT INTO folded (body) VALUES (?)", "Crème brûlée")
        try db.execute("INSERT INTO stopped (body) VALUES (?)", "The cat and the hat")
        #expect(try db.queryValue("SELECT count(*) FROM folded WHERE folded MATCH 'creme'", as: Int.self) == 1)
        #expect(try db.queryValue("SELECT count(*) FROM stopped WHERE stopped MATCH 'hat'", as: Int.self) == 1)
        #expect(try db.queryValue("SELECT count(*) FROM stopped WHERE stopped MATCH 'the'", as: Int.self) == 0)
    }

    @Test("an external-content table indexes a regular table, kept in step by triggers")
    func externalContent() throws {
        let db = try Database()
        try db.executeScript(
            """
            CREATE TABLE article (id INTEGER PRIMARY KEY, title TEXT, body TEXT);
            CREATE VIRTUAL TABLE article_fts USING fts5(title, body, content = 'article', content_rowid = 'id');
            CREATE TRIGGER article_ai AFTER INSERT ON article BEGIN
                INSERT INTO article_fts (rowid, title, body) VALUES (new.id, new.title, new.body);
            END;
            CREATE TRIGGER article_ad AFTER DELETE ON article BEGIN
                INSERT INTO article_fts (article_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
            END;
            CREATE TRIGGER article_au AFTER UPDATE ON article BEGIN
                INSERT INTO article_fts (article_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
                INSERT INTO article_fts (rowid, title, body) VALUES (new.id, new.title, new.body);
            END;
            """)
        try db.execute("INSERT INTO article (title, body) VALUES (?, ?)", "Swift", "A language for apps and servers")
        let ids = try db.query(
            "SELECT article.id FROM article JOIN article_fts ON article_fts.rowid = article.id WHERE article_fts MATCH ?",
            "servers"
        ).map { try $0.value(at: 0) as Int }
        #expect(ids == [1])
        try db.execute("UPDATE article SET body = 'A language for apps' WHERE id = 1")
        #expect(
            try db.queryValue("SELECT count(*) FROM article_fts WHERE article_fts MATCH 'servers'", as: Int.self) == 0)
    }
}
