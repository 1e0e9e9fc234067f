import Foundation
import SQLiteToolkit

/// Writes `text` to standard output (buffered; ``flushOutput()`` before reading from the terminal), with the bytes
/// that are not UTF-8 it carries (see ``RawText``) written as themselves.
func writeOutput(_ text: String) {
    guard RawText.holdsRawBytes(text) else {
        print(text, terminator: "")
        return
    }
    // After what `print` buffered (the flush writes that first), so the order holds.
    OutputBuffer.standardOutput.append(RawText.bytes(of: text))
    OutputBuffer.standardOutput.flush()
}

/// Writes `text` to standard error, unbuffered, with the bytes that are not UTF-8 it carries (see ``RawText``)
/// written as themselves.
func writeError(_ text: String) {
    FileHandle.standardError.write(Data(RawText.bytes(of: text)))
}

/// Flushes standard output, so a prompt shows before the program waits for input.
func flushOutput() {
    fflush(nil)
}

/// Writes the rows of one statement in the chosen mode, byte for byte as the sqlite3 shell 3.40 writes them (see
/// docs/sqltk.md for the deliberate differences). The columnar modes keep the rows until ``finish()`` to size the
/// columns (ResultPrinter+Columnar.swift); the other modes write each row as it comes.
final class ResultPrinter {
    /// One value of a row: its storage class and its text as `sqlite3_column_text` gives it (`nil` for NULL).
    struct Cell {
        var value: DatabaseValue
        var text: String?
    }

    let settings: OutputSettings
    let columns: [String]
    private var rowCount = 0
    /// The columnar modes only: the rows, as cells.
    var gatheredRows: [[Cell]] = []

    init(columns: [String], settings: OutputSettings) {
        self.columns = columns
        self.settings = settings
    }

    /// Adds the current row of a statement. Text is read as its bytes, so text that is not UTF-8 (a Latin-1
    /// database) is written as the bytes it is, as sqlite3 writes it.
    func add(_ row: Row) {
        add(
            (0..<row.count).map { index in
                guard row.datatype(at: index) == .text,
                    let text = try? row.withUnsafeBytes(at: index, { RawText.text(decoding: $0) })
                else { return row[index] }
                return .text(text)
            })
    }

    /// Adds a row of values, one per column.
    func add(_ values: [DatabaseValue]) {
        add(values.map { Cell(value: $0, text: Self.text(of: $0)) })
    }

    private func add(_ cells: [Cell]) {
        defer { rowCount += 1 }
        if settings.mode.isColumnar {
            gatheredRows.append(cells)
            return
        }
        var text = ""
        let separator = settings.columnSeparator
        let rowSeparator = settings.rowSeparator
        let showsHeader = rowCount == 0 && settings.showsHeaders
        switch settings.mode {
        case .list, .ascii:
            if showsHeader { text += columns.joined(separator: separator) + rowSeparator }
            text += cells.map { $0.text ?? settings.nullValue }.joined(separator: separator) + rowSeparator
        case .csv:
            if showsHeader { text += columns.map(csvField).joined(separator: separator) + rowSeparator }
            text += cells.map { $0.text.map(csvField) ?? settings.nullValue }.joined(separator: separator)
            text += rowSeparator
        case .line:
            // Bytes, as sqlite3's printf pads: a Latin-1 name's byte is one (see RawText).
            let width = max(5, columns.map { RawText.bytes(of: $0).count }.max() ?? 0)
            if rowCount > 0 { text += rowSeparator }
            for (name, cell) in zip(columns, cells) {
                text += String(repeating: " ", count: max(0, width - RawText.bytes(of: name).count)) + name + " = "
                text += (cell.text ?? settings.nullValue) + rowSeparator
            }
        case .html:
            if showsHeader {
                text += "<TR>" + columns.map { "<TH>" + Self.htmlEscaped($0) + "</TH>\n" }.joined() + "</TR>\n"
            }
            text += "<TR>"
            text += cells.map { "<TD>" + Self.htmlEscaped($0.text ?? settings.nullValue) + "</TD>\n" }.joined()
            text += "</TR>\n"
        case .quote:
            if showsHeader { text += columns.map(Self.quoted).joined(separator: separator) + rowSeparator }
            text += cells.map(quoteLiteral).joined(separator: separator) + rowSeparator
        case .insert:
            text += "INSERT INTO " + settings.insertTable
            if settings.showsHeaders { text += "(" + columns.map(OutputSettings.sqlName).joined(separator: ",") + ")" }
            text += " VALUES(" + cells.map(insertLiteral).joined(separator: ",") + ");\n"
        case .json:
            text += rowCount == 0 ? "[{" : ",\n{"
            text += zip(columns, cells).map { Self.jsonString($0) + ":" + jsonValue($1) }.joined(separator: ",")
            text += "}"
        case .column, .box, .markdown, .table:
            break
        }
        writeOutput(text)
    }

