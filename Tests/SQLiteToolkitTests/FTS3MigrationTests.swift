import Foundation
import SQLiteToolkit
import Testing

/// The migration of the MigratingFTS3Tokenizers article, step by step: an FTS3 table made with FMDB's tokenizer
/// module becomes an FTS5 table with a Swift tokenizer. Keep the two in step.
@Suite("FTS3 tables of FMDB's tokenizer, rebuilt as FTS5")
struct FTS3MigrationTests {
    /// Rebuilds the FTS3/FTS4 table `table` (columns `columns`) as an FTS5 table with `tokenize`, same rowids.
    func migrateFMDBFullTextTable(_ db: Database, table: String, columns: [String], tokenize: String) throws {
        // 1. Let FTS3 open the old table: FMDB's tokenizer name becomes an alias of the built-in `simple` tokenizer,
        //    enough to read the stored text and to drop the table (never to query it).
        _ = db.handle?.configure(.enableFts3Tokenizer, 1)
        defer { _ = db.handle?.configure(.enableFts3Tokenizer, 0) }
        try db.execute("SELECT fts3_tokenizer('fmdb', fts3_tokenizer('simple'))")
        // 2. Copy into FTS5 with the Swift tokenizer, drop the old table, take its name: all or nothing.
        let list = columns.joined(separator: ", ")
        try db.transaction { db in
            try db.execute("CREATE VIRTUAL TABLE \(table)_fts5 USING fts5(\(list), tokenize = '\(tokenize)')")
            try db.execute("INSERT INTO \(table)_fts5 (rowid, \(list)) SELECT docid, \(list) FROM \(table)")
            try db.execute("DROP TABLE \(table)")
            try db.execute("ALTER TABLE \(table)_fts5 RENAME TO \(table)")
        }
    }

    @Test("an FTS3 table of FMDB's tokenizer cannot be queried, and queries with accents after the migration")
    func migration() throws {
        try TemporaryFile.withDatabasePath { path in
            // A database as an FMDB app left it: FTS3 with `tokenize=fmdb <key>` (FMDB's module is simulated here by
            // the simple tokenizer registered under its name).
            do {
                let db = try Database(path: path)
                _ = db.handle?.configure(.enableFts3Tokenizer, 1)
                try db.execute("SELECT fts3_tokenizer('fmdb', fts3_tokenizer('simple'))")
                try db.execute("CREATE VIRTUAL TABLE note USING fts3(title, body, tokenize=fmdb simple_key)")
                try db.execute("INSERT INTO note (docid, title, body) VALUES (7, 'Café', 'The menu of the café')")
                try db.execute("INSERT INTO note (docid, title, body) VALUES (9, 'Garden', 'A rose of Jérôme')")
            }

            let db = try Database(path: path)
            let error = try #require(throws: DatabaseError.self) {
                try db.execute("SELECT title FROM note WHERE note MATCH 'menu'")
            }
            #expect(error.message.contains("unknown tokenizer: fmdb"))

            try db.createStopWordTokenizer("english", stopWords: ["a", "of", "the"])
            try migrateFMDBFullTextTable(
                db, table: "note", columns: ["title", "body"], tokenize: "english unicode61 remove_diacritics 2")

            let query = "SELECT rowid, highlight(note, 1, '[', ']') FROM note WHERE note MATCH ? ORDER BY rowid"
            #expect(try db.query(query, "cafe").map(\.values) == [[7, "The menu of the [café]"]])
            #expect(try db.query(query, "jerome").map(\.values) == [[9, "A rose of [Jérôme]"]])
            #expect(try db.query(query, "Jérôme").map(\.values) == [[9, "A rose of [Jérôme]"]])
            #expect(try db.query(query, "the").map(\.values).isEmpty)
            let leftovers = try db.queryValue(
                "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'note%' AND sql LIKE '%fts3%'", as: Int.self)
            #expect(leftovers == 0)
            db.close()
        }
    }
}
