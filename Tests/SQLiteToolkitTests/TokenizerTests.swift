import Foundation
import SQLiteToolkit
import Testing

/// Splits on anything but letters and digits, and folds case and accents: a tokenizer written in Swift.
final class FoldingWordTokenizer: FTS5Tokenizer {
    let token: ReleaseCounter.Token?

    init(_ token: ReleaseCounter.Token? = nil) {
        self.token = token
    }

    func tokenize(_ text: String, flags: FTS5TokenizeFlags, emit: (FTS5Token) throws -> Void) throws {
        var wordStart: String.Index?
        func offset(_ index: String.Index) -> Int { text.utf8.distance(from: text.utf8.startIndex, to: index) }
        func flush(_ end: String.Index) throws {
            guard let start = wordStart else { return }
            let word = text[start..<end].folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            try emit(FTS5Token(word, byteRange: offset(start)..<offset(end)))
            wordStart = nil
        }
        for index in text.indices {
            if text[index].isLetter || text[index].isNumber {
                if wordStart == nil { wordStart = index }
            } else {
                try flush(index)
            }
        }
        try flush(text.endIndex)
    }
}

@Suite("FTS5 tokenizers")
struct TokenizerTests {
    func matches(_ db: Database, _ query: String) throws -> [String] {
        try db.query("SELECT highlight(doc, 0, '[', ']') FROM doc WHERE doc MATCH ? ORDER BY rowid", query).map {
            try $0.value(at: 0, as: String.self)
        }
    }

    @Test(
        "a Swift tokenizer answers MATCH with and without accents, with highlight() offsets right for multi-byte text")
    func swiftTokenizer() throws {
        let db = try Database()
        try db.createTokenizer("words") { _ in FoldingWordTokenizer() }
        try db.execute("CREATE VIRTUAL TABLE doc USING fts5(body, tokenize = 'words')")
        try db.execute("INSERT INTO doc (body) VALUES ('Ça va, José? Très bien.'), ('Jose Martí'), ('Maria')")
        #expect(try matches(db, "jose") == ["Ça va, [José]? Très bien.", "[Jose] Martí"])
        #expect(try matches(db, "José") == ["Ça va, [José]? Très bien.", "[Jose] Martí"])
        #expect(try matches(db, "tres") == ["Ça va, José? [Très] bien."])
        #expect(try matches(db, "marti") == ["Jose [Martí]"])
        #expect(try matches(db, "ca") == ["[Ça] va, José? Très bien."])
    }

