import Foundation

/// Bytes gathered for standard output and written in large blocks: what `.dump` writes a million rows through,
/// one `fwrite` per 64 KiB instead of one `print` per row.
///
/// Each flush first flushes what `print` buffered, so what the two write keeps its order.
final class OutputBuffer {
    /// The buffer for standard output.
    nonisolated(unsafe) static let standardOutput = OutputBuffer(descriptor: STDOUT_FILENO)

    /// Where ``flush()`` writes: standard output, or `nil` to keep the bytes (``bytes``).
    private let descriptor: Int32?
    private(set) var bytes: [UInt8] = []
    private let blockSize = 1 << 16

    init(descriptor: Int32?) {
        self.descriptor = descriptor
        bytes.reserveCapacity(blockSize + 1024)
    }

    func append(_ byte: UInt8) {
        bytes.append(byte)
    }

    func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        if bytes.count >= blockSize { flush() }
    }

    func append(_ other: [UInt8]) {
        bytes.append(contentsOf: other)
        if bytes.count >= blockSize { flush() }
    }

    /// Appends `byte` as two uppercase hexadecimal digits.
    func appendHex(_ byte: UInt8) {
        let digits: StaticString = "0123456789ABCDEF"
        let base = digits.utf8Start
        bytes.append(base[Int(byte >> 4)])
        bytes.append(base[Int(byte & 0x0F)])
    }

    /// Writes what was gathered, when the buffer writes to a descriptor, after what `print` buffered.
    func flush() {
        guard let descriptor, !bytes.isEmpty else { return }
        fflush(nil)
        bytes.withUnsafeBytes { buffer in
            guard var next = buffer.baseAddress else { return }
            var left = buffer.count
            while left > 0 {
                let written = write(descriptor, next, left)
                if written < 0 && errno == EINTR { continue }
                // A closed pipe or a full disk: the rest cannot be written anywhere.
                guard written > 0 else { return }
                next += written
                left -= written
            }
        }
        bytes.removeAll(keepingCapacity: true)
    }
}
