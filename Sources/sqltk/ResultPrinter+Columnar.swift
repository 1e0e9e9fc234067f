import SQLiteToolkit

/// The column, box, markdown and table modes, laid out as the sqlite3 shell 3.40 lays them out: a value with line
/// breaks (or longer than its `.width`, or than the wrap width of `.mode`) takes several lines; a tab moves to the
/// next multiple of 8; the widest line of a column, its header's included, sizes it; headers are centred in the
/// boxes; when any row takes several lines, rows are set apart (a rule in the boxes, a blank line in column mode).
///
/// One deliberate difference: widths are counted in terminal columns (an East Asian wide character or an emoji
/// takes two), where sqlite3 3.40 counts code points and misaligns such text.
extension ResultPrinter {
    /// The box-drawing characters: horizontal, vertical, and the corners and joints.
    private enum Box {
        static let horizontal = "\u{2500}"
        static let vertical = "\u{2502}"
    }

    func writeColumns() {
        guard !gatheredRows.isEmpty else { return }
        let columnCount = columns.count
        let mode = settings.mode
        func limit(_ index: Int) -> Int {
            let width = index < settings.widths.count ? abs(settings.widths[index]) : 0
            return width == 0 ? settings.wrapWidth : width
        }
        let header = columns.enumerated().map { Self.lines(of: $1, limit: limit($0)).first ?? "" }
        // Each row as its physical lines, each line a cell per column.
        var rows: [[[String]]] = []
        var isMultiLine = false
        for row in gatheredRows {
            let cellLines = (0..<columnCount).map { index -> [String] in
                let text = index < row.count ? (row[index].text ?? settings.nullValue) : settings.nullValue
                return Self.lines(of: text, limit: limit(index))
            }
            let height = cellLines.map(\.count).max() ?? 1
            if height > 1 { isMultiLine = true }
            rows.append((0..<height).map { line in cellLines.map { line < $0.count ? $0[line] : "" } })
        }
        var widths = (0..<columnCount).map { index in
            max(index < settings.widths.count ? abs(settings.widths[index]) : 0, TerminalText.width(of: header[index]))
        }
        for row in rows {
            for line in row {
                for (index, cell) in line.enumerated() {
                    widths[index] = max(widths[index], TerminalText.width(of: cell))
                }
            }
        }
        let rightAligned = (0..<columnCount).map { $0 < settings.widths.count && settings.widths[$0] < 0 }

        func padded(_ text: String, _ index: Int) -> String {
            let padding = String(repeating: " ", count: max(0, widths[index] - TerminalText.width(of: text)))
            return rightAligned[index] ? padding + text : text + padding
        }
        func centred(_ text: String, _ index: Int) -> String {
            let room = max(0, widths[index] - TerminalText.width(of: text))
            return String(repeating: " ", count: room / 2) + text + String(repeating: " ", count: (room + 1) / 2)
        }
        func rule(_ left: String, _ dash: String, _ joint: String, _ right: String) -> String {
            left + widths.map { String(repeating: dash, count: $0 + 2) }.joined(separator: joint) + right + "\n"
        }

        var text = ""
        let columnSeparator: String
        let lineStart: String
        let lineEnd: String
        let betweenRows: String
        let bottom: String
        switch mode {
        case .column:
            columnSeparator = "  "
            lineStart = ""
            lineEnd = "\n"
            betweenRows = "\n"
            bottom = ""
            if settings.showsHeaders {
                text += (0..<columnCount).map { padded(header[$0], $0) }.joined(separator: "  ") + "\n"
                text += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
            }
        case .box:
            let vertical = Box.vertical
            columnSeparator = " \(vertical) "
            lineStart = "\(vertical) "
            lineEnd = " \(vertical)\n"
            betweenRows = rule("\u{251C}", Box.horizontal, "\u{253C}", "\u{2524}")
            bottom = rule("\u{2514}", Box.horizontal, "\u{2534}", "\u{2518}")
            text += rule("\u{250C}", Box.horizontal, "\u{252C}", "\u{2510}")
            text += lineStart + (0..<columnCount).map { centred(header[$0], $0) }.joined(separator: columnSeparator)
            text += lineEnd + betweenRows
        case .table:
            columnSeparator = " | "
            lineStart = "| "
            lineEnd = " |\n"
            betweenRows = rule("+", "-", "+", "+")
            bottom = betweenRows
            text += betweenRows
            text += lineStart + (0..<columnCount).map { centred(header[$0], $0) }.joined(separator: columnSeparator)
            text += lineEnd + betweenRows
        default:  // markdown
            columnSeparator = " | "
            lineStart = "| "
            lineEnd = " |\n"
            betweenRows = ""
            bottom = ""
            text += lineStart + (0..<columnCount).map { centred(header[$0], $0) }.joined(separator: columnSeparator)
            text += lineEnd + rule("|", "-", "|", "|")
        }
        for (rowIndex, row) in rows.enumerated() {
            for line in row {
                text += lineStart + line.enumerated().map { padded($1, $0) }.joined(separator: columnSeparator)
                text += lineEnd
            }
            if isMultiLine && rowIndex + 1 < rows.count { text += betweenRows }
            if text.utf8.count >= 1 << 16 {
                writeOutput(text)
                text = ""
            }
        }
        writeOutput(text + bottom)
    }

    /// The lines a value takes in a columnar mode: a line break (LF, CR, CRLF) or any other control character ends
    /// a line, a tab moves to the next multiple of 8, and a line ends at `limit` columns (0: no limit); a tab
    /// found when a line is full ends it too.
    static func lines(of text: String, limit: Int) -> [String] {
        // The common case: printable ASCII that fits, one line as it is.
        if limit == 0 || text.utf8.count <= limit, text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return [text] }
        var lines: [String] = []
        var line = ""
        var width = 0
        var previousWasReturn = false
        // A U+10FFxx of the data is carried as four stand-ins (see RawText): it is wrapped as the one it is.
        let scalars = Array(text.unicodeScalars)
        let characters =
            RawText.holdsRawBytes(text)
            ? RawText.shownCharacters(of: scalars) : scalars.indices.map { ($0..<($0 + 1), scalars[$0]) }
        for (range, scalar) in characters {
            if previousWasReturn {
                previousWasReturn = false
                if scalar == "\n" { continue }
            }
            if scalar.value >= 0x20 {
                let scalarWidth = TerminalText.width(of: Character(scalar))
                if limit > 0 && width + scalarWidth > limit && width > 0 {
                    lines.append(line)
                    line = ""
                    width = 0
                }
                line.unicodeScalars.append(contentsOf: scalars[range])
                width += scalarWidth
            } else if scalar == "\t" {
                if limit > 0 && width >= limit {
                    // At a full line a tab ends it and is used up, as a line break is (sqlite3 does the same).
                    lines.append(line)
                    line = ""
                    width = 0
                    continue
                }
                repeat {
                    line += " "
                    width += 1
                } while width % 8 != 0 && (limit == 0 || width < limit)
            } else {
                lines.append(line)
                line = ""
                width = 0
                previousWasReturn = scalar == "\r"
            }
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }
}
