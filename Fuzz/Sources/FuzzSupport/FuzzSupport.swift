import Foundation
import SQLiteToolkit

/// The bytes of one fuzz input, consumed from the front.
public struct FuzzInput {
    private var bytes: ArraySlice<UInt8>

    /// The input's bytes, copied.
    public init(_ data: UnsafeRawBufferPointer) {
        bytes = ArraySlice(data)
    }

    /// Whether every byte was consumed.
    public var isEmpty: Bool { bytes.isEmpty }

    /// The next byte, or 0 at the end.
    public mutating func byte() -> UInt8 {
        bytes.popFirst() ?? 0
    }

    /// Up to `count` bytes.
    public mutating func take(_ count: Int) -> [UInt8] {
        let taken = bytes.prefix(count)
        bytes = bytes.dropFirst(taken.count)
        return Array(taken)
    }

    /// The bytes up to the next NUL (dropped), or all that remain.
    public mutating func takeUntilNUL() -> [UInt8] {
        let end = bytes.firstIndex(of: 0) ?? bytes.endIndex
        let taken = Array(bytes[bytes.startIndex..<end])
        bytes = bytes[end...].dropFirst()
        return taken
    }

    /// The next 8 bytes (fewer at the end) as a big-endian integer.
    public mutating func int64() -> Int64 {
        take(8).reduce(0) { ($0 << 8) | Int64($1) }
    }

    /// A value of any storage class, with the extremes made likely.
    public mutating func value() -> DatabaseValue {
        switch byte() % 8 {
        case 0: return .null
        case 1: return .integer(int64())
        case 2: return .integer([Int64.min, Int64.max, 0, -1, 1][Int(byte() % 5)])
        case 3: return .real(Double(bitPattern: UInt64(bitPattern: int64())))
        case 4, 5:
            let length = Int(byte())
            return .text(String(decoding: take(length), as: UTF8.self))
        default:
            let length = Int(byte())
            return .blob(Data(take(length)))
        }
    }
}

/// A connection for one input: in memory, with limits that keep a hostile input from running for long or
/// allocating without bound, and no way to reach other files.
public func fuzzDatabase() throws -> Database {
    let db = try Database()
    if let handle = db.handle {
        _ = handle.limit(.length, 1 << 20)
        _ = handle.limit(.sqlLength, 1 << 20)
        _ = handle.limit(.attached, 0)
        _ = handle.setAuthorizer { action, _, _, _, _ in action == .attach ? .deny : .ok }
    }
    var steps = 0
    try db.setProgressHandler(every: 1000) {
        steps += 1
        return steps > 2000  // about two million virtual machine instructions per input
    }
    return db
}

/// Reads column `index` of `row` as every standard type, plain and optional. Every failure must be a
/// `DatabaseError`; anything else stops the fuzzer.
public func readEveryType(_ row: Row, at index: Int) {
    func attempt<T: DatabaseValueConvertible>(_: T.Type) {
        do {
            _ = try row.value(at: index, as: T.self)
            _ = try row.value(at: index, as: T?.self)
        } catch is DatabaseError {
        } catch {
            fatalError("reading \(T.self) threw \(type(of: error)), not DatabaseError")
        }
    }
    attempt(Int.self)
    attempt(Int8.self)
    attempt(Int16.self)
    attempt(Int32.self)
    attempt(Int64.self)
    attempt(UInt.self)
    attempt(UInt8.self)
    attempt(UInt16.self)
    attempt(UInt32.self)
    attempt(UInt64.self)
    attempt(Double.self)
    attempt(Float.self)
    attempt(Bool.self)
    attempt(String.self)
    attempt(Data.self)
    attempt([UInt8].self)
    attempt(Date.self)
    attempt(ISO8601Date.self)
    attempt(UUID.self)
    attempt(DatabaseValue.self)
    _ = row.values
    _ = row.dictionary
}
