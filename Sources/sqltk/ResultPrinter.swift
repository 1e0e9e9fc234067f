import ArgumentParser
import Foundation
import SQLiteToolkit

/// How query results are written.
enum OutputMode: String, CaseIterable, ExpressibleByArgument {
    /// Aligned columns in a box: the default on a terminal.
    case table
    /// RFC 4180: fields quoted when needed, records ending in CRLF.
    case csv
    /// An array of objects, one per row, keyed by column name.
    case json
    /// One `name = value` line per column, a blank line between rows.
    case line
    /// Values separated by the separator (`|`): the default when the output is not a terminal.
    case list
}

/// The output settings the dot-commands change.
struct OutputSettings {
    var mode: OutputMode
    var showsHeaders: Bool
    var nullValue = ""
    var separator = "|"
}

/// Writes `text` to standard output (buffered; ``flushOutput()`` before reading from the terminal).
func writeOutput(_ text: String) {
    print(text, terminator: "")
}

/// Writes `text` to standard error, unbuffered.
func writeError(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}

/// Flushes standard output, so a prompt shows before the program waits for input.
func flushOutput() {
    fflush(nil)
}

/// Writes the rows of one statement in the chosen mode. Table mode keeps the rows until ``finish()`` to align them;
/// the other modes write each row as it comes.
final class ResultPrinter {
    private let settings: OutputSettings
    private let columns: [String]
    private var rowCount = 0
    /// Table mode only: the rows as display text, and whether each column holds only numbers (right-aligned).
    private var tableRows: [[String]] = []
    private var isNumeric: [Bool]

    init(columns: [String], settings: OutputSettings) {
        self.columns = columns
        self.settings = settings
        self.isNumeric = Array(repeating: true, count: columns.count)
    }

    /// Adds a row of values, one per column.
    func add(_ values: [DatabaseValue]) {
        defer { rowCount += 1 }
        switch settings.mode {
        case .table:
            for (index, value) in values.enumerated() where index < isNumeric.count {
                switch value {
                case .integer, .real, .null: break
                default: isNumeric[index] = false
                }
            }
            tableRows.append(values.map { TerminalText.cellText(displayText($0)) })
        case .list:
            var text = ""
            if rowCount == 0 && settings.showsHeaders {
                text += columns.joined(separator: settings.separator) + "\n"
            }
            text += values.map(displayText).joined(separator: settings.separator) + "\n"
            writeOutput(text)
        case .csv:
            var text = ""
            if rowCount == 0 && settings.showsHeaders {
                text += columns.map(Self.csvField).joined(separator: ",") + "\r\n"
            }
            text += values.map { Self.csvField(displayText($0)) }.joined(separator: ",") + "\r\n"
            writeOutput(text)
        case .line:
            let width = columns.map(\.count).max() ?? 0
            var text = rowCount == 0 ? "" : "\n"
            for (name, value) in zip(columns, values) {
                text += String(repeating: " ", count: width - name.count) + name + " = " + displayText(value) + "\n"
            }
            writeOutput(text)
        case .json:
            var text = rowCount == 0 ? "[{" : ",\n{"
            text += zip(columns, values).map { Self.jsonString($0) + ":" + Self.jsonValue($1) }.joined(separator: ",")
            writeOutput(text + "}")
        }
    }

    /// Ends the statement's output: writes the table, or closes the JSON array.
    func finish() {
        switch settings.mode {
        case .table: writeTable()
        case .json: if rowCount > 0 { writeOutput("]\n") }
        case .csv, .line, .list: break
        }
    }

    private func displayText(_ value: DatabaseValue) -> String {
        switch value {
        case .null: return settings.nullValue
        case .integer(let number): return String(number)
        case .real(let number): return Self.realText(number)
        case .text(let text): return text
        case .blob: return value.description
        }
    }

    /// Writes the rows in a box, each column as wide as its widest cell on the terminal (see ``TerminalText``).
    private func writeTable() {
        guard !tableRows.isEmpty else { return }
        let header = columns.map(TerminalText.cellText)
        let cellWidths = tableRows.map { $0.map(TerminalText.width(of:)) }
        let headerWidths = header.map(TerminalText.width(of:))
        var widths = settings.showsHeaders ? headerWidths : Array(repeating: 0, count: columns.count)
        for row in cellWidths {
            for (index, width) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], width)
            }
        }
        let border = "+" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "+") + "+\n"
        func line(_ cells: [String], cellWidths: [Int], aligningNumbers: Bool) -> String {
            var text = "|"
            for (index, cell) in cells.enumerated() where index < widths.count {
                let padding = String(repeating: " ", count: max(0, widths[index] - cellWidths[index]))
                let rightAligned = aligningNumbers && isNumeric[index]
                text += " " + (rightAligned ? padding + cell : cell + padding) + " |"
            }
            return text + "\n"
        }
        var text = border
        if settings.showsHeaders {
            text += line(header, cellWidths: headerWidths, aligningNumbers: false) + border
        }
        for (row, widths) in zip(tableRows, cellWidths) {
            text += line(row, cellWidths: widths, aligningNumbers: true)
        }
        writeOutput(text + border)
    }

    /// A real as SQL text that reads back as the same value: Swift's shortest round-trip form, with SQLite's
    /// spelling of the infinities.
    static func realText(_ number: Double) -> String {
        if number.isInfinite { return number < 0 ? "-Inf" : "Inf" }
        return String(number)
    }

    /// An RFC 4180 field: quoted (with doubled quotes) when it holds a comma, a quote, a CR or an LF.
    ///
    /// The test runs on bytes, not characters: a CRLF is one `Character` in Swift, equal to neither `"\r"` nor
    /// `"\n"`, so a character test let a field holding CRLF out unquoted, and no reader could read it back.
    static func csvField(_ text: String) -> String {
        let needsQuotes = text.utf8.contains { byte in
            byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\n")
                || byte == UInt8(ascii: "\r")
        }
        guard needsQuotes else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A value as JSON: numbers, strings, `null`; a blob as its hexadecimal SQL literal in a string.
    static func jsonValue(_ value: DatabaseValue) -> String {
        switch value {
        case .null: return "null"
        case .integer(let number): return String(number)
        case .real(let number): return number.isFinite ? String(number) : "null"
        case .text(let text): return jsonString(text)
        case .blob: return jsonString(value.description)
        }
    }

    /// A JSON string literal.
    static func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
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
