import Foundation
import Testing

@Suite(
    "sqltk's line editor and history at a terminal",
    .enabled(if: interactiveTmux != nil, "needs tmux to drive a pseudo-terminal: apt-get install -y tmux"))
struct LineEditingTests {
    /// A shell at a prompt on an in-memory database, with its home (and history) in `home`.
    static func start(home: TemporaryFolder, width: Int = 100) throws -> TmuxSession {
        let executable = try #require(ShellProcess.executable)
        let shell = try TmuxSession(
            command: "HOME='\(home.url.path)' TERM=xterm exec '\(executable.path)' :memory:", width: width)
        try shell.waitFor("sqltk>")
        return shell
    }

    @Test("Left, Right, Home and End, and Ctrl-A, Ctrl-E, Ctrl-B, Ctrl-F move the cursor where text is inserted")
    func cursorMovement() throws {
        let home = try TemporaryFolder()
        let shell = try Self.start(home: home)
        // "ELECT 'ac' AS r" → Home, "S" → End, Left ×2 → "b" → 'abc'; then Ctrl-A … to check the other keys.
        try shell.send("ELECT 'ac' AS r", "Home", "S", "End", "Left", "Left", "Left", "Left", "Left", "Left", "Left")
        try shell.send("b", "End", "\\;", "Enter")
        #expect(try shell.waitFor("| abc |").contains("|  r  |"))
        try shell.send("ELECT 'xz' AS s", "C-a", "S", "C-e", "C-b", "C-b", "C-b", "C-b", "C-b", "C-b", "C-b", "y")
        try shell.send("C-f", "C-e", "\\;", "Enter")
        try shell.waitFor("| xyz |")
    }

    @Test("Ctrl-W erases a word, Ctrl-U the start of the line, Ctrl-K its end, Backspace and Delete a character")
    func erasing() throws {
        let home = try TemporaryFolder()
        let shell = try Self.start(home: home)
        try shell.send("some words", "C-w", "C-u", "SELECT 'kept' AS kxx, 'gone'", "Left", "Left", "Left", "Left")
        try shell.send("Left", "Left", "Left", "Left", "C-k", "BSpace", "BSpace", "\\;", "Enter")
        let screen = try shell.waitFor("| kept |")
        #expect(!screen.contains("gone |"))
        try shell.send(
            "SELECT 'xq' AS d", "Home", "Right", "Right", "Right", "Right", "Right", "Right", "Right", "Right")
        try shell.send("Right", "DC", "End", "\\;", "Enter")
        try shell.waitFor("| x |")
    }

    @Test("Ctrl-L clears the screen and redraws the line, and never reaches the SQL")
    func clearScreen() throws {
        let home = try TemporaryFolder()
        let shell = try Self.start(home: home)
        try shell.send("SELECT 'before' AS b\\;", "Enter")
        try shell.waitFor("| before |")
        try shell.send("SELECT 'after'", "C-l")
        let cleared = try shell.waitFor("sqltk> SELECT 'after'")
        #expect(!cleared.contains("before"))
        try shell.send(" AS a\\;", "Enter")
        let screen = try shell.waitFor("| after |")
        #expect(!screen.contains("Error"))
    }

    @Test("Up and Down walk the history, Ctrl-R finds an entry, and the history file outlives the shell")
    func history() throws {
        let home = try TemporaryFolder()
        do {
            let shell = try Self.start(home: home)
            try shell.send("SELECT 'first' AS h\\;", "Enter")
            try shell.waitFor("| first |")
            try shell.send("SELECT 'second' AS h\\;", "Enter")
            try shell.waitFor("| second |")
            try shell.send(".rekey secret-key-words", "Enter")
            try shell.waitFor("Error")
            // Up twice is the first line; Down once the second.
            try shell.send("Up", "Up", "Down", "Enter")
            try shell.send("SELECT 'done' AS z\\;", "Enter")
            let screen = try shell.waitFor("| done |")
            #expect(screen.components(separatedBy: "| second |").count == 3)
            try shell.send(".quit", "Enter")
            #expect(try shell.waitForExit())
        }
        // The line run again from the history is not written twice in a row; the key is not written at all.
        let file = try String(contentsOfFile: home.path(".sqltk_history"), encoding: .utf8)
        #expect(file == "SELECT 'first' AS h;\nSELECT 'second' AS h;\nSELECT 'done' AS z;\n.quit\n")
        #expect(!file.contains("secret-key-words"))

        // A new shell reads the file: Ctrl-R finds the first line.
        let shell = try Self.start(home: home)
        try shell.send("C-r", "fir")
        try shell.waitFor("(search)'fir': SELECT 'first' AS h;")
        try shell.send("Enter")
        try shell.waitFor("| first |")
        try shell.send("Up")
        try shell.waitFor("sqltk> SELECT 'first' AS h;")
    }

    @Test("lines typed or pasted while a statement runs are kept, not flushed, when the next line is read")
    func typeahead() throws {
        let home = try TemporaryFolder()
        let shell = try Self.start(home: home)
        // Three lines in one write, as a paste delivers them: each is read after the statement before it ran.
        try shell.send(
            "SELECT 'one' AS a\\;", "Enter", "SELECT 'two' AS b\\;", "Enter", "SELECT 'three' AS c\\;", "Enter")
        let screen = try shell.waitFor("| three |")
        #expect(screen.contains("| one |"))
        #expect(screen.contains("| two |"))
    }

    @Test("a line longer than the terminal scrolls sideways and runs whole")
    func longLine() throws {
        let home = try TemporaryFolder()
        let shell = try Self.start(home: home, width: 40)
        let long =
            "SELECT '" + String(repeating: "x", count: 60) + "' = '" + String(repeating: "x", count: 60) + "' AS same"
        try shell.send(long, "Home", "End", "\\;", "Enter")
        try shell.waitFor("| 1    |")
    }

    @Test("--help says where the history is kept")
    func helpNamesHistory() throws {
        let help = try ShellProcess.run(["--help"])
        #expect(help.output.contains("~/.sqltk_history"))
    }

    @Test("standard input that is not a terminal gets no line editing and writes no history")
    func noEditorWhenPiped() throws {
        let home = try TemporaryFolder()
        let executable = try #require(ShellProcess.executable)
        let process = Process()
        process.executableURL = executable
        process.arguments = [":memory:"]
        process.environment = ["HOME": home.url.path]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data("SELECT 'piped';\n".utf8))
        try input.fileHandleForWriting.close()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(String(decoding: printed, as: UTF8.self) == "piped\n")
        #expect(!FileManager.default.fileExists(atPath: home.path(".sqltk_history")))
    }
}
