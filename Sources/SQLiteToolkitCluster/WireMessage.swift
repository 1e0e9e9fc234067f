import SQLiteToolkit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// dqlite's wire protocol, version 1: a message is an 8-byte header (body size in 8-byte words, type, schema
/// version, two unused bytes) and a body of little-endian fields, each padded to a word.
enum Wire {
    static let protocolVersion: UInt64 = 1

    /// Request types.
    enum Request: UInt8 {
        case leader = 0
        case open = 3
        case execSQL = 8
        case querySQL = 9
    }

    /// Response types.
    enum Response: UInt8 {
        case failure = 0
        case node = 1
        case welcome = 2
        case nodes = 3
        case database = 4
        case statement = 5
        case result = 6
        case rows = 7
        case empty = 8
    }

    /// Value types of parameters and row columns.
    enum ValueType: UInt8 {
        case integer = 1
        case float = 2
        case text = 3
        case blob = 4
        case null = 5
        case unixTime = 9
        case iso8601 = 10
        case boolean = 11
    }

    /// The codes of a node that is not the leader and ran nothing (`SQLITE_IOERR_NOT_LEADER`, and its number before
    /// dqlite 1.0).
    static let notLeaderCodes: Set<UInt64> = [10 | 40 << 8, 10 | 32 << 8]
    /// The codes of a leader that stepped down while a commit waited for a majority (`SQLITE_IOERR_LEADERSHIP_LOST`,
    /// and its number before dqlite 1.0).
    static let leadershipLostCodes: Set<UInt64> = [10 | 41 << 8, 10 | 33 << 8]
}

/// Builds a request's body.
struct WireEncoder {
    private(set) var body: [UInt8] = []

    mutating func uint64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { body.append(contentsOf: $0) }
    }

    mutating func int64(_ value: Int64) { uint64(UInt64(bitPattern: value)) }

    /// UTF-8, then a NUL, then zeros to the next word. Text with a NUL inside cannot be sent (the server reads up to
    /// the first NUL): the caller checks.
    mutating func text(_ value: String) {
        body.append(contentsOf: value.utf8)
        body.append(0)
        pad()
    }

    mutating func blob(_ value: Data) {
        uint64(UInt64(value.count))
        body.append(contentsOf: value)
        pad()
    }

    /// Parameters in the schema 0 form: a count byte, a type byte each, padding, then the values.
    mutating func parameters(_ values: [DatabaseValue]) throws(ClusterError) {
        guard !values.isEmpty else { return }
        guard values.count <= 255 else {
            throw ClusterError(.unsupportedArgument("\(values.count) arguments; the wire protocol carries 255"))
        }
        body.append(UInt8(values.count))
        for value in values {
            let type: Wire.ValueType =
                switch value {
                case .null: .null
                case .integer: .integer
                case .real: .float
                case .text: .text
                case .blob: .blob
                }
            body.append(type.rawValue)
        }
        pad()
        for (index, value) in values.enumerated() {
            switch value {
            case .null: uint64(0)
            case .integer(let integer): int64(integer)
            case .real(let real):
                // The node's SQLite would store NaN as NULL; the toolkit refuses it rather than change the value.
                guard !real.isNaN else {
                    throw ClusterError(
                        .unsupportedArgument("argument \(index + 1) is NaN, which SQLite stores as NULL"))
                }
                uint64(real.bitPattern)
            case .text(let text):
                guard !text.utf8.contains(0) else {
                    throw ClusterError(
                        .unsupportedArgument("argument \(index + 1) is text with a NUL, which the protocol cuts"))
                }
                self.text(text)
            case .blob(let data): blob(data)
            }
        }
    }

    private mutating func pad() {
        while body.count % 8 != 0 { body.append(0) }
    }

    /// The header and body of a request of `type`.
    func message(_ type: Wire.Request, schema: UInt8 = 0) -> [UInt8] {
        var message: [UInt8] = []
        message.reserveCapacity(8 + body.count)
        withUnsafeBytes(of: UInt32(body.count / 8).littleEndian) { message.append(contentsOf: $0) }
        message.append(contentsOf: [type.rawValue, schema, 0, 0])
        message.append(contentsOf: body)
        return message
    }
}

/// Reads a response's body; every read checks the bounds and throws a protocol violation past them.
struct WireDecoder {
    let body: [UInt8]
    private(set) var offset = 0

    init(_ body: [UInt8]) {
        self.body = body
    }

    var isAtEnd: Bool { offset >= body.count }

    mutating func uint64() throws(ClusterError) -> UInt64 {
        guard offset + 8 <= body.count else { throw ClusterError(.protocolViolation("a response ends early")) }
        var value: UInt64 = 0
        for index in (0..<8).reversed() { value = value << 8 | UInt64(body[offset + index]) }
        offset += 8
        return value
    }

    mutating func uint32() throws(ClusterError) -> UInt32 {
        guard offset + 4 <= body.count else { throw ClusterError(.protocolViolation("a response ends early")) }
        var value: UInt32 = 0
        for index in (0..<4).reversed() { value = value << 8 | UInt32(body[offset + index]) }
        offset += 4
        return value
    }

    mutating func byte() throws(ClusterError) -> UInt8 {
        guard offset < body.count else { throw ClusterError(.protocolViolation("a response ends early")) }
        defer { offset += 1 }
        return body[offset]
    }

    /// The byte at the read position, not consumed.
    func peek() throws(ClusterError) -> UInt8 {
        guard offset < body.count else { throw ClusterError(.protocolViolation("a response ends early")) }
        return body[offset]
    }

    mutating func text() throws(ClusterError) -> String {
        guard let end = body[offset...].firstIndex(of: 0) else {
            throw ClusterError(.protocolViolation("a text has no terminating NUL"))
        }
        let text = String(decoding: body[offset..<end], as: UTF8.self)
        offset = (end + 1 + 7) / 8 * 8
        return text
    }

    mutating func blob() throws(ClusterError) -> Data {
        let count = try uint64()
        guard count <= UInt64(body.count - offset) else {
            throw ClusterError(.protocolViolation("a blob is longer than its response"))
        }
        let data = Data(body[offset..<offset + Int(count)])
        offset = (offset + Int(count) + 7) / 8 * 8
        return data
    }

    mutating func skipToWord() {
        offset = (offset + 7) / 8 * 8
    }
}
