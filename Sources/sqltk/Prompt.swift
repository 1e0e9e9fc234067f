import Dispatch
import Foundation
import SQLiteToolkit

/// The interactive prompt: `sqltk> ` for a new statement, `   ...> ` while a statement is unfinished (per
/// `sqlite3_complete`). The terminal's own line editing applies (erase, word erase, kill line). Ctrl-C interrupts
/// the running statement instead of ending the shell; Ctrl-D or `.quit` leaves.
struct Prompt {
    let shell: Shell

    func run() {
        let sqlite = Database.sqliteVersion
        let ciphers = Database.multipleCiphersVersion
        var banner = "sqltk: SQLite \(sqlite), \(ciphers)\nEnter .help for the dot-commands, .quit to leave.\n"
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

        let flow = shell.run(
            lines: { isContinuation in
                writeOutput(isContinuation ? "   ...> " : "sqltk> ")
                flushOutput()
                return readLine(strippingNewline: true)
            }, source: .terminal, stopsOnError: false)
        // The input ended (Ctrl-D) with the cursor after a prompt: end that line.
        if flow == .proceed { writeOutput("\n") }
    }
}
