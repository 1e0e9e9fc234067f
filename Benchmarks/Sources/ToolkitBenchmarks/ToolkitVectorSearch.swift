import Foundation
import SQLiteToolkit

/// The `vector-search` benchmark through SQLiteToolkit: the 10 nearest of `count` random vectors, by brute force
/// with the Swift `vec_distance_l2`, by brute force with sqlite-vec's, and through a `vec0` table's k-NN query.
public final class ToolkitVectorSearch {
    /// The database file, kept for the Python side of the benchmark.
    public let path: String
    private let swiftFunctions: Database
    private let sqliteVec: Database?

    /// Writes `count` random vectors of `dimensions` floats (and `queries` query vectors) into a new file at
    /// `path`, in a plain table and, when `vec0Path` is given, in a `vec0` table too.
    public init(path: String, count: Int, dimensions: Int, queries: Int, vec0Path: String?) throws {
        self.path = path
        var generator = SystemRandomNumberGenerator()
        func randomVector() -> FloatVector {
            FloatVector((0..<dimensions).map { _ in Float.random(in: -1...1, using: &generator) })
        }
        let writer = try Database(path: path)
        if let vec0Path { try writer.loadExtension(atPath: vec0Path) }
        try writer.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, e BLOB NOT NULL)")
        try writer.execute("CREATE TABLE query (id INTEGER PRIMARY KEY, e BLOB NOT NULL)")
        if vec0Path != nil {
            try writer.execute("CREATE VIRTUAL TABLE vec_item USING vec0(embedding float[\(dimensions)])")
        }
        try writer.transaction { db in
            let insert = try db.prepare("INSERT INTO item (id, e) VALUES (?, ?)")
            let insertVec =
                vec0Path == nil ? nil : try db.prepare("INSERT INTO vec_item (rowid, embedding) VALUES (?, ?)")
            for id in 1...count {
                let vector = randomVector()
                try insert.execute(id, vector)
                try insertVec?.execute(id, vector)
            }
            for id in 1...queries { try db.execute("INSERT INTO query (id, e) VALUES (?, ?)", id, randomVector()) }
        }
        writer.close()
        swiftFunctions = try Database(path: path)
        try swiftFunctions.createVectorDistanceFunctions()
        if let vec0Path {
            let db = try Database(path: path)
            try db.loadExtension(atPath: vec0Path)
            sqliteVec = db
        } else {
            sqliteVec = nil
        }
    }

    /// The query vectors.
    public func queries() throws -> [FloatVector] {
        try swiftFunctions.query("SELECT e FROM query ORDER BY id").map { try $0.value(at: 0, as: FloatVector.self) }
    }

    static let bruteForce = "SELECT id FROM item ORDER BY vec_distance_l2(e, ?) LIMIT 10"

    /// The 10 nearest by brute force with the Swift function.
    public func swiftBruteForce(_ query: FloatVector) throws -> [Int64] {
        try swiftFunctions.query(Self.bruteForce, query).map { try $0.value(at: 0, as: Int64.self) }
    }

    /// The 10 nearest by brute force with sqlite-vec's `vec_distance_l2`.
    public func sqliteVecBruteForce(_ query: FloatVector) throws -> [Int64]? {
        try sqliteVec?.query(Self.bruteForce, query).map { try $0.value(at: 0, as: Int64.self) }
    }

    /// The 10 nearest through the `vec0` table's k-NN query.
    public func vec0Nearest(_ query: FloatVector) throws -> [Int64]? {
        try sqliteVec?.query(
            "SELECT rowid FROM vec_item WHERE embedding MATCH ? AND k = 10 ORDER BY distance", query
        ).map { try $0.value(at: 0, as: Int64.self) }
    }

    /// Closes the connections.
    public func close() {
        swiftFunctions.close()
        sqliteVec?.close()
    }
}
