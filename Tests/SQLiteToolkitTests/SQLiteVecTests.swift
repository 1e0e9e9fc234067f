import Foundation
import SQLiteToolkit
import Testing

/// sqlite-vec 0.1.9's `vec0.so`, a real loadable extension, through the toolkit, compared with the same library
/// loaded by the sqlite3 shell (`.load`): the shell shares no code with the toolkit's loading, binding or reading.
@Suite("sqlite-vec through the toolkit")
struct SQLiteVecTests {
    /// The float32 little-endian bytes sqlite-vec reads as a vector.
    static func float32Blob(_ vector: [Float]) -> Data {
        var data = Data(capacity: vector.count * 4)
        for element in vector { withUnsafeBytes(of: element.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    static func randomVector(_ dimensions: Int, using random: inout SeededRandom) -> [Float] {
        (0..<dimensions).map { _ in Float.random(in: -1...1, using: &random) }
    }

    @Test(
        "vec0.so loads through the API by path, with and without its entry point, and SQL still cannot load it",
        .enabled(if: ExtensionPeers.sqliteVec != nil, "sqlite-vec missing: run scripts/install-test-peers")
    )
    func loads() throws {
        let path = try #require(ExtensionPeers.sqliteVec, Comment(rawValue: ExtensionPeers.missingSQLiteVec))
        let db = try Database()
        try db.loadExtension(atPath: path)
        #expect(try db.queryValue("SELECT vec_version()", as: String.self) == "v0.1.9")
        try ExtensionLoadingTests.expectSQLLoadingRefused(db, path: path)
        let other = try Database()
        try other.loadExtension(atPath: path, entryPoint: "sqlite3_vec_init")
        #expect(try other.queryValue("SELECT vec_length(?)", Self.float32Blob([1, 2, 3]), as: Int.self) == 3)
        let error = try #require(throws: DatabaseError.self) {
            try other.loadExtension(atPath: path, entryPoint: "sqlite3_no_such_init")
        }
        #expect(error.reason == .extensionLoadFailed(path: path))
        #expect(error.message.contains("sqlite3_no_such_init"))
    }

    @Test(
        "k-NN queries, metadata filters and vec_distance_l2 answer as the sqlite3 shell with the same vec0.so",
        .enabled(
            if: ExtensionPeers.sqliteVec != nil && ExtensionPeers.sqlite3Shell != nil,
            "sqlite-vec or the sqlite3 shell missing: run scripts/install-test-peers"),
        arguments: [UInt64(1), 2, 3]
    )
    func differential(seed: UInt64) throws {
        let path = try #require(ExtensionPeers.sqliteVec, Comment(rawValue: ExtensionPeers.missingSQLiteVecOrShell))
        var random = SeededRandom(seed: SeededRandom.seed(default: seed))
        let dimensions = 16
        let count = 300
        let categories = ["news", "sport", "science"]
        let rows = (1...count).map { id in
            (
                id: id, vector: Self.randomVector(dimensions, using: &random),
                category: categories.randomElement(using: &random) ?? "news"
            )
        }
        let queries = (0..<6).map { _ in
            (
                vector: Self.randomVector(dimensions, using: &random), k: Int.random(in: 1...20, using: &random),
                category: categories.randomElement(using: &random) ?? "news"
            )
        }
        let schema =
            "CREATE VIRTUAL TABLE items USING vec0(id INTEGER PRIMARY KEY, embedding float[\(dimensions)], "
            + "category text)"
        let knn =
            "SELECT id, printf('%.17g', distance) FROM items WHERE embedding MATCH ? AND k = ? ORDER BY distance"
        let filtered =
            "SELECT id, printf('%.17g', distance) FROM items WHERE embedding MATCH ? AND k = ? AND category = ? "
            + "ORDER BY distance"
        let distances =
            "SELECT id, printf('%.17g', vec_distance_l2(embedding, ?)) FROM items WHERE id <= 25 ORDER BY id"

        // The toolkit: vectors and queries bound as blobs.
        let db = try Database()
        try db.loadExtension(atPath: path)
        try db.execute(schema)
        try db.transaction { db in
            for row in rows {
                try db.execute(
                    "INSERT INTO items(id, embedding, category) VALUES (?, ?, ?)", row.id, Self.float32Blob(row.vector),
                    row.category)
            }
        }
        var ours: [String] = []
        for query in queries {
            let blob = Self.float32Blob(query.vector)
            ours += try db.query(knn, blob, query.k).map {
                "\(try $0.value(at: 0) as Int)|\(try $0.value(at: 1) as String)"
            }
            ours.append("--")
            ours += try db.query(filtered, blob, query.k, query.category).map {
                "\(try $0.value(at: 0) as Int)|\(try $0.value(at: 1) as String)"
            }
            ours.append("--")
            ours += try db.query(distances, blob).map {
                "\(try $0.value(at: 0) as Int)|\(try $0.value(at: 1) as String)"
            }
            ours.append("--")
        }

        // The sqlite3 shell: the same statements with the vectors as blob literals.
        var script = ".load \(path)\n\(schema);\nBEGIN;\n"
        for row in rows {
            script +=
                "INSERT INTO items(id, embedding, category) VALUES (\(row.id), X'\(Self.hex(Self.float32Blob(row.vector)))', "
                + "'\(row.category)');\n"
        }
        script += "COMMIT;\n"
        for query in queries {
            let blob = "X'\(Self.hex(Self.float32Blob(query.vector)))'"
            func literal(_ sql: String, _ values: [String]) -> String {
                var text = sql
                for value in values {
                    if let range = text.range(of: "?") { text.replaceSubrange(range, with: value) }
                }
                return text
            }
            script += literal(knn, [blob, "\(query.k)"]) + ";\nSELECT '--';\n"
            script += literal(filtered, [blob, "\(query.k)", "'\(query.category)'"]) + ";\nSELECT '--';\n"
            script += literal(distances, [blob]) + ";\nSELECT '--';\n"
        }
        let theirs = try ExtensionPeers.runShell(script).split(separator: "\n").map(String.init)

        // Row ids and their order agree exactly. The distances agree to the last digits the shell's SQLite 3.40
        // prints (its printf is exact to about 16 significant digits; the toolkit's newer SQLite to all 17).
        #expect(ours.count > queries.count * 3 + 25)
        #expect(ours.count == theirs.count)
        func split(_ line: String) -> (id: String, distance: Double?) {
            let parts = line.split(separator: "|", maxSplits: 1).map(String.init)
            return (parts[0], parts.count > 1 ? Double(parts[1]) : nil)
        }
        for (mine, other) in zip(ours.map(split), theirs.map(split)) {
            #expect(mine.id == other.id)
            if let a = mine.distance, let b = other.distance {
                #expect(abs(a - b) <= 1e-14 * max(1, abs(b)), "\(a) against \(b) for id \(mine.id)")
            } else {
                #expect(mine.distance == nil && other.distance == nil)
            }
        }

        // An oracle of our own for the distances: Euclidean distance in Float, as sqlite-vec computes it.
        let first = queries[0].vector
        for row in rows.prefix(25) {
            let expected = zip(row.vector, first).reduce(Float(0)) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }.squareRoot()
            let measured = try #require(
                try db.queryValue(
                    "SELECT vec_distance_l2(embedding, ?) FROM items WHERE id = ?", Self.float32Blob(first), row.id,
                    as: Double.self))
            #expect(abs(measured - Double(expected)) <= 1e-5 * max(1, Double(expected)))
        }
    }

    @Test(
        "vec0 reads vectors given as JSON text as it reads float32 blobs",
        .enabled(if: ExtensionPeers.sqliteVec != nil, "sqlite-vec missing: run scripts/install-test-peers")
    )
    func jsonVectors() throws {
        let path = try #require(ExtensionPeers.sqliteVec)
        let db = try Database()
        try db.loadExtension(atPath: path)
        try db.execute("CREATE VIRTUAL TABLE v USING vec0(embedding float[3])")
        try db.execute("INSERT INTO v(rowid, embedding) VALUES (1, '[1, 2, 3]'), (2, '[0, 0, 0]'), (3, '[1, 1, 1]')")
        let nearest = try db.query(
            "SELECT rowid FROM v WHERE embedding MATCH ? AND k = 2 ORDER BY distance", Self.float32Blob([1, 1, 1])
        ).map { try $0.value(at: 0) as Int }
        #expect(nearest == [3, 2])
        #expect(
            try db.queryValue("SELECT vec_to_json(embedding) FROM v WHERE rowid = 1", as: String.self)
                == "[1.000000,2.000000,3.000000]")
    }
}