    @Test("a wrapper folds the tokens of unicode61 and keeps its offsets")
    func wrapperTokenizer() throws {
        let db = try Database()
        try db.createWrapperTokenizer("fold") { token in
            token.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        }
        try db.execute("CREATE VIRTUAL TABLE doc USING fts5(body, tokenize = 'fold unicode61 remove_diacritics 0')")
        try db.execute("INSERT INTO doc (body) VALUES ('Un café noir à Zürich'), ('cafe au lait')")
        #expect(try matches(db, "cafe") == ["Un [café] noir à Zürich", "[cafe] au lait"])
        #expect(try matches(db, "CAFÉ") == ["Un [café] noir à Zürich", "[cafe] au lait"])
        #expect(try matches(db, "zurich") == ["Un café noir à [Zürich]"])
        // Without arguments the wrapped tokenizer is unicode61.
        try db.execute("CREATE VIRTUAL TABLE plain USING fts5(body, tokenize = 'fold')")
        try db.execute("INSERT INTO plain (body) VALUES ('Éclair')")
        #expect(try db.queryValue("SELECT count(*) FROM plain WHERE plain MATCH 'eclair'", as: Int.self) == 1)
        // A wrapped tokenizer that does not exist makes the table fail to create.
        #expect(throws: DatabaseError.self) {
            try db.execute("CREATE VIRTUAL TABLE broken USING fts5(body, tokenize = 'fold nosuchtokenizer')")
        }
    }

    @Test("a wrapper's base bound at registration serves tables that name the wrapper alone")
    func wrapperWithBoundBase() throws {
        let db = try Database()
        // porter stems "running" to "run"; unicode61 alone would not.
        try db.createWrapperTokenizer("folding", base: ["porter", "unicode61", "remove_diacritics", "2"]) {
            $0.lowercased()
        }
        try db.execute("CREATE VIRTUAL TABLE doc USING fts5(body, tokenize = 'folding')")
        try db.execute("INSERT INTO doc (body) VALUES ('Running in Zürich')")
        #expect(try matches(db, "run") == ["[Running] in Zürich"])
        #expect(try matches(db, "zurich") == ["Running in [Zürich]"])
        // A table that names a base uses its own: unicode61 without porter does not stem.
        try db.execute("CREATE VIRTUAL TABLE own USING fts5(body, tokenize = 'folding unicode61')")
        try db.execute("INSERT INTO own (body) VALUES ('Running')")
        #expect(try db.queryValue("SELECT count(*) FROM own WHERE own MATCH 'run'", as: Int.self) == 0)
        // The stop-word wrapper takes a base too, and a base that does not exist makes the table fail to create.
        try db.createStopWordTokenizer("english", stopWords: ["the"], base: ["porter", "unicode61"])
        try db.execute("CREATE VIRTUAL TABLE stops USING fts5(body, tokenize = 'english')")
        try db.execute("INSERT INTO stops (body) VALUES ('The runners')")
        #expect(try db.queryValue("SELECT count(*) FROM stops WHERE stops MATCH 'runner'", as: Int.self) == 1)
        #expect(try db.queryValue("SELECT count(*) FROM stops WHERE stops MATCH 'the'", as: Int.self) == 0)
        try db.createWrapperTokenizer("broken", base: ["nosuchtokenizer"]) { $0 }
        #expect(throws: DatabaseError.self) {
            try db.execute("CREATE VIRTUAL TABLE nope USING fts5(body, tokenize = 'broken')")
        }
    }

    @Test("the stop-word wrapper drops its words from the index and from queries")
    func stopWords() throws {
        let db = try Database()
        try db.createStopWordTokenizer("english", stopWords: ["the", "of", "a"])
        try db.execute("CREATE VIRTUAL TABLE doc USING fts5(body, tokenize = 'english')")
        try db.execute("INSERT INTO doc (body) VALUES ('The Lord of the Rings'), ('A cat')")
        #expect(try matches(db, "lord") == ["The [Lord] of the Rings"])
        #expect(try matches(db, "the").isEmpty)
        #expect(try matches(db, "rings") == ["The Lord of the [Rings]"])
        try db.execute("CREATE VIRTUAL TABLE vocab USING fts5vocab(doc, 'row')")
        let terms = try db.query("SELECT term FROM vocab ORDER BY term").map { try $0.value(at: 0, as: String.self) }
        #expect(terms == ["cat", "lord", "rings"])
    }

    @Test("text that is not valid UTF-8 fails the statement instead of crashing")
    func invalidUTF8() throws {
        let db = try Database()
        try db.createTokenizer("words") { _ in FoldingWordTokenizer() }
        try db.createWrapperTokenizer("fold") { $0.lowercased() }
        try db.execute("CREATE VIRTUAL TABLE doc USING fts5(body, tokenize = 'words')")
        try db.execute("CREATE VIRTUAL TABLE wrapped USING fts5(body, tokenize = 'fold')")
        for table in ["doc", "wrapped"] {
            #expect(throws: DatabaseError.self) {
                try db.execute("INSERT INTO \(table) (body) VALUES (CAST(x'41C328FF42' AS TEXT))")
            }
            try db.execute("INSERT INTO \(table) (body) VALUES ('fine')")
            #expect(try db.queryValue("SELECT count(*) FROM \(table) WHERE \(table) MATCH 'fine'", as: Int.self) == 1)
        }
    }

    @Test("factories and instances are released on replace, drop and close; bad names throw typed errors")
    func releases() throws {
        let factories = ReleaseCounter()
        let instances = ReleaseCounter()
        let db = try Database()
        do {
            let token = factories.token()
            try db.createTokenizer("words") { _ in
                _ = token
                return FoldingWordTokenizer(instances.token())
            }
        }
        try db.execute("CREATE VIRTUAL TABLE doc USING fts5(body, tokenize = 'words')")
        try db.execute("INSERT INTO doc (body) VALUES ('one two')")
        #expect(instances.created >= 1)
        try db.execute("DROP TABLE doc")
        #expect(instances.released == instances.created)
        do {
            let token = factories.token()
            try db.createTokenizer("words") { _ in
                _ = token
                return FoldingWordTokenizer(instances.token())
            }
        }
        try db.execute("CREATE VIRTUAL TABLE doc2 USING fts5(body, tokenize = 'words')")
        // A factory that throws refuses the table.
        try db.createTokenizer("refusing") { _ in throw FunctionFailure(description: "no") }
        #expect(throws: DatabaseError.self) {
            try db.execute("CREATE VIRTUAL TABLE doc3 USING fts5(body, tokenize = 'refusing')")
        }
        let error = try #require(throws: DatabaseError.self) {
            try db.createTokenizer("") { _ in FoldingWordTokenizer() }
        }
        #expect(error.reason == .invalidTokenizerName(""))
        db.close()
        #expect(factories.released == 2)
        #expect(instances.released == instances.created)
        let closed = try #require(throws: DatabaseError.self) { try db.createStopWordTokenizer("late", stopWords: []) }
        #expect(closed.reason == .connectionClosed)
    }
}
