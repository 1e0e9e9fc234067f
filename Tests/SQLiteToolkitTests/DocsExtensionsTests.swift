import CSQLTKTestExtension
import Foundation
import SQLiteToolkit
import Testing

/// The samples of the article "Extensions and vector search" (ExtensionsAndVectorSearch.md), line for line.
@Suite("Docs: Extensions and vector search")
struct DocsExtensionsTests {
    static let vec0Path = ExtensionPeers.sqliteVec ?? ""

    @Test(
        "loading a library on one connection",
        .enabled(if: ExtensionPeers.sqliteVec != nil, "sqlite-vec missing: run scripts/install-test-peers")
    )
    func loading() throws {
        let vec0Path = Self.vec0Path
        let db = try Database()
        try db.loadExtension(atPath: vec0Path)
        let version = try db.queryValue("SELECT vec_version()", as: String.self)  // "v0.1.9"
        #expect(version == "v0.1.9")

        do {
            try db.loadExtension(atPath: "/opt/missing/vec0")
        } catch let error as DatabaseError where error.reason == .extensionLoadFailed(path: "/opt/missing/vec0") {
            print(error.message)  // "/opt/missing/vec0.so: cannot open shared object file: No such file or directory"
            #expect(error.message.contains("/opt/missing/vec0"))
        }
    }

    @Test(
        "every connection of a pool",
        .enabled(if: ExtensionPeers.sqliteVec != nil, "sqlite-vec missing: run scripts/install-test-peers")
    )
    func everyConnection() throws {
        let vec0Path = Self.vec0Path
        try TemporaryFile.withDatabasePath { path in
            var configuration = Database.Configuration()
            configuration.extensions = [.library(atPath: vec0Path)]
            let pool = try DatabasePool(path: path, configuration: configuration)
            let version = try pool.read { db in try db.queryValue("SELECT vec_version()", as: String.self) }
            #expect(version == "v0.1.9")
        }
    }

    @Test("static registration")
    func staticRegistration() throws {
        let db = try Database()
        try db.registerExtension(sqltk_test_extension_init, named: "sqltk_test_extension")
        let twice = try db.queryValue("SELECT sqltk_test_twice(21)", as: Int.self)  // 42
        #expect(twice == 42)

        var configuration = Database.Configuration()
        configuration.extensions = [.linked(sqltk_test_extension_init, named: "sqltk_test_extension")]
        let queue = try DatabaseQueue(configuration: configuration)
        #expect(try queue.read { try $0.queryValue("SELECT sqltk_test_twice(2)", as: Int.self) } == 4)
    }

    @Test(
        "sqlite-vec end to end: schema, embeddings, k-NN, filtering",
        .enabled(if: ExtensionPeers.sqliteVec != nil, "sqlite-vec missing: run scripts/install-test-peers")
    )
    func vectorSearch() throws {
        let vec0Path = Self.vec0Path
        var configuration = Database.Configuration()
        configuration.extensions = [.library(atPath: vec0Path)]
        let db = try Database(configuration: configuration)

        try db.execute(
            """
            CREATE VIRTUAL TABLE document_embedding USING vec0(
                document_id INTEGER PRIMARY KEY,
                embedding float[4] distance_metric=cosine,
                language TEXT,
                +title TEXT
            )
            """)

        func float32Blob(_ vector: [Float]) -> Data {
            vector.withUnsafeBufferPointer { Data(buffer: $0) }  // little-endian on every platform Swift supports
        }
        let documents: [(id: Int, title: String, language: String, embedding: [Float])] = [
            (1, "Tides", "en", [0.9, 0.1, 0.0, 0.1]),
            (2, "Marées", "fr", [0.8, 0.2, 0.1, 0.0]),
            (3, "Volcanoes", "en", [0.0, 0.1, 0.9, 0.3]),
        ]
        try db.transaction { db in
            for document in documents {
                try db.execute(
                    "INSERT INTO document_embedding (document_id, embedding, language, title) VALUES (?, ?, ?, ?)",
                    document.id, float32Blob(document.embedding), document.language, document.title)
            }
        }

        let query = float32Blob([1.0, 0.1, 0.0, 0.0])
        let nearest = try db.query(
            """
            SELECT document_id, title, distance FROM document_embedding
            WHERE embedding MATCH ? AND k = ?
            ORDER BY distance
            """, query, 2
        ).map { row in try row.value(named: "title", as: String.self) }
        // nearest == ["Tides", "Marées"]
        #expect(nearest == ["Tides", "Marées"])

        let english = try db.query(
            """
            SELECT document_id, title, distance FROM document_embedding
            WHERE embedding MATCH ? AND k = ? AND language = ?
            ORDER BY distance
            """, query, 2, "en"
        ).map { row in try row.value(named: "title", as: String.self) }
        // english == ["Tides", "Volcanoes"]
        #expect(english == ["Tides", "Volcanoes"])

        let distance = try db.queryValue(
            "SELECT vec_distance_l2(?, ?)", float32Blob([0, 0]), float32Blob([3, 4]), as: Double.self)  // 5.0
        #expect(distance == 5)

        try db.execute(
            "INSERT INTO document_embedding (document_id, embedding, language, title) VALUES (?, ?, ?, ?)",
            4, FloatVector([0.1, 0.9, 0.0, 0.2]), "en", "Forests")
        let stored = try db.queryValue(
            "SELECT embedding FROM document_embedding WHERE document_id = 4", as: FloatVector.self)
        // stored?.values == [0.1, 0.9, 0.0, 0.2]
        #expect(stored?.values == [0.1, 0.9, 0.0, 0.2])

        let ids: [Int64] = [3, 1]
        let titles = try db.query(
            "SELECT title FROM document_embedding WHERE document_id IN carray(?) ORDER BY document_id", CArray(ids)
        ).map { try $0.value(at: 0, as: String.self) }
        // titles == ["Tides", "Volcanoes"]
        #expect(titles == ["Tides", "Volcanoes"])
        let same = try db.query(
            sql: "SELECT title FROM document_embedding WHERE document_id IN carray(\(ids)) ORDER BY document_id"
        ).map { try $0.value(at: 0, as: String.self) }
        #expect(same == titles)
    }

    @Test("vectors in Swift: the distance functions where no extension loads")
    func vectorsInSwift() throws {
        let plain = try Database()
        try plain.createVectorDistanceFunctions()
        try plain.execute("CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT, embedding BLOB NOT NULL)")
        for (id, title, embedding) in [(1, "Tides", [0.9, 0.1, 0.0, 0.1]), (2, "Volcanoes", [0.0, 0.1, 0.9, 0.3])]
            as [(Int, String, [Float])]
        {
            try plain.execute("INSERT INTO note VALUES (?, ?, ?)", id, title, FloatVector(embedding))
        }
        let closest = try plain.queryValue(
            "SELECT title FROM note ORDER BY vec_distance_cosine(embedding, ?) LIMIT 1", FloatVector([1, 0, 0, 0]),
            as: String.self)
        // closest == "Tides"
        #expect(closest == "Tides")
    }
}
