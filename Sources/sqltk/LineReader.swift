import Foundation

/// Reads the lines of a file or of standard input in large blocks: what the shell reads scripts and dumps with.
///
/// A line ends at LF; a CR right before the LF is dropped too (a script saved with CRLF line ends), as the sqlite3
/// shell does. The last line may end without a line break. Bytes that are not UTF-8 (a Latin-1 script or dump) are
/// kept, as sqlite3 keeps them (see ``RawText``).
final class LineReader {
    private let descriptor: Int32
    private let closesDescriptor: Bool
    private var buffer: [UInt8] = []
    /// Where the next line starts in `buffer`.
    private var start = 0
    private var isAtEnd = false
    /// Why reading stopped early (`strerror` text), or `nil`.
    private(set) var failure: String?

    /// Reads standard input (or another descriptor, left open).
    init(descriptor: Int32 = STDIN_FILENO) {
        self.descriptor = descriptor
        self.closesDescriptor = false
    }

    /// Reads the file at `path`.
    ///
    /// - Throws: ``Shell/Failure`` naming the path and the system's reason when the file does not open.
    init(path: String) throws {
        let descriptor = RawText.withCString(path) { open($0, O_RDONLY) }
        guard descriptor >= 0 else { throw Shell.Failure("cannot read \(path): \(String(cString: strerror(errno)))") }
        var status = stat()
        if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
            close(descriptor)
            throw Shell.Failure("cannot read \(path): it is a folder")
        }
        self.descriptor = descriptor
        self.closesDescriptor = true
    }

    deinit {
        if closesDescriptor { close(descriptor) }
    }

    /// The next line without its line break, or `nil` at the end of the input.
    func nextLine() -> String? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                var end = newline
                if end > start && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = RawText.text(decoding: buffer[start..<end])
                start = newline + 1
                return line
            }
            if isAtEnd {
                guard start < buffer.count else { return nil }
                var end = buffer.count
                if buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = RawText.text(decoding: buffer[start..<end])
                start = buffer.count
                return line
            }
            fill()
        }
    }

    /// Everything not read yet, up to the end of the input.
    ///
    /// - Throws: ``Shell/Failure`` naming `path` and the system's reason when a read fails.
    func remainingBytes(path: String) throws -> [UInt8] {
        while !isAtEnd { fill() }
        if let failure { throw Shell.Failure("cannot read \(path): \(failure)") }
        return Array(buffer[start...])
    }

    /// Reads the next block, after dropping the lines already returned.
    private func fill() {
        if start > 0 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        let blockSize = 1 << 16
        let oldCount = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: blockSize))
        var count = 0
        repeat {
            count = buffer.withUnsafeMutableBytes { bytes in
                guard let base = bytes.baseAddress else { return 0 }
                return read(descriptor, base + oldCount, blockSize)
            }
        } while count < 0 && errno == EINTR
        if count < 0 { failure = String(cString: strerror(errno)) }
        buffer.removeSubrange((oldCount + max(0, count))...)
        if count <= 0 { isAtEnd = true }
    }
}
