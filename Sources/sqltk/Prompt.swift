import Dispatch
import Foundation
import SQLiteToolkit

/// The interactive prompt: `sqltk> ` for a new statement, `   ...> ` while a statement is unfinished (per
/// ``Database/completeness(of:)``). When standard output is a terminal too, lines are typed through the
/// ``LineEditor`` (arrows, history in `~/.sqltk_history`, Ctrl-R); otherwise the terminal's own line editing
/// applies. Ctrl-C interrupts the running statement instead of ending the shell; Ctrl-D or `.quit` leaves.
struct Prompt {
    let shell: Shell

    func run() {
        var banner =
            "sqltk: SQLite \(Database.sqliteVersion), \(Database.multipleCiphersVersion)\n"
            + "Enter .help for the dot-commands, .quit to leave.\n"
        if shell.databasePath == nil || shell.databasePath == ":memory:" {
            banner += "The database is in memory: it is gone when you leave.\n"
        }
        writeOutput(banner)

        // The signal is ignored for the process and delivered to the dispatch source instead, which interrupts the
        // statement through the connection's thread-safe interrupt handle.
        signal(SIGINT, SIG_IGN)
        let interruptHandle = shell.database.interruptHandle
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { interruptHandle.interrupt() }
        source.resume()
        defer { source.cancel() }

        // The prompt and the line being typed go to the terminal, also while .output sends results to a file.
        let duplicate = dup(STDOUT_FILENO)
        let terminal = duplicate >= 0 ? duplicate : STDOUT_FILENO
        defer { if duplicate >= 0 { close(duplicate) } }
        let editor =
            shell.isOutputTerminal && ProcessInfo.processInfo.environment["TERM"] != "dumb"
            ? LineEditor(output: terminal) : nil
        let flow = shell.run(
            lines: { isContinuation in
                let prompt = isContinuation ? "   ...> " : "sqltk> "
                flushOutput()
                if let editor { return editor.readLine(prompt: prompt) }
                _ = Array(prompt.utf8).withUnsafeBytes { write(terminal, $0.baseAddress, $0.count) }
                return readLine(strippingNewline: true)
            }, source: .terminal, stopsOnError: false)
        // The input ended (Ctrl-D) with the cursor after a prompt: end that line.
        if flow == .proceed && editor == nil { _ = write(terminal, "\n", 1) }
    }
}
