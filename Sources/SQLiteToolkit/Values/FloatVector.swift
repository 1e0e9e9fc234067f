import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A vector of 32-bit floats, stored as a BLOB of their little-endian bytes: the layout sqlite-vec's `vec0` tables
/// and `vec_distance_*` functions read, and the one ``Database/createVectorDistanceFunctions()`` reads.
///
/// ```swift
/// let embedding = FloatVector([0.1, 0.2, 0.3])
/// try db.execute("INSERT INTO note (body, embedding) VALUES (?, ?)", "Hello", embedding)
/// let stored = try db.queryValue("SELECT embedding FROM note", as: FloatVector.self)
/// ```
///
/// Binding copies the floats once (SQLite copies the bytes), and reading copies them once, from SQLite's buffer
/// into the array. A stored value that is not a BLOB of a multiple of 4 bytes reads as
/// ``DatabaseError/Reason/valueMismatch``.
public struct FloatVector: Sendable, Hashable {
    /// The floats.
    public var values: [Float]

    /// A vector of `values`.
    public init(_ values: [Float]) {
        self.values = values
    }

    /// The number of dimensions.
    public var count: Int { values.count }

    /// The stored bytes: each float's bits, least significant byte first.
    var littleEndianBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count * 4)
        for value in values {
            let bits = value.bitPattern.littleEndian
            withUnsafeBytes(of: bits) { bytes.append(contentsOf: $0) }
        }
        return bytes
    }

    /// The floats of `bytes`, `nil` when their count is not a multiple of 4.
    static func decode(_ bytes: UnsafeRawBufferPointer) -> [Float]? {
        guard bytes.count % 4 == 0 else { return nil }
        let count = bytes.count / 4
        return [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            #if _endian(little)
                if count > 0, let base = buffer.baseAddress, let source = bytes.baseAddress {
                    UnsafeMutableRawPointer(base).copyMemory(from: source, byteCount: count * 4)
                }
            #else
                for index in 0..<count {
                    let bits = bytes.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)
                    buffer[index] = Float(bitPattern: UInt32(littleEndian: bits))
                }
            #endif
            initialized = count
        }
    }

    static func mismatch(byteCount: Int) -> DatabaseError {
        DatabaseError.mismatch(
            "a FloatVector is a BLOB of 4-byte floats; the stored BLOB has \(byteCount) bytes", reason: .valueMismatch)
    }
}

extension FloatVector: DatabaseValueConvertible {
    /// The value as `.blob` of the floats' little-endian bytes.
    public var databaseValue: DatabaseValue { .blob(Data(littleEndianBytes)) }

    /// The floats of a BLOB whose size is a multiple of 4; `nil` for anything else.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> FloatVector? {
        guard case .blob(let data) = value else { return nil }
        return data.withUnsafeBytes { decode($0) }.map(FloatVector.init)
    }

    /// Binds the floats' bytes as a BLOB; SQLite copies them.
    public func bind(to statement: StatementHandle, at index: Int32) throws {
        #if _endian(little)
            let code = values.withUnsafeBytes { statement.bindBlob(index, $0) }
        #else
            let code = littleEndianBytes.withUnsafeBytes { statement.bindBlob(index, $0) }
        #endif
        try check(bind: code, at: index, of: statement)
    }

    /// Reads the BLOB of column `index` (0-based) straight into the floats.
    public static func read(from statement: StatementHandle, at index: Int32) throws -> FloatVector {
        switch statement.columnType(index) {
        case .blob:
            let bytes = statement.columnBlobNoCopy(index)
            guard let values = decode(bytes) else { throw mismatch(byteCount: bytes.count) }
            return FloatVector(values)
        case .null:
            return try readNull()
        default:
            throw DatabaseError.mismatch(
                "a FloatVector is read from a BLOB of 4-byte floats; the column holds \(statement.columnType(index))",
                reason: .valueMismatch)
        }
    }
}
