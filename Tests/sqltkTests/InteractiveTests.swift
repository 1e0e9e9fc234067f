import Foundation
import Testing

/// `tmux`, which gives the shell a real pseudo-terminal, or `nil` when it is not installed.
let interactiveTmux: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/opt/homebrew/bin/tmux"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

@Suite("sqltk at an interactive prompt")
struct InteractiveTests {
    @Test(
        "prompt, continuation line, table output, error caret and .quit through a pseudo-terminal",
        .enabled(if: interactiveTmux != nil, "needs tmux to drive a pseudo-terminal: apt-get install -y tmux"))
    func session() throws {
        let executable = try #require(ShellProcess.executable)
        let home = try TemporaryFolder()
        let shell = try TmuxSession(command: "HOME='\(home.url.path)' exec '\(executable.path)' :memory:")
        // capture-pane drops trailing spaces: the prompts are matched without theirs.
        try shell.waitFor("sqltk>")

        try shell.send("SELECT 1 AS one,", "Enter")
        try shell.waitFor("   ...>")
        try shell.send("  'two' AS two\\;", "Enter")
        let table = try shell.waitFor("+-----+-----+")
        #expect(table.contains("| one | two |"))
        #expect(table.contains("| 1   | two |"))

        try shell.send("SELECT nope\\;", "Enter")
        let error = try shell.waitFor("^--- error here")
        #expect(error.contains("Error: no such column: nope (code 1: SQLITE_ERROR)"))
        #expect(error.contains("  SELECT nope;\n         ^--- error here"))

        try shell.send(".quit", "Enter")
        #expect(try shell.waitForExit(), "the shell did not leave after .quit")
    }
}

/// A shell in a tmux session of its own (its own server socket), driven by keys as a person types them.
final class TmuxSession {
    private let tmux: String
    private let socket = "sqltk-test-\(UUID().uuidString)"
    private let folder: TemporaryFolder
    private let outputFile: URL

    /// Starts `command` (run by the shell tmux starts) in a session of `width` columns.
    init(command: String, width: Int = 100) throws {
        tmux = try #require(interactiveTmux)
        folder = try TemporaryFolder()
        outputFile = URL(fileURLWithPath: folder.path("tmux-output"))
        let started = try run(["new-session", "-d", "-s", "shell", "-x", "\(width)", "-y", "40", command])
        try #require(started.status == 0, "tmux could not start a session: \(started.output)")
    }

    deinit {
        // Ending the server closes the pseudo-terminal: the shell, if still running, reads the end of its input.
        _ = try? run(["kill-server"])
    }

    @discardableResult
    func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try Data().write(to: outputFile)
        let status = try spawnAndWait([tmux, "-L", socket] + arguments, output: outputFile.path)
        return (status, String(decoding: try Data(contentsOf: outputFile), as: UTF8.self))
    }

    /// Sends keys: tmux key names (`Enter`, `Left`, `C-a`) or text. A text that ends in `;` needs `\\;`, since
    /// tmux takes a bare trailing `;` as its own command separator.
    func send(_ keys: String...) throws {
        try run(["send-keys", "-t", "shell"] + keys)
    }

    func screen() throws -> String { try run(["capture-pane", "-p", "-t", "shell"]).output }

    /// Waits until the screen shows `text` (polling: the shell answers asynchronously), and returns the screen.
    @discardableResult
    func waitFor(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        var last = ""
        for _ in 0..<200 {
            last = try screen()
            if last.contains(text) { return last }
            usleep(50_000)
        }
        Issue.record("the screen never showed \(text); it shows:\n\(last)", sourceLocation: sourceLocation)
        return last
    }

    /// Waits until the shell has left (the session ended).
    func waitForExit() throws -> Bool {
        for _ in 0..<200 {
            if try run(["has-session", "-t", "shell"]).status != 0 { return true }
            usleep(50_000)
        }
        return false
    }
}

/// Runs `arguments` with standard output and error going to the file at `output`, and waits for it.
///
/// Not `Process`: the tmux client that starts a server exits at once, but the server it forks inherits a descriptor
/// that `Process` watches, so waiting through `Process` would last as long as the server. The signal mask is reset,
/// so the server and the shell in it get signals as a terminal would deliver them.
private func spawnAndWait(_ arguments: [String], output: String) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_TRUNC, 0)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var signals = sigset_t()
    sigemptyset(&signals)
    posix_spawnattr_setsigmask(&attributes, &signals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { for argument in argv { free(argument) } }
    var pid: pid_t = 0
    let code = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, environ)
    guard code == 0 else { throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EINVAL) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return status
}
