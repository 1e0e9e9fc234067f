/// Reads CSV text as RFC 4180 defines it: fields separated by commas, records by CRLF or LF; a field in double
/// quotes may hold commas, line breaks and doubled quotes (`""` for one `"`).
///
/// Leniencies, as most readers have them: a UTF-8 byte order mark is skipped, a lone CR also ends a record, a quote
/// inside an unquoted field is kept as it is, and the last record may end without a line break.
struct CSVReader {
    /// A malformed input, with the line where the problem starts (1-based).
    struct Failure: Error, CustomStringConvertible {
        var line: Int
        var message: String
        var description: String { "line \(line): \(message)" }
    }

    /// The separators of a file to read: `.import --csv` (the default), `--ascii`, or the shell's separators.
    struct Format {
        var columnSeparator = UInt8(ascii: ",")
        /// A line feed also takes a CRLF or a lone CR as the end of a record.
        var rowSeparator = UInt8(ascii: "\n")
        /// Whether a field may be quoted (`--ascii` reads no quotes).
        var readsQuotes = true

        static let csv = Format()
        /// The ASCII unit (0x1F) and record (0x1E) separators, no quoting.
        static let ascii = Format(columnSeparator: 0x1F, rowSeparator: 0x1E, readsQuotes: false)
    }

    /// The records of `bytes`, each with the line it starts on.
    static func records(in bytes: [UInt8], format: Format = .csv) throws -> [(line: Int, fields: [String])] {
        var records: [(line: Int, fields: [String])] = []
        var fields: [String] = []
        var field: [UInt8] = []
        var line = 1
        var recordLine = 1
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var fieldWasQuoted = false
        let quote = format.readsQuotes ? UInt8(ascii: "\"") : nil
        let comma = format.columnSeparator
        let newline = UInt8(ascii: "\n")
        let rowSeparator = format.rowSeparator
        // A CR ends a record only beside the line feed (CRLF, or a lone CR): with another row separator it is data.
        let carriageReturn = rowSeparator == newline ? UInt8(ascii: "\r") : rowSeparator

        func endField() {
            // Bytes that are not UTF-8 (a Latin-1 file) are kept, as sqlite3 keeps them (see RawText).
            fields.append(RawText.text(decoding: field))
            field.removeAll(keepingCapacity: true)
            fieldWasQuoted = false
        }
        func endRecord() {
            endField()
            records.append((recordLine, fields))
            fields.removeAll(keepingCapacity: true)
        }

        while index < bytes.count {
            let byte = bytes[index]
            if byte == quote && field.isEmpty && !fieldWasQuoted {
                // A quoted field: read to the closing quote.
                let quoteLine = line
                fieldWasQuoted = true
                index += 1
                var closed = false
                while index < bytes.count {
                    let inner = bytes[index]
                    if inner == UInt8(ascii: "\"") {
                        if index + 1 < bytes.count && bytes[index + 1] == inner {
                            field.append(inner)
                            index += 2
                            continue
                        }
                        index += 1
                        closed = true
                        break
                    }
                    if inner == newline { line += 1 }
                    field.append(inner)
                    index += 1
                }
                guard closed else { throw Failure(line: quoteLine, message: "a quoted field has no closing quote") }
                continue
            }
            switch byte {
            case comma:
                endField()
            case rowSeparator, carriageReturn:
                if byte == carriageReturn && index + 1 < bytes.count && bytes[index + 1] == newline { index += 1 }
                endRecord()
                if byte == newline || rowSeparator == newline { line += 1 }
                recordLine = line
            default:
                if fieldWasQuoted {
                    throw Failure(line: line, message: "text after the closing quote of a field")
                }
                field.append(byte)
            }
            index += 1
        }
        if !field.isEmpty || !fields.isEmpty || fieldWasQuoted { endRecord() }
        return records
    }
}
