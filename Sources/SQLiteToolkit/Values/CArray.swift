import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A Swift array bound as one parameter: the argument of SQLite's `carray()` table-valued function, which yields
/// one row per element. The answer to `IN` lists of any length, without one SQL variable per element.
///
/// ```swift
/// let ids: [Int64] = [3, 1, 4]
/// let names = try db.query("SELECT name FROM player WHERE id IN carray(?)", CArray(ids))
///     .map { try $0.value(at: 0, as: String.self) }
/// let same = try db.query(sql: "SELECT name FROM player WHERE id IN carray(\(ids))")  // interpolated
/// ```
///
/// SQLite copies the elements when the array is bound, so the array need not outlive the call. Elements are 64-
/// or 32-bit integers, doubles, text or BLOBs; `carray()` yields them with its column `value`. Text holding a NUL
/// character cannot be bound (SQLite reads C strings) and throws ``DatabaseError/Reason/embeddedNUL(offset:)``.
///
/// A `CArray` binds only as the one argument of `carray()`: anywhere else SQL reads it as NULL, and `carray()`
/// given a second or third argument (the C form's count and type) yields no row. Through SQL interpolation, an
/// array that is not the only argument of `carray(…)` throws when the SQL runs; bound through typed arguments or
/// ``StatementArguments`` (positional only: a named one throws), the SQL is the caller's to get right.
///
/// Related SQLite documentation: <https://sqlite.org/carray.html>
public struct CArray: Sendable, Hashable {
    enum Elements: Sendable, Hashable {
        case int32([Int32])
        case int64([Int64])
        case double([Double])
        case text([String])
        case blob([[UInt8]])
    }

    let elements: Elements

    /// 64-bit integers.
    public init(_ values: [Int64]) { elements = .int64(values) }

    /// Integers, bound as 64-bit integers.
    public init(_ values: [Int]) { elements = .int64(values.map { Int64($0) }) }

    /// 32-bit integers, bound as such (half the memory of 64-bit ones).
    public init(_ values: [Int32]) { elements = .int32(values) }

    /// Doubles.
    public init(_ values: [Double]) { elements = .double(values) }

    /// Text, bound as UTF-8.
    public init(_ values: [String]) { elements = .text(values) }

    /// BLOBs.
    public init(_ values: [[UInt8]]) { elements = .blob(values) }

    /// BLOBs.
    public init(_ values: [Data]) { elements = .blob(values.map { [UInt8]($0) }) }

    /// The number of elements.
    public var count: Int {
        switch elements {
        case .int32(let values): values.count
        case .int64(let values): values.count
        case .double(let values): values.count
        case .text(let values): values.count
        case .blob(let values): values.count
        }
    }

    /// Why an array cannot be a named argument of ``StatementArguments``.
    static let namedArgumentProblem =
        "a CArray binds as a positional argument (or through execute's and query's typed arguments), not a named one"

    /// Why an interpolated array that does not follow `carray(` cannot be bound.
    static let outsideCArrayProblem =
        "an interpolated array binds only as carray()'s argument: write carray(\\(values)), where SQL would read it as NULL"

    /// Why an interpolated array followed by more than `)` cannot be bound: `carray()` with two or three arguments
    /// reads another kind of pointer, and yields no row.
    static let extraArgumentsProblem =
        "an interpolated array is carray()'s only argument: carray(\\(values)) binds it, carray(\\(values), …) reads nothing"

    /// Whether SQL `text`, to which the array's `?` is appended next, ends with `carray(`: the name in any ASCII
    /// case, bare or quoted (`"carray"`, `[carray]`, `` `carray` ``), not the end of a longer name, with white
    /// space and `/* … */` comments allowed around it, as the one place the array means something.
    static func followsCArray(_ text: String) -> Bool {
        var rest = Substring(text)
        skipSpaceAndComments(&rest)
        guard rest.last == "(" else { return false }
        rest.removeLast()
        skipSpaceAndComments(&rest)
        let quotes: [Character: Character] = ["\"": "\"", "]": "[", "`": "`"]
        if let last = rest.last, let open = quotes[last] {
            rest.removeLast()
            guard rest.lowercased().hasSuffix("carray") else { return false }
            return rest.dropLast(6).last == open
        }
        guard rest.lowercased().hasSuffix("carray") else { return false }
        // A longer name that ends with carray (not_carray) is another function.
        guard let before = rest.dropLast(6).last else { return true }
        return !(before.isLetter || before.isNumber || before == "_" || before == "$")
    }

    /// Drops white space and `/* … */` comments from the end of `text`.
    private static func skipSpaceAndComments(_ text: inout Substring) {
        while true {
            while let last = text.last, last.isWhitespace { text.removeLast() }
            guard text.hasSuffix("*/") else { return }
            var body = text.dropLast(2)
            while !body.isEmpty && !body.hasSuffix("/*") { body.removeLast() }
            guard body.hasSuffix("/*") else { return }
            text = body.dropLast(2)
        }
    }

