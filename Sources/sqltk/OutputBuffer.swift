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
    // Only the shell's one thread writes a buffer, and the dump appends to it for every byte it escapes: the
    // dynamic exclusivity check on each access cost a fifth of a dump's time.
    @exclusivity(unchecked) private(set) var bytes: [UInt8] = []
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

    /// Appends the bytes of `buffer`, in one copy.
    func append(_ buffer: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: buffer)
        if bytes.count >= blockSize { flush() }
    }

    /// Appends `number` in decimal, without making a `String` of it.
    func append(decimal number: Int64) {
        if number < 0 {
            bytes.append(UInt8(ascii: "-"))
        }
        // The magnitude as unsigned, so Int64.min has one too.
        var magnitude = number.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 20 digits at most, written from the end
        withUnsafeMutableBytes(of: &digits) { buffer in
            var index = buffer.count
            repeat {
                index -= 1
                buffer[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[index...]))
        }
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
