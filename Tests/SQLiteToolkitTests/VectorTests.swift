import Foundation
import SQLiteToolkit
import Testing

/// `FloatVector` stored and read back, and the Swift `vec_distance_l2` and `vec_distance_cosine` against the same
/// distances computed in Double by a plain loop, and a nearest-neighbour query against a sort in Swift.
@Suite("Float vectors and the Swift distance functions")
struct VectorTests {
    static func randomVector(_ dimensions: Int, _ random: inout SeededRandom) -> [Float] {
        (0..<dimensions).map { _ in Float.random(in: -1...1, using: &random) }
    }

    static func l2(_ a: [Float], _ b: [Float]) -> Double {
        zip(a, b).reduce(0.0) { $0 + Double($1.0 - $1.1) * Double($1.0 - $1.1) }.squareRoot()
    }

    static func cosine(_ a: [Float], _ b: [Float]) -> Double {
        let dot = zip(a, b).reduce(0.0) { $0 + Double($1.0) * Double($1.1) }
        let normA = a.reduce(0.0) { $0 + Double($1) * Double($1) }.squareRoot()
        let normB = b.reduce(0.0) { $0 + Double($1) * Double($1) }.squareRoot()
        return 1 - dot / (normA * normB)
    }

    @Test("a FloatVector is stored as the floats' little-endian bytes and read back exactly")
    func roundTrip() throws {
        let db = try Database()
        try db.execute("CREATE TABLE v (id INTEGER PRIMARY KEY, e BLOB)")
        let values: [Float] = [0, -0.0, 1.5, -2.25, .greatestFiniteMagnitude, .leastNonzeroMagnitude, .infinity]
        try db.execute("INSERT INTO v (id, e) VALUES (1, ?)", FloatVector(values))
        #expect(try db.queryValue("SELECT e FROM v", as: FloatVector.self)?.values == values)
        // 1.5 is 0x3FC00000: its bytes, least significant first.
        #expect(try db.queryValue("SELECT hex(?)", FloatVector([1.5]), as: String.self) == "0000C03F")
        #expect(try db.queryValue("SELECT length(e) FROM v", as: Int.self) == values.count * 4)
        try db.execute("INSERT INTO v (id, e) VALUES (2, ?)", FloatVector([]))
        #expect(try db.queryValue("SELECT e FROM v WHERE id = 2", as: FloatVector.self)?.values == [])
        // Through DatabaseValue too.
        #expect(FloatVector.fromDatabaseValue(FloatVector(values).databaseValue)?.values == values)
    }

    @Test("what is not a BLOB of 4-byte floats reads as valueMismatch; NULL reads only as an optional")
    func readErrors() throws {
        let db = try Database()
        for sql in ["SELECT x'010203'", "SELECT 'text'", "SELECT 1.5"] {
            let error = #expect(throws: DatabaseError.self) { _ = try db.queryValue(sql, as: FloatVector.self) }
            #expect(error?.reason == .valueMismatch, "\(sql)")
        }
        #expect(throws: DatabaseError.self) { _ = try db.queryRequiredValue("SELECT NULL", as: FloatVector.self) }
        #expect(try db.queryValue("SELECT NULL", as: FloatVector?.self) == .some(nil))
    }

    @Test("the Swift distances agree with a plain loop in Double, for every dimension count up to 70", arguments: [7])
    func distancesAgree(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let db = try Database()
        try db.createVectorDistanceFunctions()
        for dimensions in 1...70 {
            let a = Self.randomVector(dimensions, &random)
            let b = Self.randomVector(dimensions, &random)
            let l2 = try #require(
                try db.queryValue("SELECT vec_distance_l2(?, ?)", FloatVector(a), FloatVector(b), as: Double.self))
            let cosine = try #require(
                try db.queryValue("SELECT vec_distance_cosine(?, ?)", FloatVector(a), FloatVector(b), as: Double.self))
            #expect(abs(l2 - Self.l2(a, b)) <= 1e-5 * max(1, Self.l2(a, b)), "l2, \(dimensions) dimensions")
            #expect(abs(cosine - Self.cosine(a, b)) <= 1e-5, "cosine, \(dimensions) dimensions")
        }
        // The distance of a vector to itself.
        let a = FloatVector(Self.randomVector(384, &random))
        #expect(try db.queryValue("SELECT vec_distance_l2(?, ?)", a, a, as: Double.self) == 0)
        #expect(abs(try db.queryValue("SELECT vec_distance_cosine(?, ?)", a, a, as: Double.self) ?? 1) < 1e-6)
        // Cosine of a zero vector has no value: NULL.
        let zero = FloatVector([0, 0, 0])
        #expect(try db.queryValue("SELECT vec_distance_cosine(?, ?) IS NULL", zero, zero, as: Bool.self) == true)
    }

    @Test("arguments that are not vectors of the same dimensions fail the statement, naming the function")
    func distanceErrors() throws {
        let db = try Database()
        try db.createVectorDistanceFunctions()
        let cases: [(String, String)] = [
            ("SELECT vec_distance_l2('[1,2]', x'0000803f0000803f')", "BLOBs"),
            ("SELECT vec_distance_l2(x'000080', x'000080')", "4-byte floats"),
            ("SELECT vec_distance_cosine(x'0000803f', x'0000803f0000803f')", "1 and 2 dimensions"),
            ("SELECT vec_distance_cosine(NULL, x'0000803f')", "BLOBs"),
        ]
        for (sql, expected) in cases {
            let error = #expect(throws: DatabaseError.self) { _ = try db.queryValue(sql, as: Double.self) }
            #expect(error?.message.contains(expected) == true, "\(sql): \(error?.message ?? "")")
            #expect(error?.message.contains("vec_distance_") == true)
        }
    }

    @Test("ORDER BY vec_distance_l2 LIMIT k finds the k vectors a sort in Swift finds", arguments: [11, 12])
    func nearestNeighbours(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let db = try Database()
        try db.createVectorDistanceFunctions()
        try db.execute("CREATE TABLE note (id INTEGER PRIMARY KEY, embedding BLOB NOT NULL)")
        var vectors: [[Float]] = []
        try db.transaction { db in
            for id in 0..<2_000 {
                let vector = Self.randomVector(48, &random)
                vectors.append(vector)
                try db.execute("INSERT INTO note VALUES (?, ?)", id, FloatVector(vector))
            }
        }
        let query = Self.randomVector(48, &random)
        for (function, distance) in [("vec_distance_l2", Self.l2), ("vec_distance_cosine", Self.cosine)] {
            let found = try db.query(
                "SELECT id FROM note ORDER BY \(function)(embedding, ?) LIMIT 10", FloatVector(query)
            ).map { try $0.value(at: 0, as: Int.self) }
            let expected = vectors.indices.sorted { distance(vectors[$0], query) < distance(vectors[$1], query) }
            #expect(found == Array(expected.prefix(10)), "\(function), seed \(seed)")
        }
    }
}
