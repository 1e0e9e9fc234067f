import Foundation

/// The prompt's line editor: a terminal in raw mode while a line is typed, the cursor keys, Home and End, the
/// usual Emacs keys, a history kept in a file, and a reverse search through it. Used only when standard input and
/// standard output are terminals; a script never meets it.
///
/// Keys: Left/Right or Ctrl-B/F move; Home/End or Ctrl-A/E go to the start or the end; Up/Down or Ctrl-P/N walk
/// the history; Backspace and Delete (or Ctrl-D) erase; Ctrl-K erases to the end, Ctrl-U to the start, Ctrl-W the
/// word before the cursor; Ctrl-L clears the screen; Ctrl-R searches the history backwards (Ctrl-R again for an
/// older match, Enter to run it, Ctrl-G or Escape to give up); Ctrl-C drops the line; Ctrl-D on an empty line ends
/// the input. A line longer than the terminal scrolls sideways.
final class LineEditor {
    /// The history file: `~/.sqltk_history`, or `nil` without a home folder.
    static var defaultHistoryPath: String? {
        guard let home = ProcessInfo.processInfo.environment["HOME"], !home.isEmpty else { return nil }
        return (home as NSString).appendingPathComponent(".sqltk_history")
    }

    /// The entries the history keeps (older ones are dropped from the file when it grows past twice this).
    static let historyLimit = 1000

    private let input: Int32
    private let output: Int32
    private let historyPath: String?
    private(set) var history: [String] = []

    // The line being edited.
    private var characters: [Character] = []
    private var cursor = 0
    /// The first character shown, when the line is wider than the terminal.
    private var scrollStart = 0
    private var prompt = ""

    init(
        historyPath: String? = LineEditor.defaultHistoryPath, input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO
    ) {
        self.input = input
        self.output = output
        self.historyPath = historyPath
        loadHistory()
    }

    // MARK: - Reading a line

    /// Reads one line, showing `prompt`; `nil` when the input ends (Ctrl-D on an empty line, or a closed terminal).
    func readLine(prompt: String) -> String? {
        fflush(nil)
        var saved = termios()
        guard tcgetattr(input, &saved) == 0 else { return nil }
        var raw = saved
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        raw.c_cflag |= tcflag_t(CS8)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        // TCSADRAIN, not TCSAFLUSH: what was typed (or pasted) while the last statement ran is kept for this line.
        guard tcsetattr(input, TCSADRAIN, &raw) == 0 else { return nil }
        // The statement runs with the terminal as it was, so Ctrl-C interrupts it.
        defer { tcsetattr(input, TCSADRAIN, &saved) }

        self.prompt = prompt
        characters = []
        cursor = 0
        scrollStart = 0
        var historyIndex = history.count
        var pending: [Character] = []
        render()
        while let byte = readByte() {
            switch byte {
            case 0x0D, 0x0A:  // Enter
                write("\r\n")
                let line = String(characters)
                addToHistory(line)
                return line
            case 0x03:  // Ctrl-C: drop the line
                write("^C\r\n")
                characters = []
                cursor = 0
                historyIndex = history.count
                render()
            case 0x04:  // Ctrl-D: the end of the input on an empty line, else Delete
                if characters.isEmpty {
                    write("\r\n")
                    return nil
                }
                deleteForward()
            case 0x01: moveTo(0)
            case 0x05: moveTo(characters.count)
            case 0x02: moveTo(cursor - 1)
            case 0x06: moveTo(cursor + 1)
            case 0x7F, 0x08: deleteBackward()
            case 0x0B:  // Ctrl-K
                characters.removeSubrange(cursor...)
                render()
            case 0x15:  // Ctrl-U
                characters.removeSubrange(..<cursor)
                cursor = 0
                render()
            case 0x17: deleteWordBackward()
            case 0x0C:  // Ctrl-L
                write("\u{1B}[H\u{1B}[2J")
                render()
            case 0x10: walkHistory(up: true, index: &historyIndex, pending: &pending)
            case 0x0E: walkHistory(up: false, index: &historyIndex, pending: &pending)
            case 0x12:
                if let accepted = reverseSearch() { return accepted }
            case 0x1B:
                switch readEscapeSequenceIfPending() {
                case "[A", "OA": walkHistory(up: true, index: &historyIndex, pending: &pending)
                case "[B", "OB": walkHistory(up: false, index: &historyIndex, pending: &pending)
                case "[C", "OC": moveTo(cursor + 1)
                case "[D", "OD": moveTo(cursor - 1)
                case "[H", "OH", "[1~", "[7~": moveTo(0)
                case "[F", "OF", "[4~", "[8~": moveTo(characters.count)
                case "[3~": deleteForward()
                default: break  // a key the editor does not know: ignored
                }
            case 0x09:
                insert("\t")
            case 0x20...:
                if let scalar = readScalar(startingWith: byte) { insert(scalar) }
            default:
                break  // other control keys
            }
        }
        // The terminal closed.
        return nil
    }