    /// Ends the statement's output: writes the columns, or closes the JSON array.
    func finish() {
        if settings.mode.isColumnar {
            writeColumns()
        } else if settings.mode == .json && rowCount > 0 {
            writeOutput("]\n")
        }
    }

    /// A value's text as `sqlite3_column_text` gives it: a blob's bytes up to the first NUL.
    static func text(of value: DatabaseValue) -> String? {
        switch value {
        case .null: return nil
        case .integer(let number): return String(number)
        case .real(let number): return realText(number)
        case .text(let text): return text
        case .blob(let bytes): return RawText.text(decoding: bytes.prefix { $0 != 0 })
        }
    }

    /// A real as sqlite3 3.40's `%!.15g` spells it: what its list, CSV and column modes show.
    static func realText(_ number: Double) -> String {
        RealFormat.text(number, digits: 15)
    }

    /// A real as sqlite3 3.40's `%!.20g` spells it: what its quote, insert and JSON modes write.
    private func preciseReal(_ number: Double) -> String {
        RealFormat.text(number, digits: 20)
    }

    // MARK: - Quoting

    /// A CSV field as the sqlite3 shell writes it: quoted (quotes doubled) when empty, when it holds the separator,
    /// or a space, a control character, a quote, an apostrophe or a byte above 0x7E.
    private func csvField(_ text: String) -> String {
        let needsQuotes =
            text.isEmpty
            || text.utf8.contains { byte in
                byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
            } || (!settings.columnSeparator.isEmpty && text.contains(settings.columnSeparator))
        guard needsQuotes else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Text as an SQL string literal, quotes doubled.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// A blob as an SQL literal: `X'0aff'`.
    static func hexLiteral<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = [UInt8(ascii: "X"), UInt8(ascii: "'")]
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        text.append(UInt8(ascii: "'"))
        return String(decoding: text, as: UTF8.self)
    }

    private func quoteLiteral(_ cell: Cell) -> String {
        switch cell.value {
        case .null: return "NULL"
        case .integer(let number): return String(number)
        case .real(let number): return preciseReal(number)
        case .text(let text): return Self.quoted(text)
        case .blob(let bytes): return Self.hexLiteral(bytes)
        }
    }

    private func insertLiteral(_ cell: Cell) -> String {
        switch cell.value {
        case .real(let number) where number.isInfinite: return number < 0 ? "-1e999" : "1e999"
        // An integral real is written as the integer with `.0`, as sqlite3's insert mode writes it.
        case .real(let number) where number.rounded(.towardZero) == number && number >= -0x1p63 && number < 0x1p63:
            return String(Int64(number)) + ".0"
        case .text(let text): return Self.escapedLiteral(text)
        default: return quoteLiteral(cell)
        }
    }

    /// Text as the sqlite3 shell's insert mode writes it: a line feed or a carriage return goes through
    /// `replace('…\n…','\n',char(10))`, with a marker the text does not hold.
    static func escapedLiteral(_ text: String) -> String {
        let hasLineFeed = text.utf8.contains(10)
        let hasReturn = text.utf8.contains(13)
        guard hasLineFeed || hasReturn else { return quoted(text) }
        let lineFeed = hasLineFeed ? unusedMarker(in: text, "\\n", "\\012") : ""
        let carriageReturn = hasReturn ? unusedMarker(in: text, "\\r", "\\015") : ""
        var body = text.replacingOccurrences(of: "'", with: "''")
        if hasLineFeed { body = body.replacingOccurrences(of: "\n", with: lineFeed) }
        if hasReturn { body = body.replacingOccurrences(of: "\r", with: carriageReturn) }
        var result = (hasLineFeed ? "replace(" : "") + (hasReturn ? "replace(" : "") + "'" + body + "'"
        if hasReturn { result += ",'\(carriageReturn)',char(13))" }
        if hasLineFeed { result += ",'\(lineFeed)',char(10))" }
        return result
    }

    private static func unusedMarker(in text: String, _ first: String, _ second: String) -> String {
        if !text.contains(first) { return first }
        if !text.contains(second) { return second }
        var number = 0
        while text.contains("(\(first)\(number))") { number += 1 }
        return "(\(first)\(number))"
    }

    static func htmlEscaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "<": result += "&lt;"
            case "&": result += "&amp;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private func jsonValue(_ cell: Cell) -> String {
        switch cell.value {
        case .null: return "null"
        case .integer(let number): return String(number)
        case .real(let number) where number.isInfinite: return number < 0 ? "-1e999" : "1e999"
        case .real(let number): return preciseReal(number)
        case .text(let text): return Self.jsonString(text)
        case .blob(let bytes): return Self.jsonString(RawText.text(decoding: bytes))
        }
    }

    /// A JSON string literal.
    static func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
