#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A blocking TCP connection to one dqlite node, with a deadline on every wait (`poll`), used by one thread at a
/// time.
///
/// Why sockets of our own and not swift-nio: the client sends one request and waits for its one response, so an
/// event loop buys nothing, and the toolkit's libraries depend on swift-atomics only; a swift-nio dependency would
/// be resolved and built by every package that depends on SQLiteToolkit, cluster client or not, and adds minutes
/// to every build.
final class NodeSocket {
    /// The node's address as given (`host:port`).
    let address: String
    private var descriptor: Int32

    /// Connects to `address` (`host:port`; an IPv6 host in brackets) within `timeout` seconds.
    init(address: String, timeout: Double) throws(ClusterError) {
        self.address = address
        let (host, port) = try NodeSocket.split(address)
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc) || canImport(Musl)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, port, &hints, &list)
        guard status == 0, let first = list else {
            throw ClusterError(.nodeUnreachable(address: address, cause: "the address does not resolve"))
        }
        defer { freeaddrinfo(list) }
        var lastCause = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            entry = current.pointee.ai_next
            let fd = socket(current.pointee.ai_family, current.pointee.ai_socktype, current.pointee.ai_protocol)
            if fd < 0 {
                lastCause = NodeSocket.errnoText()
                continue
            }
            if let cause = NodeSocket.connect(fd, current.pointee.ai_addr, current.pointee.ai_addrlen, timeout) {
                lastCause = cause
                NodeSocket.closeDescriptor(fd)
                continue
            }
            descriptor = fd
            NodeSocket.configure(fd)
            return
        }
        throw ClusterError(.nodeUnreachable(address: address, cause: lastCause))
    }

    deinit {
        close()
    }

    /// Whether the connection is still open (not closed by ``close()``).
    var isOpen: Bool { descriptor >= 0 }

    /// Closes the connection; a second call does nothing.
    func close() {
        if descriptor >= 0 {
            NodeSocket.closeDescriptor(descriptor)
            descriptor = -1
        }
    }

    private static func closeDescriptor(_ fd: Int32) {
        #if canImport(Darwin)
            _ = Darwin.close(fd)
        #elseif canImport(Glibc)
            _ = Glibc.close(fd)
        #elseif canImport(Musl)
            _ = Musl.close(fd)
        #endif
    }

    /// Sends every byte, or throws ``ClusterError/Reason/connectionLost(address:cause:)`` (and closes).
    func send(_ bytes: [UInt8], deadline: Deadline) throws(ClusterError) {
        var sent = 0
        while sent < bytes.count {
            try wait(for: Int16(POLLOUT), deadline: deadline)
            let count = bytes.withUnsafeBytes { buffer in
                #if canImport(Darwin)
                    Darwin.send(descriptor, buffer.baseAddress.map { $0 + sent }, bytes.count - sent, 0)
                #else
                    // MSG_NOSIGNAL: a peer that is gone makes send fail with EPIPE instead of killing the process.
                    systemSend(
                        descriptor, buffer.baseAddress.map { $0 + sent }, bytes.count - sent, Int32(MSG_NOSIGNAL))
                #endif
            }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw lost(NodeSocket.errnoText())
            }
            sent += count
        }
    }

    /// Receives exactly `count` bytes, or throws ``ClusterError/Reason/connectionLost(address:cause:)`` (and closes).
    ///
    /// The buffer grows with the bytes that arrive, not with `count`: a size header comes from the node, and one that
    /// announces gigabytes it never sends must end in an error, not in an allocation of gigabytes.
    func receive(_ count: Int, deadline: Deadline) throws(ClusterError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(count, NodeSocket.chunk))
        var chunk = [UInt8](repeating: 0, count: min(count, NodeSocket.chunk))
        while bytes.count < count {
            try wait(for: Int16(POLLIN), deadline: deadline)
            let wanted = min(count - bytes.count, chunk.count)
            let result = chunk.withUnsafeMutableBytes { buffer in recv(descriptor, buffer.baseAddress, wanted, 0) }
            if result == 0 { throw lost("the node closed the connection") }
            if result < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw lost(NodeSocket.errnoText())
            }
            bytes.append(contentsOf: chunk[..<result])
        }
        return bytes
    }

    /// The most bytes one `recv` reads.
    private static let chunk = 64 * 1024

    /// Waits for `events` until `deadline`: the deadline bounds a whole message, so a node that trickles a byte
    /// at a time cannot hold the caller past it.
    private func wait(for events: Int16, deadline: Deadline) throws(ClusterError) {
        guard descriptor >= 0 else { throw ClusterError(.connectionLost(address: address, cause: "closed")) }
        var entry = pollfd(fd: descriptor, events: events, revents: 0)
        while true {
            let ready = poll(&entry, 1, deadline.remainingMilliseconds)
            if ready > 0 { return }
            if ready == 0 { throw lost("no answer within \(deadline.seconds) s") }
            if errno != EINTR { throw lost(NodeSocket.errnoText()) }
        }
    }

    private func lost(_ cause: String) -> ClusterError {
        close()
        return ClusterError(.connectionLost(address: address, cause: cause))
    }

    private static func split(_ address: String) throws(ClusterError) -> (String, String) {
        guard let colon = address.lastIndex(of: ":") else {
            throw ClusterError(.nodeUnreachable(address: address, cause: "the address has no port (host:port)"))
        }
        var host = String(address[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host, String(address[address.index(after: colon)...]))
    }

    /// Connects without blocking past `timeout`; returns why it failed, or nil.
    private static func connect(
        _ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t, _ timeout: Double
    ) -> String? {
        let flags = fcntl(fd, F_GETFL, 0)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        #if canImport(Darwin)
            let started = Darwin.connect(fd, address, length)
        #elseif canImport(Glibc)
            let started = Glibc.connect(fd, address, length)
        #elseif canImport(Musl)
            let started = Musl.connect(fd, address, length)
        #endif
        if started != 0 {
            guard errno == EINPROGRESS else { return errnoText() }
            var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let milliseconds = Int32(clamping: Int((max(0, timeout) * 1000).rounded(.up)))
            var ready: Int32
            repeat { ready = poll(&entry, 1, milliseconds) } while ready < 0 && errno == EINTR
            if ready == 0 { return "no connection within \(timeout) s" }
            if ready < 0 { return errnoText() }
            var failure: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &size)
            if failure != 0 { return String(cString: strerror(failure)) }
        }
        _ = fcntl(fd, F_SETFL, flags)
        return nil
    }

    /// Requests leave at once (no Nagle delay: each is one small write followed by a wait for its answer); on
    /// Apple platforms a closed peer makes writes fail instead of raising SIGPIPE.
    private static func configure(_ fd: Int32) {
        var one: Int32 = 1
        #if canImport(Glibc) || canImport(Musl)
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        #else
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    private static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}

/// The moment on the monotonic clock an exchange with a node must end by, and the timeout it was made from.
struct Deadline {
    let end: Double
    let seconds: Double

    /// `seconds` from now.
    init(in seconds: Double) {
        self.seconds = seconds
        end = monotonicSeconds() + seconds
    }

    /// The milliseconds left, for `poll`: 0 once past, never more than `Int32.max`.
    var remainingMilliseconds: Int32 {
        let left = min(end - monotonicSeconds(), ClusterDatabase.Timeouts.longest)
        guard left > 0 else { return 0 }
        return Int32(clamping: Int((left * 1000).rounded(.up)))
    }
}

#if canImport(Glibc)
    private func systemSend(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
        Glibc.send(fd, buffer, count, flags)
    }
#elseif canImport(Musl)
    private func systemSend(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
        Musl.send(fd, buffer, count, flags)
    }
#endif
