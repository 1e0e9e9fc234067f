import Foundation
import Testing

/// `tmux`, which gives the shell a real pseudo-terminal, or `nil` when it is not installed.
private let tmux: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/opt/homebrew/bin/tmux"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

@Suite("sqltk at an interactive prompt")
struct InteractiveTests {
    @Test(
        "prompt, continuation line, table output, error caret and .quit through a pseudo-terminal",
        .enabled(if: tmux != nil, "needs tmux to drive a pseudo-terminal: apt-get install -y tmux"))
    func session() throws {
        let tmux = try #require(tmux)
        let executable = try #require(ShellProcess.executable)
        // A server of its own, so nothing else the machine runs in tmux is touched.
        let socket = "sqltk-test-\(UUID().uuidString)"
        let folder = try TemporaryFolder()
        let outputFile = URL(fileURLWithPath: folder.path("tmux-output"))
        func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
            try Data().write(to: outputFile)
            let status = try spawnAndWait([tmux, "-L", socket] + arguments, output: outputFile.path)
            return (status, String(decoding: try Data(contentsOf: outputFile), as: UTF8.self))
        }
        // Ending the server closes the pseudo-terminal: the shell, if still running, reads the end of its input.
        defer { _ = try? run(["kill-server"]) }
        func screen() throws -> String { try run(["capture-pane", "-p", "-t", "shell"]).output }
        /// Waits until the screen shows `text` (polling: the shell answers asynchronously).
        func waitFor(_ text: String) throws -> String {
            var last = ""
            for _ in 0..<200 {
                last = try screen()
                if last.contains(text) { return last }
                usleep(50_000)
            }
            Issue.record("the screen never showed \(text); it shows:\n\(last)")
            return last
        }

        // tmux takes an argument that ends in ";" as a command separator; a backslash before it sends the ";".
        let started = try run([
            "new-session", "-d", "-s", "shell", "-x", "100", "-y", "40", "\(executable.path) :memory:",
        ])
        try #require(started.status == 0, "tmux could not start a session: \(started.output)")
        // capture-pane drops trailing spaces: the prompts are matched without theirs.
        _ = try waitFor("sqltk>")

        _ = try run(["send-keys", "-t", "shell", "SELECT 1 AS one,", "Enter"])
        _ = try waitFor("   ...>")
        _ = try run(["send-keys", "-t", "shell", "  'two' AS two\\;", "Enter"])
        let table = try waitFor("+-----+-----+")
        #expect(table.contains("| one | two |"))
        #expect(table.contains("|   1 | two |"))

        _ = try run(["send-keys", "-t", "shell", "SELECT nope\\;", "Enter"])
        let error = try waitFor("^--- error here")
        #expect(error.contains("Error: no such column: nope (code 1: SQLITE_ERROR)"))
        #expect(error.contains("  SELECT nope;\n         ^--- error here"))

        _ = try run(["send-keys", "-t", "shell", ".quit", "Enter"])
        var ended = false
        for _ in 0..<200 where !ended {
            ended = try run(["has-session", "-t", "shell"]).status != 0
            if !ended { usleep(50_000) }
        }
        #expect(ended, "the shell did not leave after .quit")
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
