import Foundation
import SQLiteToolkit

/// Real sentence embeddings for the nearest-neighbour tests: 2,000 sentences of our own in ten topics and 20 query
/// sentences, embedded with all-MiniLM-L6-v2 (384 dimensions, unit length) by `scripts/make-embeddings`, which
/// documents how they are made and checks the model against its published similarities first.
///
/// The files, in `Fixtures/` beside this file:
/// - `minilm-embeddings.json`: `{"model", "dimensions", "sentences": [{"text", "topic"}], "queries": [...]}`, the
///   corpus sentences in row order, then the queries.
/// - `minilm-embeddings.bin`: the magic `SQTKEMB1`, then three little-endian UInt32 (corpus count, query count,
///   dimensions), then every corpus vector and every query vector as `dimensions` little-endian IEEE 754
///   half-precision floats, in the JSON's order.
///
/// The half-precision values are widened to `Float` once, here; the database and the brute-force answer both use
/// those widened values, so they compare the same numbers.
struct EmbeddingFixture {
    /// A sentence and the topic its template belongs to.
    struct Sentence: Decodable {
        let text: String
        let topic: String
    }

    private struct Index: Decodable {
        let dimensions: Int
        let sentences: [Sentence]
        let queries: [Sentence]
    }

    /// Why the fixture could not be read.
    struct FormatError: Error, CustomStringConvertible {
        let description: String
    }

    let dimensions: Int
    let sentences: [Sentence]
    let queries: [Sentence]
    /// One vector per sentence, in `sentences`' order.
    let vectors: [[Float]]
    /// One vector per query, in `queries`' order.
    let queryVectors: [[Float]]

    /// The fixture's folder, found from this source file so the tests need no bundle resources.
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// The fixture, read once for all the tests (widening 800,000 halves takes seconds in a debug build).
    static let shared = Result { try load() }

    /// Reads and checks both files.
    static func load() throws -> EmbeddingFixture {
        let index = try JSONDecoder().decode(
            Index.self, from: Data(contentsOf: folder.appendingPathComponent("minilm-embeddings.json")))
        let data = try Data(contentsOf: folder.appendingPathComponent("minilm-embeddings.bin"))
        let headerSize = 20
        guard data.count >= headerSize, data.prefix(8) == Data("SQTKEMB1".utf8) else {
            throw FormatError(description: "minilm-embeddings.bin does not start with SQTKEMB1")
        }
        let bytes = [UInt8](data)
        func uint32(at offset: Int) -> Int {
            (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
        }
        let corpusCount = uint32(at: 8)
        let queryCount = uint32(at: 12)
        let dimensions = uint32(at: 16)
        guard corpusCount == index.sentences.count, queryCount == index.queries.count,
            dimensions == index.dimensions,
            bytes.count == headerSize + (corpusCount + queryCount) * dimensions * 2
        else {
            throw FormatError(
                description: "minilm-embeddings.bin (\(corpusCount) + \(queryCount) vectors of \(dimensions), "
                    + "\(bytes.count) bytes) does not match minilm-embeddings.json")
        }
        let vectors = (0..<(corpusCount + queryCount)).map { row in
            (0..<dimensions).map { column in
                let offset = headerSize + (row * dimensions + column) * 2
                return widen(UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8)
            }
        }
        return EmbeddingFixture(
            dimensions: dimensions, sentences: index.sentences, queries: index.queries,
            vectors: Array(vectors[..<corpusCount]), queryVectors: Array(vectors[corpusCount...]))
    }

    /// The `Float` of an IEEE 754 half-precision bit pattern, written out because `Float16` is unavailable on some
    /// platforms the tests run on (macOS on Intel).
    static func widen(_ bits: UInt16) -> Float {
        let sign: UInt32 = UInt32(bits & 0x8000) << 16
        let exponent = UInt32(bits >> 10) & 0x1F
        let mantissa = UInt32(bits & 0x3FF)
        switch exponent {
        case 0:
            // Zero or subnormal: mantissa × 2^-24, exact in a Float.
            let magnitude = Float(mantissa) * 0x1p-24
            return sign == 0 ? magnitude : -magnitude
        case 0x1F:
            return Float(bitPattern: sign | 0x7F80_0000 | mantissa << 13)
        default:
            // Rebias the exponent from 15 to 127.
            return Float(bitPattern: sign | (exponent + 112) << 23 | mantissa << 13)
        }
    }

    /// The cosine distance (1 minus the cosine similarity) in Double: the reference the SQL answers are held to.
    static func cosineDistance(_ a: [Float], _ b: [Float]) -> Double {
        var dot = 0.0
        var normA = 0.0
        var normB = 0.0
        for (x, y) in zip(a, b) {
            dot += Double(x) * Double(y)
            normA += Double(x) * Double(x)
            normB += Double(y) * Double(y)
        }
        return 1 - dot / (normA.squareRoot() * normB.squareRoot())
    }

    /// The row ids (indices into `sentences`) of the `k` sentences nearest query `query`, by brute force in Double.
    func bruteForceNearest(query: Int, k: Int) -> [Int] {
        let distances = vectors.map { Self.cosineDistance($0, queryVectors[query]) }
        return Array(distances.indices.sorted { (distances[$0], $0) < (distances[$1], $1) }.prefix(k))
    }

    /// Stores the corpus in `table` (`id INTEGER PRIMARY KEY, e BLOB`), each vector a ``FloatVector``.
    func store(in db: Database, table: String) throws {
        try db.execute("CREATE TABLE \(table) (id INTEGER PRIMARY KEY, e BLOB NOT NULL)")
        try db.transaction { db in
            for (id, vector) in vectors.enumerated() {
                try db.execute("INSERT INTO \(table) (id, e) VALUES (?, ?)", id, FloatVector(vector))
            }
        }
    }

    /// The `k` nearest sentences of every query through sqlite-vec's `vec0` virtual table, for a `db` on which
    /// sqlite-vec is already loaded (the toolkit's extension loading; this file does not load anything). The tests
    /// hold its answers to ``bruteForceNearest(query:k:)`` and to the Swift `vec_distance_cosine`, as they do the
    /// Swift function's: one array of row ids per query, nearest first. `scripts/make-embeddings --check-vec0`
    /// runs this SQL through Python's `sqlite3` (sqlite-vec 0.1.9: the brute-force answer for all 20 queries).
    func nearestThroughVec0(in db: Database, k: Int) throws -> [[Int]] {
        try db.execute(
            "CREATE VIRTUAL TABLE sentence_vec USING vec0(embedding float[\(dimensions)] distance_metric=cosine)")
        try db.transaction { db in
            for (id, vector) in vectors.enumerated() {
                try db.execute("INSERT INTO sentence_vec (rowid, embedding) VALUES (?, ?)", id, FloatVector(vector))
            }
        }
        return try queryVectors.map { query in
            try db.query(
                "SELECT rowid FROM sentence_vec WHERE embedding MATCH ? AND k = ? ORDER BY distance",
                FloatVector(query), k
            ).map { try $0.value(at: 0, as: Int.self) }
        }
    }
}
