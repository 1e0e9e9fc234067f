import Foundation
import SQLiteToolkit
import Testing

/// Nearest-neighbour queries over real sentence embeddings (all-MiniLM-L6-v2, made by `scripts/make-embeddings`;
/// the fixture's format is in `EmbeddingFixture`): the Swift `vec_distance_cosine` in `ORDER BY … LIMIT 10` gives
/// the brute-force answer in Double, and that answer makes sense for the sentences.
@Suite("Nearest neighbours over real sentence embeddings")
struct EmbeddingFixtureTests {
    @Test("half-precision bit patterns widen to the Floats they stand for")
    func widening() {
        let cases: [(UInt16, Float)] = [
            (0x0000, 0), (0x3C00, 1), (0xC000, -2), (0x3555, 0x1.554p-2), (0x7BFF, 65504), (0x0001, 0x1p-24),
            (0x03FF, 0x1.FF8p-15), (0x0400, 0x1p-14), (0x7C00, .infinity), (0xFC00, -.infinity),
        ]
        for (bits, expected) in cases {
            #expect(EmbeddingFixture.widen(bits) == expected, "0x\(String(bits, radix: 16))")
        }
        #expect(EmbeddingFixture.widen(0x8000).bitPattern == (-0.0 as Float).bitPattern)
        #expect(EmbeddingFixture.widen(0x7E00).isNaN)
    }

    @Test("the fixture holds 2,000 sentences in ten topics and 20 queries, as unit vectors of 384 dimensions")
    func fixtureShape() throws {
        let fixture = try EmbeddingFixture.shared.get()
        #expect(fixture.dimensions == 384)
        #expect(fixture.sentences.count == 2_000)
        #expect(fixture.queries.count == 20)
        #expect(Set(fixture.sentences.map(\.topic)).count == 10)
        #expect(Set(fixture.sentences.map(\.text)).count == fixture.sentences.count)
        // The model normalizes; half precision moves a norm by well under 0.002.
        for vector in fixture.vectors + fixture.queryVectors {
            let norm = vector.reduce(0.0) { $0 + Double($1) * Double($1) }.squareRoot()
            #expect(abs(norm - 1) < 0.002)
        }
    }

    @Test("ORDER BY vec_distance_cosine(e, ?) LIMIT 10 gives the brute-force top 10 for every query")
    func swiftFunctionAgreesWithBruteForce() throws {
        let fixture = try EmbeddingFixture.shared.get()
        let db = try Database()
        try db.createVectorDistanceFunctions()
        try fixture.store(in: db, table: "t")
        for (query, sentence) in fixture.queries.enumerated() {
            let found = try db.query(
                "SELECT id FROM t ORDER BY vec_distance_cosine(e, ?) LIMIT 10", FloatVector(fixture.queryVectors[query])
            ).map { try $0.value(at: 0, as: Int.self) }
            #expect(found == fixture.bruteForceNearest(query: query, k: 10), "\(sentence.text)")
        }
    }

    @Test(
        "sqlite-vec's vec0 k-NN, loaded through the toolkit, gives the same top 10 as the Swift function and the brute force",
        .enabled(if: ExtensionPeers.sqliteVec != nil, "sqlite-vec missing: run scripts/install-test-peers"))
    func vec0AgreesWithSwiftFunction() throws {
        let fixture = try EmbeddingFixture.shared.get()
        let db = try Database()
        try db.loadExtension(atPath: try #require(ExtensionPeers.sqliteVec))
        let throughVec0 = try fixture.nearestThroughVec0(in: db, k: 10)
        let plain = try Database()
        try plain.createVectorDistanceFunctions()
        try fixture.store(in: plain, table: "t")
        for (query, sentence) in fixture.queries.enumerated() {
            let throughSwift = try plain.query(
                "SELECT id FROM t ORDER BY vec_distance_cosine(e, ?) LIMIT 10", FloatVector(fixture.queryVectors[query])
            ).map { try $0.value(at: 0, as: Int.self) }
            #expect(throughVec0[query] == throughSwift, "\(sentence.text)")
            #expect(throughVec0[query] == fixture.bruteForceNearest(query: query, k: 10), "\(sentence.text)")
        }
    }

    @Test("the nearest sentences share the query's topic")
    func nearestMakeSense() throws {
        let fixture = try EmbeddingFixture.shared.get()
        let db = try Database()
        try db.createVectorDistanceFunctions()
        try fixture.store(in: db, table: "t")
        func nearest(_ text: String) throws -> [EmbeddingFixture.Sentence] {
            let query = try #require(fixture.queries.firstIndex { $0.text == text }, "\(text) is a query")
            return try db.query(
                "SELECT id FROM t ORDER BY vec_distance_cosine(e, ?) LIMIT 10", FloatVector(fixture.queryVectors[query])
            ).map { fixture.sentences[try $0.value(at: 0, as: Int.self)] }
        }
        // Every query: most of its ten nearest come from its topic's templates (10 of 10 for all but the
        // gardening query, whose vegetables in the garden also draw in three cooking sentences of roasted
        // vegetables with herbs from the garden: 7 of 10).
        for query in fixture.queries {
            let sameTopic = try nearest(query.text).filter { $0.topic == query.topic }.count
            #expect(sameTopic >= 7, "\(query.text): \(sameTopic) of 10 in \(query.topic)")
        }
        // Questions about the weather find only weather sentences, rain finds rain, bread finds bread.
        for text in ["It is raining heavily outside.", "What will the weather be like tomorrow?"] {
            #expect(try nearest(text).allSatisfy { $0.topic == "weather" }, "\(text)")
        }
        #expect(try nearest("It is raining heavily outside.").first?.text.contains("rain") == true)
        #expect(try nearest("How do I bake a loaf of bread?").first?.text.contains("bread") == true)
        #expect(try nearest("Which team won the football game?").allSatisfy { $0.topic == "sports" })
    }
}