    // MARK: - Editing

    private func insert(_ scalar: Unicode.Scalar) {
        // A combining mark, a joiner or a variation selector joins the character before the cursor.
        if cursor > 0 {
            let joined = String(characters[cursor - 1]) + String(scalar)
            if joined.count == 1, let character = joined.first {
                characters[cursor - 1] = character
                render()
                return
            }
        }
        characters.insert(Character(scalar), at: cursor)
        cursor += 1
        render()
    }

    private func moveTo(_ position: Int) {
        cursor = min(max(0, position), characters.count)
        render()
    }

    private func deleteBackward() {
        guard cursor > 0 else { return }
        characters.remove(at: cursor - 1)
        cursor -= 1
        render()
    }

    private func deleteForward() {
        guard cursor < characters.count else { return }
        characters.remove(at: cursor)
        render()
    }

    private func deleteWordBackward() {
        var start = cursor
        while start > 0 && characters[start - 1].isWhitespace { start -= 1 }
        while start > 0 && !characters[start - 1].isWhitespace { start -= 1 }
        characters.removeSubrange(start..<cursor)
        cursor = start
        render()
    }

    private func walkHistory(up: Bool, index: inout Int, pending: inout [Character]) {
        if up {
            guard index > 0 else { return }
            if index == history.count { pending = characters }
            index -= 1
            characters = Array(history[index])
        } else {
            guard index < history.count else { return }
            index += 1
            characters = index == history.count ? pending : Array(history[index])
        }
        cursor = characters.count
        render()
    }

    /// Ctrl-R: shows `(search)'query': match` and narrows as the query is typed. Returns the line to run when
    /// Enter accepts a match; otherwise leaves the match (or the line as it was) in the editor and returns `nil`.
    private func reverseSearch() -> String? {
        let original = (characters, cursor)
        var query = ""
        var matchIndex = history.count
        var match: String?
        func search(from start: Int) {
            var index = min(start, history.count) - 1
            while index >= 0 {
                if query.isEmpty || history[index].contains(query) {
                    matchIndex = index
                    match = history[index]
                    return
                }
                index -= 1
            }
        }
        func show() {
            let shown = "(search)'\(query)': "
            characters = Array(match ?? "")
            cursor = characters.count
            render(prompt: shown)
        }
        show()
        while let byte = readByte() {
            switch byte {
            case 0x12:
                search(from: matchIndex)
            case 0x7F, 0x08:
                query = String(query.dropLast())
                matchIndex = history.count
                search(from: matchIndex)
            case 0x0D, 0x0A:
                write("\r\n")
                let line = match ?? ""
                characters = Array(line)
                addToHistory(line)
                return line
            case 0x07, 0x1B, 0x03:  // Ctrl-G, Escape, Ctrl-C: back to the line as it was
                if byte == 0x1B { _ = readEscapeSequenceIfPending() }
                (characters, cursor) = original
                render()
                return nil
            case 0x20...:
                if let scalar = readScalar(startingWith: byte) {
                    query.unicodeScalars.append(scalar)
                    matchIndex = history.count
                    search(from: matchIndex)
                }
            default:
                // Any other key keeps the match to edit.
                characters = Array(match ?? "")
                cursor = characters.count
                render()
                return nil
            }
            show()
        }
        return nil
    }

    // MARK: - Drawing

