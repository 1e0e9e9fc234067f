import SQLiteToolkit

/// How query results are written: the sqlite3 shell's modes, with its names.
enum OutputMode: String, CaseIterable {
    /// Values joined by the column separator (`|`), rows ended by the row separator: the default off a terminal.
    case list
    /// RFC 4180 fields joined by the column separator, quoted as the sqlite3 shell quotes them.
    case csv
    /// An array of objects, one per row, keyed by column name.
    case json
    /// One `name = value` line per column, a blank line between rows.
    case line
    /// Columns aligned with spaces, a line of dashes under the header.
    case column
    /// Columns in a box drawn with Unicode line characters.
    case box
    /// A Markdown table.
    case markdown
    /// Columns in a box drawn with `+`, `-` and `|`: the default on a terminal.
    case table
    /// SQL literals joined by the column separator.
    case quote
    /// HTML table rows.
    case html
    /// Values joined by the unit separator (0x1F), rows ended by the record separator (0x1E).
    case ascii
    /// One `INSERT` statement per row, into the table ``OutputSettings/insertTable``.
    case insert

    /// Whether the mode gathers every row before writing, to size the columns.
    var isColumnar: Bool {
        switch self {
        case .column, .box, .markdown, .table: return true
        default: return false
        }
    }
}

/// The output settings the options and the dot-commands change, as the sqlite3 shell keeps them.
struct OutputSettings {
    var mode: OutputMode
    var showsHeaders: Bool
    /// Whether an option or `.headers` named the headers: `.mode column` then keeps them as they are.
    var headersWereSet = false
    var nullValue = ""
    var columnSeparator = "|"
    var rowSeparator = "\n"
    /// `.width`: a width per column (0: as wide as the widest cell; negative: right-aligned).
    var widths: [Int] = []
    /// The width at which the columnar modes wrap a value with no `.width` (0: never).
    var wrapWidth = 0
    /// The table name insert mode writes, as SQL (quoted when it needs to be).
    var insertTable = "\"table\""

    init(mode: OutputMode, showsHeaders: Bool) {
        self.mode = mode
        self.showsHeaders = showsHeaders
    }

    mutating func setHeaders(_ shows: Bool) {
        showsHeaders = shows
        headersWereSet = true
    }

    /// A mode as `.mode` and `--mode` name it: `tabs` is list mode with a tab, `insert` may name its table.
    enum ModeChoice: Equatable {
        case mode(OutputMode)
        case tabs

        init?(name: String) {
            if name == "tabs" {
                self = .tabs
            } else if name == "lines" || name == "columns" {
                // sqlite3's plural spellings.
                self = .mode(name == "lines" ? .line : .column)
            } else if let mode = OutputMode(rawValue: name) {
                self = .mode(mode)
            } else {
                return nil
            }
        }

        static let names = "ascii box column csv html insert json line list markdown quote table tabs"
    }

    /// Chooses a mode as `.mode` does: the separators each mode implies, headers on for `column` unless they were
    /// set, and, with `wrapsColumns`, wrapping at 60 characters in the columnar modes (sqlite3's `.mode` wraps, its
    /// `-box`-style options do not).
    mutating func apply(_ choice: ModeChoice, wrapsColumns: Bool = true, insertTable table: String? = nil) {
        switch choice {
        case .tabs:
            mode = .list
            columnSeparator = "\t"
        case .mode(let chosen):
            mode = chosen
            switch chosen {
            case .line: rowSeparator = "\n"
            case .column:
                if !headersWereSet { showsHeaders = true }
                rowSeparator = "\n"
            case .list:
                columnSeparator = "|"
                rowSeparator = "\n"
            case .csv:
                columnSeparator = ","
                rowSeparator = "\r\n"
            case .quote:
                columnSeparator = ","
                rowSeparator = "\n"
            case .ascii:
                columnSeparator = "\u{1F}"
                rowSeparator = "\u{1E}"
            case .insert:
                insertTable = OutputSettings.sqlName(table ?? "table")
            case .json, .html, .box, .markdown, .table: break
            }
            if chosen.isColumnar && wrapsColumns { wrapWidth = 60 }
        }
    }

    /// The name `.mode` reports: `tabs` is list mode, as in the sqlite3 shell.
    var modeDescription: String {
        if mode.isColumnar {
            return "\(mode.rawValue) --wrap \(wrapWidth) --wordwrap off --noquote"
        }
        return mode.rawValue
    }

    /// `name` as an SQL identifier: as it is when it is a plain word that is not a keyword, else in double quotes.
    static func sqlName(_ name: String) -> String {
        let isPlain =
            name.first.map { $0 == "_" || ($0.isASCII && $0.isLetter) } ?? false
            && name.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
        let isKeyword = Database.isKeyword(name)
        if isPlain && !isKeyword { return name }
        return "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A dot-command's word with its backslash escapes resolved, as the sqlite3 shell resolves them: `\a`, `\b`,
    /// `\t`, `\n`, `\v`, `\f`, `\r` and octal `\NNN` stand for their characters; before any other character, the
    /// backslash is dropped (`\\` is one backslash).
    static func unescaped(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        var result: [UInt8] = []
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            guard byte == UInt8(ascii: "\\"), index < bytes.count else {
                result.append(byte)
                continue
            }
            let next = bytes[index]
            index += 1
            switch next {
            case UInt8(ascii: "n"): result.append(10)
            case UInt8(ascii: "t"): result.append(9)
            case UInt8(ascii: "r"): result.append(13)
            case UInt8(ascii: "a"): result.append(7)
            case UInt8(ascii: "b"): result.append(8)
            case UInt8(ascii: "v"): result.append(11)
            case UInt8(ascii: "f"): result.append(12)
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                var value = Int(next - UInt8(ascii: "0"))
                var digits = 1
                while digits < 3, index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(bytes[index]) {
                    value = value * 8 + Int(bytes[index] - UInt8(ascii: "0"))
                    index += 1
                    digits += 1
                }
                result.append(UInt8(truncatingIfNeeded: value))
            default: result.append(next)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
