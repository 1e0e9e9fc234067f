import SQLiteBindings

extension Database {
    /// Defines `vec_distance_l2(a, b)` and `vec_distance_cosine(a, b)`, written in Swift with SIMD, for vectors
    /// stored as ``FloatVector`` BLOBs: the semantics of sqlite-vec's functions of those names, where no extension
    /// can load (an iOS app), so that a nearest-neighbour query by brute force works as it would with sqlite-vec.
    ///
    /// ```swift
    /// try db.createVectorDistanceFunctions()
    /// let nearest = try db.query(
    ///     "SELECT id FROM note ORDER BY vec_distance_cosine(embedding, ?) LIMIT 10", FloatVector(query))
    /// ```
    ///
    /// `vec_distance_l2` is the Euclidean distance (the square root of the sum of the squared differences);
    /// `vec_distance_cosine` is 1 minus the cosine similarity, NULL when either vector has a norm of 0. Both compute
    /// in 32-bit floats, as sqlite-vec does, and are deterministic and innocuous (usable in indexes and views). An
    /// argument that is not a BLOB of 4-byte floats (JSON text included, which sqlite-vec also reads), an empty
    /// vector, or vectors of different dimensions fail the statement with an error naming the function. Do not call this on a connection that loaded sqlite-vec: it would replace the
    /// extension's functions of the same names.
    ///
    /// - Throws: ``DatabaseError`` when the connection is closed.
    public func createVectorDistanceFunctions() throws {
        let options: FunctionOptions = [.deterministic, .innocuous]
        try createFunction("vec_distance_l2", argumentCount: 2, options: options) { context, arguments in
            try VectorDistance.compute("vec_distance_l2", arguments, context, VectorDistance.l2)
        }
        try createFunction("vec_distance_cosine", argumentCount: 2, options: options) { context, arguments in
            try VectorDistance.compute("vec_distance_cosine", arguments, context, VectorDistance.cosine)
        }
    }
}

/// The distances of ``Database/createVectorDistanceFunctions()``, over the float32 BLOBs SQLite hands the function
/// (read in place, at any alignment).
enum VectorDistance {
    /// Reads the two arguments, checks them, and sets the distance `measure` gives as the result (NULL for `nil`).
    static func compute(
        _ name: String, _ arguments: FunctionArguments, _ context: FunctionContext,
        _ measure: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Float?
    ) throws {
        let first = arguments[0]
        let second = arguments[1]
        guard first.valueType() == .blob, second.valueType() == .blob else {
            throw DatabaseError.mismatch(
                "\(name): both arguments must be BLOBs of 4-byte floats", reason: .valueMismatch)
        }
        let a = first.valueDataNoCopy()
        let b = second.valueDataNoCopy()
        guard a.count % 4 == 0, b.count % 4 == 0 else {
            throw DatabaseError.mismatch(
                "\(name): a vector is a BLOB of 4-byte floats (got \(a.count) and \(b.count) bytes)",
                reason: .valueMismatch)
        }
        guard a.count > 0, b.count > 0 else {
            throw DatabaseError.mismatch("\(name): zero-length vectors are not supported", reason: .valueMismatch)
        }
        guard a.count == b.count else {
            throw DatabaseError.mismatch(
                "\(name): the vectors have \(a.count / 4) and \(b.count / 4) dimensions", reason: .valueMismatch)
        }
        if let distance = measure(a, b) {
            context.resultDouble(Double(distance))
        } else {
            context.resultNull()
        }
    }

    /// The Euclidean distance of two vectors of as many floats.
    static func l2(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Float? {
        let count = a.count / 4
        var sums = SIMD16<Float>()
        var index = 0
        while index + 16 <= count {
            let difference = load16(a, index) - load16(b, index)
            sums += difference * difference
            index += 16
        }
        var sum = sums.sum()
        while index < count {
            let difference = load(a, index) - load(b, index)
            sum += difference * difference
            index += 1
        }
        return sum.squareRoot()
    }

    /// 1 minus the cosine similarity of two vectors of as many floats; `nil` when a norm is 0.
    static func cosine(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Float? {
        let count = a.count / 4
        var dots = SIMD16<Float>()
        var normsA = SIMD16<Float>()
        var normsB = SIMD16<Float>()
        var index = 0
        while index + 16 <= count {
            let x = load16(a, index)
            let y = load16(b, index)
            dots += x * y
            normsA += x * x
            normsB += y * y
            index += 16
        }
        var dot = dots.sum()
        var normA = normsA.sum()
        var normB = normsB.sum()
        while index < count {
            let x = load(a, index)
            let y = load(b, index)
            dot += x * y
            normA += x * x
            normB += y * y
            index += 1
        }
        guard normA > 0, normB > 0 else { return nil }
        return 1 - dot / (normA.squareRoot() * normB.squareRoot())
    }

    @inline(__always)
    private static func load16(_ bytes: UnsafeRawBufferPointer, _ index: Int) -> SIMD16<Float> {
        #if _endian(little)
            bytes.loadUnaligned(fromByteOffset: index * 4, as: SIMD16<Float>.self)
        #else
            SIMD16<Float>((0..<16).map { load(bytes, index + $0) })
        #endif
    }

    @inline(__always)
    private static func load(_ bytes: UnsafeRawBufferPointer, _ index: Int) -> Float {
        Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)))
    }
}
