import Foundation
import SQLiteToolkit

extension Shell {
    /// The widest `.width` taken, either way: wide enough for any text a terminal shows on one line, small enough
    /// that padding a column to it costs little memory.
    static let widestColumn = 100_000

    /// The dot-commands that change or show settings: `.mode`, `.headers`, `.nullvalue`, `.separator`, `.width`,
    /// `.show`, `.print`, `.echo`, `.bail`, `.changes`, `.eqp`, `.timer`, `.output`, `.once`. Anything else is an
    /// unknown command.
    func runSettingsCommand(_ command: String, arguments: [String]) throws {
        func only(_ count: ClosedRange<Int>, _ usage: String) throws {
            guard count.contains(arguments.count) else { throw Failure("usage: \(usage)") }
        }
        switch command {
        case ".mode":
            try setMode(arguments)
        case ".headers", ".header":
            try only(1...1, ".headers on|off")
            settings.setHeaders(try Self.onOff(arguments[0]))
        case ".nullvalue":
            try only(1...1, ".nullvalue TEXT")
            settings.nullValue = arguments[0]
        case ".separator":
            try only(1...2, ".separator COLUMN [ROW]")
            settings.columnSeparator = arguments[0]
            if arguments.count == 2 { settings.rowSeparator = arguments[1] }
        case ".width":
            settings.widths = try arguments.map { word in
                guard let width = Int(word) else { throw Failure(".width takes numbers, not \"\(word)\"") }
                // A column is padded to its width in memory: .width 2147483647 would ask for gigabytes per value.
                guard (-Self.widestColumn...Self.widestColumn).contains(width) else {
                    throw Failure(
                        ".width \(word) is too wide: a width is at most \(Self.widestColumn) either way "
                            + "(0 sizes a column to its values); the widths were not changed")
                }
                return width
            }
        case ".show":
            try only(0...0, ".show")
            show()
        case ".print":
            writeOutput(arguments.joined(separator: " ") + "\n")
        case ".echo":
            try only(1...1, ".echo on|off")
            echoes = try Self.onOff(arguments[0])
        case ".bail":
            try only(1...1, ".bail on|off")
            bails = try Self.onOff(arguments[0])
        case ".changes":
            try only(1...1, ".changes on|off")
            showsChanges = try Self.onOff(arguments[0])
        case ".eqp":
            try only(1...1, ".eqp on|off")
            guard ["on", "off", "yes", "no", "true", "false", "1", "0"].contains(arguments[0].lowercased()) else {
                throw Failure(".eqp \(arguments[0]) is not supported; .eqp takes on or off")
            }
            showsQueryPlans = try Self.onOff(arguments[0])
        case ".timer":
            try only(1...1, ".timer on|off")
            showsTimer = try Self.onOff(arguments[0])
        case ".output", ".once":
            try redirectOutput(arguments, isOnce: command == ".once")
        default:
            throw Failure("unknown command \(command); enter .help for the list")
        }
    }

    /// `.mode [MODE] [TABLE] [--wrap N] [--wordwrap off] [--noquote]`.
    private func setMode(_ arguments: [String]) throws {
        guard !arguments.isEmpty else {
            writeOutput("current output mode: \(settings.modeDescription)\n")
            return
        }
        var choice: OutputSettings.ModeChoice?
        var table: String?
        var wrap: Int?
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            switch word {
            case "--wrap", "-wrap":
                guard index < arguments.count, let width = Int(arguments[index]), width >= 0 else {
                    throw Failure(".mode: --wrap takes a width")
                }
                wrap = width
                index += 1
            case "--noquote", "-noquote":
                continue
            case "--wordwrap", "-wordwrap":
                guard index < arguments.count, (try? Self.onOff(arguments[index])) == false else {
                    throw Failure(".mode: --wordwrap on is not supported (values wrap at the width)")
                }
                index += 1
            case _ where word.hasPrefix("-"):
                throw Failure(".mode: \(word) is not supported")
            default:
                if choice == nil {
                    guard let chosen = OutputSettings.ModeChoice(name: word.lowercased()) else {
                        throw Failure("unknown mode \"\(word)\"; the modes are \(OutputSettings.ModeChoice.names)")
                    }
                    choice = chosen
                } else if choice == .mode(.insert) && table == nil {
                    table = word
                } else {
                    throw Failure(".mode: extra argument \"\(word)\"")
                }
            }
        }
        guard let choice else { throw Failure(".mode needs a mode; the modes are \(OutputSettings.ModeChoice.names)") }
        settings.apply(choice, insertTable: table)
        if let wrap { settings.wrapWidth = wrap }
    }

    /// `.show`: the settings, as the sqlite3 shell lists them.
    private func show() {
        func line(_ name: String, _ value: String) -> String {
            String(repeating: " ", count: max(0, 12 - name.count)) + name + ": " + value + "\n"
        }
        func onOff(_ value: Bool) -> String { value ? "on" : "off" }
        var text = line("echo", onOff(echoes))
        text += line("eqp", onOff(showsQueryPlans))
        text += line("explain", "auto")
        text += line("headers", onOff(settings.showsHeaders))
        text += line("mode", settings.modeDescription)
        text += line("nullvalue", Self.cString(settings.nullValue))
        text += line("output", redirection?.target ?? "stdout")
        text += line("colseparator", Self.cString(settings.columnSeparator))
        text += line("rowseparator", Self.cString(settings.rowSeparator))
        text += line("stats", "off")
        text += line("width", settings.widths.map { "\($0) " }.joined())
        text += line("filename", databasePath.flatMap { $0.isEmpty ? nil : $0 } ?? ":memory:")
        writeOutput(text)
    }

    /// `text` in double quotes with C's escapes, as `.show` writes a separator.
    static func cString(_ text: String) -> String {
        var result: [UInt8] = [UInt8(ascii: "\"")]
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\\"), UInt8(ascii: "\""): result += [UInt8(ascii: "\\"), byte]
            case 9: result += Array("\\t".utf8)
            case 10: result += Array("\\n".utf8)
            case 13: result += Array("\\r".utf8)
            case 0..<0x20, 0x7F:
                let octal = String(byte, radix: 8)
                result += Array(("\\" + String(repeating: "0", count: 3 - octal.count) + octal).utf8)
            default: result.append(byte)
            }
        }
        result.append(UInt8(ascii: "\""))
        return String(decoding: result, as: UTF8.self)
    }
}
