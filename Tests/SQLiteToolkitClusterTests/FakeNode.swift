import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A node that speaks only what a test scripts: a TCP listener on loopback whose every accepted connection runs
/// `script` on a thread of its own, so a test can send the client crafted, truncated or slow responses.
final class FakeNode: @unchecked Sendable {
    // @unchecked Sendable: `listener` and `address` are set once in init.
    private let listener: Int32
    let address: String

    /// A leader that answers the handshake, then each statement with `answer(sql, requestType)`: the bytes to
    /// send, or nil to drop the connection. Every SQL text is recorded in `log` first.
    static func leader(
        log: SQLLog = SQLLog(), _ answer: @escaping @Sendable (String, UInt8) -> [UInt8]?
    ) throws -> FakeNode {
        let address = AddressBox()
        let node = try FakeNode { peer, _ in
            guard peer.handshake(leader: address.value) else { return }
            while let request = peer.request() {
                let sql = FakePeer.sql(request.body)
                log.append(sql)
                guard let bytes = answer(sql, request.type) else { return }
                peer.send(bytes)
            }
        }
        address.value = node.address
        return node
    }

    init(_ script: @escaping @Sendable (FakePeer, Int) -> Void) throws {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw FakeNodeError.setup("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw FakeNodeError.setup("bind")
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        self.address = "127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
        Thread.detachNewThread { [fd] in
            var index = 0
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 {
                    if errno == EINTR { continue }
                    return
                }
                // No test waits forever on a client that sends nothing.
                var limit = timeval(tv_sec: 30, tv_usec: 0)
                setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
                let peer = FakePeer(fd: client)
                let current = index
                index += 1
                Thread.detachNewThread {
                    script(peer, current)
                    peer.close()
                }
            }
        }
    }

    /// Stops accepting connections.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}

/// The SQL a fake node received, in order, across its connections.
final class SQLLog: @unchecked Sendable {
    // @unchecked Sendable: guarded by `lock`.
    private let lock = NSLock()
    private var texts: [String] = []

    var all: [String] { lock.withLock { texts } }

    func append(_ sql: String) { lock.withLock { texts.append(sql) } }
}

/// The address of a fake node, known once it listens (its script needs it to name itself the leader).
final class AddressBox: @unchecked Sendable {
    // @unchecked Sendable: set before the first connection is accepted, read after.
    private let lock = NSLock()
    private var stored = ""

    var value: String {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

enum FakeNodeError: Error {
    case setup(String)
}

/// One accepted connection of a ``FakeNode``.
final class FakePeer: @unchecked Sendable {
    // @unchecked Sendable: used by the one thread that runs the script.
    private var fd: Int32

    init(fd: Int32) { self.fd = fd }

    /// Exactly `count` bytes, or nil when the client closed the connection or sent nothing in time.
    func read(_ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var received = 0
        while received < count {
            let result = bytes.withUnsafeMutableBytes { buffer in
                recv(fd, buffer.baseAddress.map { $0 + received }, count - received, 0)
            }
            if result <= 0 { return nil }
            received += result
        }
        return bytes
    }

    /// The next request: its type and body.
    func request() -> (type: UInt8, body: [UInt8])? {
        guard let header = read(8) else { return nil }
        let words = Int(header[0]) | Int(header[1]) << 8 | Int(header[2]) << 16 | Int(header[3]) << 24
        guard let body = read(words * 8) else { return nil }
        return (header[4], body)
    }

    /// The SQL of an EXEC_SQL or QUERY_SQL body (after the database id).
    static func sql(_ body: [UInt8]) -> String {
        let text = body.dropFirst(8).prefix { $0 != 0 }
        return String(decoding: text, as: UTF8.self)
    }

    func send(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                #if canImport(Glibc)
                    Glibc.send(fd, buffer.baseAddress.map { $0 + sent }, bytes.count - sent, Int32(MSG_NOSIGNAL))
                #else
                    Darwin.send(fd, buffer.baseAddress.map { $0 + sent }, bytes.count - sent, 0)
                #endif
            }
            if result <= 0 { return }
            sent += result
        }
    }

    /// Reads the protocol version, answers LEADER with `leader` (this node's own address makes it the leader) and,
    /// when it is the leader, answers OPEN; false when the client went away.
    @discardableResult
    func handshake(leader: String, isLeader: Bool = true) -> Bool {
        guard read(8) != nil, let ask = request(), ask.type == 0 else { return false }
        send(Fake.message(1, Fake.word(1) + Fake.text(leader)))
        guard isLeader else { return true }
        guard let open = request(), open.type == 3 else { return false }
        send(Fake.message(4, Fake.word(0)))
        return true
    }

    func close() {
        if fd >= 0 {
            #if canImport(Glibc)
                _ = Glibc.close(fd)
            #else
                _ = Darwin.close(fd)
            #endif
            fd = -1
        }
    }
}

/// Builders of responses as dqlite's wire protocol lays them out.
enum Fake {
    static func message(_ type: UInt8, _ body: [UInt8], words: UInt32? = nil) -> [UInt8] {
        let count = words ?? UInt32(body.count / 8)
        return withUnsafeBytes(of: count.littleEndian, Array.init) + [type, 0, 0, 0] + body
    }

    static func word(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }

    static func text(_ value: String) -> [UInt8] {
        var bytes = Array(value.utf8) + [0]
        while bytes.count % 8 != 0 { bytes.append(0) }
        return bytes
    }

    static let end = [UInt8](repeating: 0xff, count: 8)
    static let part = [UInt8](repeating: 0xee, count: 8)

    /// A RESULT response (last rowid 0, 1 change).
    static let result = message(6, word(0) + word(1))

    /// A ROWS response with one text column `v` and one row per text.
    static func textRows(_ texts: [String], marker: [UInt8] = end) -> [UInt8] {
        var body = word(1) + text("v")
        for value in texts { body += [3, 0, 0, 0, 0, 0, 0, 0] + text(value) }
        return message(7, body + marker)
    }
}