    private func render(prompt shownPrompt: String? = nil) {
        let prompt = shownPrompt ?? self.prompt
        let promptWidth = TerminalText.width(of: prompt)
        let available = max(1, terminalWidth() - promptWidth - 1)
        let widths = characters.map { $0 == "\t" ? 1 : TerminalText.width(of: $0) }
        if cursor < scrollStart { scrollStart = cursor }
        while scrollStart < cursor && widths[scrollStart..<cursor].reduce(0, +) > available { scrollStart += 1 }
        var end = scrollStart
        var used = 0
        while end < characters.count && used + widths[end] <= available {
            used += widths[end]
            end += 1
        }
        let visible = String(characters[scrollStart..<end].map { $0 == "\t" ? " " : $0 })
        let column = promptWidth + widths[scrollStart..<cursor].reduce(0, +)
        var text = "\r" + prompt + visible + "\u{1B}[K\r"
        if column > 0 { text += "\u{1B}[\(column)C" }
        write(text)
    }

    private func terminalWidth() -> Int {
        var size = winsize()
        guard ioctl(output, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    private func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Foundation.write(output, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }

    // MARK: - Reading keys

    private func readByte() -> UInt8? {
        var byte: UInt8 = 0
        while true {
            let count = read(input, &byte, 1)
            if count == 1 { return byte }
            if count < 0 && errno == EINTR { continue }
            return nil
        }
    }

    /// The rest of a UTF-8 character whose first byte is `first`; `nil` for bytes that are not UTF-8.
    private func readScalar(startingWith first: UInt8) -> Unicode.Scalar? {
        let length: Int
        switch first {
        case 0x00..<0x80: length = 1
        case 0xC2..<0xE0: length = 2
        case 0xE0..<0xF0: length = 3
        case 0xF0..<0xF5: length = 4
        default: return nil
        }
        var bytes = [first]
        while bytes.count < length {
            guard let next = readByte() else { return nil }
            bytes.append(next)
        }
        // Decoding repairs what is not UTF-8 to U+FFFD, so a repaired scalar means the bytes were invalid.
        let scalar = String(decoding: bytes, as: UTF8.self).unicodeScalars.first
        return scalar == "\u{FFFD}" && bytes != [0xEF, 0xBF, 0xBD] ? nil : scalar
    }

    /// The bytes after an Escape: `[A` for Up, `[3~` for Delete, `OH` for Home, ...; empty for an unknown form.
    private func readEscapeSequence() -> String {
        guard let first = readByte() else { return "" }
        if first == UInt8(ascii: "O") {
            guard let final = readByte() else { return "" }
            return "O" + String(UnicodeScalar(final))
        }
        guard first == UInt8(ascii: "[") else { return "" }
        var sequence = "["
        while let byte = readByte() {
            sequence.unicodeScalars.append(UnicodeScalar(byte))
            // Parameters are digits and semicolons; the final byte ends the sequence.
            if (0x40...0x7E).contains(byte) { return sequence }
            if sequence.count > 16 { return "" }
        }
        return ""
    }

    /// Reads what follows an Escape only when it arrived with it (an arrow key), so a lone Escape does not wait.
    private func readEscapeSequenceIfPending() -> String {
        var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 30) > 0 else { return "" }
        return readEscapeSequence()
    }

    // MARK: - History

    /// Whether `line` is kept in the history: not blank, and holding no key (`.rekey`, `.encrypt`, a key pragma).
    static func isRecorded(_ line: String) -> Bool {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return false }
        // Any line that mentions a key may hold one: `.open --key`, `.rekey`, `PRAGMA main.key = '…'`,
        // `ATTACH … KEY '…'`, a `file:…?hexkey=` URI. Leaving them all out of the history costs a few lines that
        // only name a key (a table called `keys`); writing one key to the file would cost the key.
        return !trimmed.lowercased().contains("key")
    }

    private func addToHistory(_ line: String) {
        guard Self.isRecorded(line), history.last != line else { return }
        history.append(line)
        if history.count > Self.historyLimit { history.removeFirst(history.count - Self.historyLimit) }
        guard let historyPath else { return }
        // Readable by its owner only: the history holds the SQL typed, which may be private.
        let file = open(historyPath, O_WRONLY | O_APPEND | O_CREAT, 0o600)
        guard file >= 0 else { return }
        defer { close(file) }
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { Foundation.write(file, $0.baseAddress, $0.count) }
    }

    private func loadHistory() {
        guard let historyPath, let data = FileManager.default.contents(atPath: historyPath) else { return }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        history = Array(lines.suffix(Self.historyLimit))
        if lines.count > 2 * Self.historyLimit {
            try? Data((history.joined(separator: "\n") + "\n").utf8).write(
                to: URL(fileURLWithPath: historyPath), options: .atomic)
        }
    }
}