    /// Whether the SQL `text` that follows an interpolated array (up to the next interpolation) closes `carray(`
    /// at once: white space and comments aside, it starts with `)`.
    static func closesCArray(_ text: Substring) -> Bool {
        var rest = text
        while true {
            while let first = rest.first, first.isWhitespace { rest.removeFirst() }
            guard rest.hasPrefix("/*") else { break }
            var body = rest.dropFirst(2)
            while !body.isEmpty && !body.hasPrefix("*/") { body.removeFirst() }
            guard body.hasPrefix("*/") else { break }
            rest = body.dropFirst(2)
        }
        return rest.first == ")"
    }
}

extension CArray: DatabaseValueConvertible {
    /// An array has no single stored value: NULL, which is also what SQL reads outside `carray()`.
    public var databaseValue: DatabaseValue { .null }

    /// Always `nil`: SQLite never stores an array.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> CArray? { nil }

    /// Binds the elements with `sqlite3_carray_bind`; SQLite copies them before this returns.
    public func bind(to statement: StatementHandle, at index: Int32) throws {
        let code: ResultCode
        switch elements {
        case .int32(let values):
            code = Self.bind(values, type: .int32, to: statement, at: index)
        case .int64(let values):
            code = Self.bind(values, type: .int64, to: statement, at: index)
        case .double(let values):
            code = Self.bind(values, type: .double, to: statement, at: index)
        case .text(let values):
            code = try Self.bindText(values, to: statement, at: index)
        case .blob(let values):
            code = Self.bindBlobs(values, to: statement, at: index)
        }
        try check(bind: code, at: index, of: statement)
    }

    /// A byte the empty arrays point to: SQLite cannot copy an empty array, so it reads this one in place (it
    /// reads none of it).
    private nonisolated(unsafe) static let emptyElements = UnsafeMutableRawPointer.allocate(byteCount: 8, alignment: 8)

    private static func bindEmpty(type: CArrayType, to statement: StatementHandle, at index: Int32) -> ResultCode {
        statement.bindCArray(index, emptyElements, count: 0, type: type, destructor: nil)
    }

    private static func bind<T>(_ values: [T], type: CArrayType, to statement: StatementHandle, at index: Int32)
        -> ResultCode
    {
        guard !values.isEmpty else { return bindEmpty(type: type, to: statement, at: index) }
        guard let count = Int32(exactly: values.count) else { return .toobig }
        return values.withUnsafeBufferPointer { buffer in
            statement.bindCArray(index, UnsafeMutableRawPointer(mutating: buffer.baseAddress), count: count, type: type)
        }
    }

    /// Lays the strings out as C strings, one after the other, with an array of their addresses, for SQLite to
    /// copy.
    private static func bindText(_ values: [String], to statement: StatementHandle, at index: Int32) throws
        -> ResultCode
    {
        guard !values.isEmpty else { return bindEmpty(type: .text, to: statement, at: index) }
        guard let count = Int32(exactly: values.count) else { return .toobig }
        var bytes: [UInt8] = []
        var offsets: [Int] = []
        offsets.reserveCapacity(values.count)
        for (position, value) in values.enumerated() {
            if let nul = value.utf8.firstIndex(of: 0) {
                let offset = value.utf8.distance(from: value.utf8.startIndex, to: nul)
                throw DatabaseError(
                    extendedCode: .misuse,
                    message: "element \(position) of a CArray of text holds a NUL character at byte \(offset)",
                    reason: .embeddedNUL(offset: offset))
            }
            offsets.append(bytes.count)
            bytes.append(contentsOf: value.utf8)
            bytes.append(0)
        }
        return bytes.withUnsafeBufferPointer { text in
            guard let base = text.baseAddress else { return ResultCode.misuse }
            var pointers = offsets.map { Optional(base + $0) }
            return pointers.withUnsafeMutableBufferPointer { addresses in
                statement.bindCArray(index, UnsafeMutableRawPointer(addresses.baseAddress), count: count, type: .text)
            }
        }
    }

    private static func bindBlobs(_ values: [[UInt8]], to statement: StatementHandle, at index: Int32) -> ResultCode {
        guard !values.isEmpty else { return bindEmpty(type: .blob, to: statement, at: index) }
        guard let count = Int32(exactly: values.count) else { return .toobig }
        // One buffer for every blob, so that each address stays valid while SQLite copies them.
        let bytes = values.flatMap { $0 }
        var offsets: [Int] = []
        offsets.reserveCapacity(values.count)
        var offset = 0
        for value in values {
            offsets.append(offset)
            offset += value.count
        }
        let lengths = values.map { Int64($0.count) }
        return bytes.withUnsafeBufferPointer { buffer in
            // An address for an empty buffer too: a zero-length BLOB is not a NULL one.
            let base = UnsafeRawPointer(buffer.baseAddress) ?? UnsafeRawPointer(emptyElements)
            var addresses: [UnsafeRawPointer?] = offsets.map { base + $0 }
            return addresses.withUnsafeMutableBufferPointer { data in
                lengths.withUnsafeBufferPointer { lengths in
                    statement.bindCArrayOfBlobs(
                        index, data: data.baseAddress, lengths: lengths.baseAddress, count: count)
                }
            }
        }
    }
}
