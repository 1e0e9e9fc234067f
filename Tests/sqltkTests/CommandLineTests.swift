import Foundation
import SQLiteToolkit
import Testing

/// The command line and the dot-commands where sqltk deliberately differs from the sqlite3 shell, or has no
/// sqlite3 counterpart to compare with (docs/sqltk.md lists why).
@Suite("sqltk's command line and its deliberate differences from sqlite3")
struct CommandLineTests {
    @Test(
        "an option spelled as sqlite3 spells it is never read as a cluster of one-letter options",
        arguments: ["-header", "-batch", "-echo", "-bail", "-csv", "-json", "-html", "-help"])
    func noClusters(option: String) throws {
        let folder = try TemporaryFolder()
        let path = folder.path("q.sqlite")
        let result = try ShellProcess.run([option, path, "CREATE TABLE q(x)"])
        if option == "-help" {
            #expect(result.status == 0)
            #expect(result.output.hasPrefix("Usage: sqltk"))
        } else {
            #expect(result.status == 0, "\(result.error)")
            #expect(!result.output.contains("Usage:"))
            #expect(FileManager.default.fileExists(atPath: path))
        }
    }

    @Test(
        "an unknown option fails with one line naming it, and runs nothing",
        arguments: [["-hx"], ["-no-such-option"], ["--no-such-option"], ["-A", "x"], ["-header=1"]])
    func unknownOption(arguments: [String]) throws {
        let folder = try TemporaryFolder()
        let path = folder.path("q.sqlite")
        let result = try ShellProcess.run(arguments + [path, "CREATE TABLE q(x)"])
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(result.error.split(separator: "\n").count == 1)
        #expect(result.error.contains(arguments[0].split(separator: "=")[0]))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("-help and --help print the usage on standard output with status 0 (sqlite3: standard error, status 1)")
    func help() throws {
        for option in ["-help", "--help", "-h"] {
            let result = try ShellProcess.run([option])
            #expect(result.status == 0)
            #expect(result.output.contains("-[no]header"))
            #expect(result.output.contains("-key PASSPHRASE"))
        }
    }

    @Test("-version prints the version of the SQLite sqltk runs on")
    func version() throws {
        let result = try ShellProcess.run(["-version"])
        #expect(result.status == 0)
        #expect(result.output == "\(Database.sqliteVersion) \(Database.sqliteSourceID)\n")
    }

    @Test(
        "a dot-command given an argument it cannot honour fails, naming it",
        arguments: [
            (".mode box --wordwrap on", "--wordwrap on"), (".mode sideways", "sideways"), (".eqp full", "full"),
            (".output -e", "-e"), (".open --zip x.db", "--zip"), (".headers maybe", "maybe"),
            (".import --v people.csv p", "--v"), (".import --bogus people.csv p", "--bogus"),
            (".import people.csv p extra", "extra"), (".once", ".once FILE"), (".tables a b", ".tables [PATTERN]"),
            (".schema --indent", "--indent"), (".quit now", ".quit"), (".rekey a b", ".rekey"),
            (".width 3 wide", "wide"),
            (".parameter frobnicate", ".parameter"),
        ])
    func refusedArgument(command: String, named: String) throws {
        let result = try ShellProcess.run([":memory:"], input: "\(command)\nSELECT 1;\n")
        #expect(result.status == 1)
        #expect(result.error.hasPrefix("Error at line 1: "))
        #expect(result.error.contains(named))
        #expect(result.output == "1\n")
    }

    @Test("an error in a -cmd command or a missing -init file sets the exit status (sqlite3 exits 0 after them)")
    func commandError() throws {
        let result = try ShellProcess.run(["-cmd", "SELEC 1", ":memory:", "SELECT 2"])
        #expect(result.status == 1)
        #expect(result.output == "2\n")
        let folder = try TemporaryFolder()
        let missing = try ShellProcess.run(["-init", folder.path("missing.sql"), ":memory:", "SELECT 3"])
        #expect(missing.status == 1)
        #expect(missing.output == "3\n")
        #expect(missing.error.contains("missing.sql"))
    }

    @Test(".rekey, .encrypt and .decrypt each say in one line what they did")
    func encryptionMessages() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("db.sqlite")
        let rekeyed = try ShellProcess.run([path, "CREATE TABLE t (a)", ".rekey first-Key"])
        #expect(rekeyed.status == 0)
        #expect(rekeyed.output == "The database is now encrypted (chacha20).\n")
        let changed = try ShellProcess.run(["--key", "first-Key", path, ".rekey second-Key"])
        #expect(changed.output == "The key of the database was changed.\n")
        let copy = folder.path("copy.sqlite")
        let plain = folder.path("plain.sqlite")
        let exported = try ShellProcess.run(
            ["--key", "second-Key", path, ".encrypt \(copy) third-Key", ".decrypt \(plain)"])
        #expect(exported.status == 0, "\(exported.error)")
        #expect(
            exported.output
                == "Wrote an encrypted copy (chacha20) of the database to \(copy).\n"
                + "Wrote a plain copy of the database to \(plain).\n")
        #expect(!exported.output.contains("third-Key"))
    }

    @Test(".open with a key option creates and opens an encrypted database; without the key it does not open")
    func openWithKey() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("secret.sqlite")
        let made = try ShellProcess.run(
            [":memory:"], input: ".open --key open-Key \(path)\nCREATE TABLE t (a);\nINSERT INTO t VALUES (5);\n")
        #expect(made.status == 0, "\(made.error)")
        let reopened = try ShellProcess.run(
            [":memory:"], input: ".open --key open-Key \(path)\nSELECT a FROM t;\n.open \(path)\nSELECT a FROM t;\n")
        #expect(reopened.status == 1)
        #expect(reopened.output == "5\n")
        #expect(reopened.error.contains("--key, --ask-key, --key-file or --raw-key"))
        #expect(!reopened.error.contains("open-Key"))
    }

    @Test("an encrypted file opened without a key names the key options, not a Swift API")
    func noKeyMessage() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("db.sqlite")
        #expect(try ShellProcess.run(["--key", "k", path, "CREATE TABLE t (a)"]).status == 0)
        let result = try ShellProcess.run([path, "SELECT * FROM t"])
        #expect(result.status == 1)
        #expect(result.error.contains("--key, --ask-key, --key-file or --raw-key"))
        #expect(!result.error.contains("Configuration"))
    }

    @Test(
        "at a prompt, .output sends the results to the file and keeps the prompt and the typing on the terminal",
        .enabled(if: interactiveTmux != nil, "needs tmux to drive a pseudo-terminal: apt-get install -y tmux"))
    func outputAtPrompt() throws {
        let folder = try TemporaryFolder()
        let file = folder.path("out.txt")
        let executable = try #require(ShellProcess.executable)
        let shell = try TmuxSession(command: "HOME='\(folder.url.path)' '\(executable.path)' -list -noheader :memory:")
        try shell.waitFor("sqltk>")
        try shell.send(".output \(file)", "Enter", "SELECT 40 + 2\\;", "Enter", ".output", "Enter")
        try shell.send("SELECT 'back' AS b\\;", "Enter")
        let screen = try shell.waitFor("back\n")
        // No line of output 42 (the typed path of the file may hold those digits).
        #expect(!screen.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces) == "42" })
        #expect(screen.contains("sqltk> SELECT 40 + 2;"))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "42\n")
    }

    @Test(
        "--ask-key on a new file asks twice and refuses a mismatch, creating nothing",
        .enabled(if: interactiveTmux != nil, "needs tmux to drive a pseudo-terminal: apt-get install -y tmux"))
    func askKeyTwice() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("new.sqlite")
        let executable = try #require(ShellProcess.executable)
        let shell = try TmuxSession(
            command: "HOME='\(folder.url.path)' '\(executable.path)' --ask-key '\(path)' 'CREATE TABLE t (a)'"
                + "; echo status=$?; sleep 10")
        try shell.waitFor("Key:")
        try shell.send("first-Typed", "Enter")
        try shell.waitFor("Repeat the key:")
        try shell.send("second-Typed", "Enter")
        let screen = try shell.waitFor("status=1")
        #expect(screen.contains("the two keys differ; nothing was created"))
        #expect(!FileManager.default.fileExists(atPath: path))

        let again = try TmuxSession(
            command: "HOME='\(folder.url.path)' '\(executable.path)' --ask-key '\(path)' 'CREATE TABLE t (a)'"
                + "; echo status=$?; sleep 10")
        try again.waitFor("Key:")
        try again.send("same-Typed", "Enter")
        try again.waitFor("Repeat the key:")
        try again.send("same-Typed", "Enter")
        try again.waitFor("status=0")
        let reopened = try ShellProcess.run(["--key", "same-Typed", path, "SELECT count(*) FROM t"])
        #expect(reopened.output == "0\n")
    }
}
