import CSQLiteToolkit
import Testing

@Suite("Full-text search, R*Tree and JSON are compiled in")
struct BundledExtensionTests {
    @Test("FTS5 with the porter stemmer ranks by bm25 and highlights every matching form")
    func fts5PorterRankingAndHighlight() throws {
        let database = try TestDatabase()
        try database.execute(
            """
            CREATE VIRTUAL TABLE documents USING fts5(title, body, tokenize='porter unicode61');
            INSERT INTO documents(rowid, title, body) VALUES
                (1, 'Field notes', 'A connection was made after the meeting'),
                (2, 'Wiring', 'Connecting connected connections'),
                (3, 'Recipes', 'Soup, bread and a café au lait');
            """
        )
        // "connect" stems every form of the word in rows 1 and 2. Row 2 is short
        // and made only of matches, so bm25 (smaller is better) ranks it first.
        let ranked = try database.rows(
            """
            SELECT rowid, highlight(documents, 1, '[', ']'), bm25(documents) < 0
            FROM documents WHERE documents MATCH 'connect' ORDER BY bm25(documents)
            """
        )
        #expect(
            ranked == [
                ["2", "[Connecting] [connected] [connections]", "1"],
                ["1", "A [connection] was made after the meeting", "1"],
            ]
        )
        // unicode61 folds case and removes diacritics: "CAFE" finds "café".
        let folded = try database.rows(
            "SELECT rowid, highlight(documents, 1, '<b>', '</b>') FROM documents WHERE documents MATCH 'CAFE'"
        )
        #expect(folded == [["3", "Soup, bread and a <b>café</b> au lait"]])
    }

    @Test("FTS4 understands parentheses, AND, OR and NOT in MATCH")
    func fts4EnhancedQuerySyntax() throws {
        let database = try TestDatabase()
        try database.execute(
            """
            CREATE VIRTUAL TABLE notes USING fts4(body);
            INSERT INTO notes(docid, body) VALUES
                (1, 'apple cherry'), (2, 'banana cherry'), (3, 'apple banana'), (4, 'cherry'), (5, 'apple');
            """
        )
        let query = "SELECT docid FROM notes WHERE notes MATCH ? ORDER BY docid"
        #expect(try database.column(query, arguments: ["(apple OR banana) AND cherry"]) == ["1", "2"])
        // Without the parentheses AND binds tighter: apple OR (banana AND cherry).
        #expect(try database.column(query, arguments: ["apple OR banana AND cherry"]) == ["1", "2", "3", "5"])
        #expect(try database.column(query, arguments: ["apple NOT banana"]) == ["1", "5"])
    }

    @Test("an R*Tree finds the boxes that overlap, or lie inside, a window")
    func rtreeBoundingBoxQuery() throws {
        let database = try TestDatabase()
        try database.execute(
            """
            CREATE VIRTUAL TABLE boxes USING rtree(id, minX, maxX, minY, maxY);
            INSERT INTO boxes VALUES
                (1, 0, 2, 0, 2),      -- over the window's lower-left corner
                (2, 5, 6, 5, 6),      -- inside the window
                (3, 11, 12, 5, 6),    -- right of the window
                (4, 20, 30, 20, 30);  -- far away
            """
        )
        // The window is [1, 10] × [1, 10].
        let overlapping = try database.column(
            "SELECT id FROM boxes WHERE maxX >= 1 AND minX <= 10 AND maxY >= 1 AND minY <= 10 ORDER BY id"
        )
        #expect(overlapping == ["1", "2"])
        let inside = try database.column(
            "SELECT id FROM boxes WHERE minX >= 1 AND maxX <= 10 AND minY >= 1 AND maxY <= 10 ORDER BY id"
        )
        #expect(inside == ["2"])
    }

    @Test("JSON functions and the -> and ->> operators read into documents")
    func jsonFunctionsAndOperators() throws {
        let database = try TestDatabase()
        try database.execute(
            """
            CREATE TABLE people(document TEXT);
            INSERT INTO people VALUES ('{"name": "Ada", "languages": ["en", "fr"], "born": {"year": 1815}}');
            """
        )
        let row = try database.rows(
            """
            SELECT json_extract(document, '$.born.year'), typeof(json_extract(document, '$.born.year')),
                   document ->> '$.name', document -> '$.name', document ->> '$.languages[#-1]',
                   json_array_length(document, '$.languages')
            FROM people
            """
        )
        // ->> returns an SQL value, -> returns JSON text (the name keeps its quotes).
        #expect(row == [["1815", "integer", "Ada", "\"Ada\"", "fr", "2"]])
    }
}
