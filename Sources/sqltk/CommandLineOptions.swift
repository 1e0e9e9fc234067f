import Foundation

/// The command line, read as the sqlite3 shell reads its own: an option is a word that starts with a dash, and
/// `-name` and `--name` are the same option (`-header`, `--header`); options may come before, between or after the
/// database and the SQL arguments; an option that takes a value takes the next argument, whatever it is (as
/// `getopt` does), or the text after `=` in `--name=value`. `--` ends the options.
///
/// There are no one-letter options to cluster: a general-purpose parser reads `-header` as `-h -e -a …` and shows
/// the help for `-h`, so sqlite3's spelling needs this grammar rather than a parser's single-dash clusters.
struct CommandLineOptions {
    /// A command line sqltk cannot honour: the message names the option, never a value (a value may be a key).
    struct UsageError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    var database: String?
    var sql: [String] = []
    /// The output settings the options give; ``OutputSettings/headersWereSet`` tells whether one named headers.
    var output = OutputSettings(mode: .list, showsHeaders: false)
    /// Whether an option chose the mode (otherwise a terminal gets `table` and anything else `list`).
    var modeWasSet = false
    /// `-cmd` commands, run in order before the SQL arguments or standard input.
    var commands: [String] = []
    var initFile: String?
    var isBatch = false
    var bails = false
    var echoes = false
    var isReadOnly = false
    var showsVersion = false
    var showsHelp = false
    var demo = false
    var encryption = EncryptionOptions()

    /// The options that take no value, with what each does.
    private static let flags: [String: @Sendable (inout CommandLineOptions) -> Void] = [
        "header": { $0.output.setHeaders(true) },
        "noheader": { $0.output.setHeaders(false) },
        "no-header": { $0.output.setHeaders(false) },
        "csv": { $0.setMode(.csv, columnSeparator: ",") },
        "json": { $0.setMode(.json) },
        "line": { $0.setMode(.line) },
        "list": { $0.setMode(.list) },
        "box": { $0.setMode(.box) },
        "column": { $0.setMode(.column) },
        "markdown": { $0.setMode(.markdown) },
        "table": { $0.setMode(.table) },
        "quote": { $0.setMode(.quote, columnSeparator: ",", rowSeparator: "\n") },
        "html": { $0.setMode(.html) },
        "tabs": { $0.setMode(.list, columnSeparator: "\t", rowSeparator: "\n") },
        "ascii": { $0.setMode(.ascii, columnSeparator: "\u{1F}", rowSeparator: "\u{1E}") },
        "batch": { $0.isBatch = true },
        "bail": { $0.bails = true },
        "echo": { $0.echoes = true },
        "readonly": { $0.isReadOnly = true },
        "version": { $0.showsVersion = true },
        "help": { $0.showsHelp = true },
        "h": { $0.showsHelp = true },
        "demo": { $0.demo = true },
        "ask-key": { $0.encryption.askKey = true },
    ]

    /// The options that take a value, with what each does with it.
    private static let valued: [String: @Sendable (inout CommandLineOptions, String) throws -> Void] = [
        // Taken as given, as sqlite3 takes them: a shell already turns $'\t' into a tab.
        "separator": { $0.output.columnSeparator = $1 },
        "newline": { $0.output.rowSeparator = $1 },
        "nullvalue": { $0.output.nullValue = $1 },
        "cmd": { $0.commands.append($1) },
        "init": { $0.initFile = $1 },
        "mode": { options, name in
            guard let mode = OutputSettings.ModeChoice(name: name) else {
                throw UsageError("unknown mode for --mode; the modes are \(OutputSettings.ModeChoice.names)")
            }
            options.output.apply(mode, wrapsColumns: false)
            options.modeWasSet = true
        },
        "cipher": { $0.encryption.cipher = $1 },
        "sqlcipher": { options, value in
            guard let version = Int(value) else { throw UsageError("--sqlcipher takes 3 or 4") }
            options.encryption.sqlcipher = version
        },
        "key": { options, value in
            guard options.encryption.passphrase == nil else { throw UsageError("--key is given twice") }
            options.encryption.passphrase = value
        },
        "key-file": { options, value in
            guard options.encryption.keyFile == nil else { throw UsageError("--key-file is given twice") }
            options.encryption.keyFile = value
        },
        "raw-key": { options, value in
            guard options.encryption.rawKey == nil else { throw UsageError("--raw-key is given twice") }
            options.encryption.rawKey = value
        },
    ]

    /// The options whose value is a key: an empty one is refused, and no message shows it.
    private static let keyOptions: Set<String> = ["key", "key-file", "raw-key"]

    private mutating func setMode(_ mode: OutputMode, columnSeparator: String? = nil, rowSeparator: String? = nil) {
        output.mode = mode
        if let columnSeparator { output.columnSeparator = columnSeparator }
        if let rowSeparator { output.rowSeparator = rowSeparator }
        modeWasSet = true
    }

    /// Reads `arguments` (without the program name).
    static func parse(_ arguments: [String]) throws -> CommandLineOptions {
        var options = CommandLineOptions()
        var positional: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                positional += arguments[index...]
                break
            }
            // A bare `-` is an option with no name, refused as sqlite3 refuses it: it is not standard input here.
            guard argument.hasPrefix("-") else {
                positional.append(argument)
                continue
            }
            var name = argument.dropFirst(argument.hasPrefix("--") ? 2 : 1)
            var inlineValue: Substring?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = name[name.index(after: equals)...]
                name = name[..<equals]
            }
            let spelled = (argument.hasPrefix("--") ? "--" : "-") + name
            if let flag = flags[String(name)] {
                guard inlineValue == nil else { throw UsageError("\(spelled) takes no value") }
                flag(&options)
                continue
            }
            guard let apply = valued[String(name)] else { throw UsageError("unknown option: \(spelled)") }
            let value: String
            if let inlineValue {
                value = String(inlineValue)
            } else {
                guard index < arguments.count else {
                    throw UsageError(
                        name == "key"
                            ? "\(spelled) needs the passphrase after it; --ask-key asks for it without echo"
                            : "missing argument to \(spelled)")
                }
                value = arguments[index]
                index += 1
            }
            if keyOptions.contains(String(name)) && value.isEmpty {
                throw UsageError(
                    "\(spelled) has an empty value (an empty passphrase is no key); nothing was opened")
            }
            try apply(&options, value)
        }
        options.database = positional.first
        options.sql = Array(positional.dropFirst())
        try options.encryption.validate()
        return options
    }

    /// What `-help` prints.
    static let help = """
        Usage: sqltk [OPTIONS] [DATABASE] [SQL ...]

        A SQL shell for SQLite databases, encrypted or not, with the options, modes and dot-commands of the sqlite3
        shell. DATABASE is created when missing; omit it, or give :memory:, for a private in-memory database. With
        SQL arguments (statements or dot-commands), runs them in order and exits (non-zero at the first error).
        Without, reads SQL from standard input, or shows a prompt when standard input is a terminal. Options are
        spelled with one dash or two (-header, --header) and may come anywhere; -- ends them.

        At a terminal, lines can be edited: Left/Right, Home/End (Ctrl-A/E), Up/Down through the history, Ctrl-K,
        Ctrl-U and Ctrl-W erase, Ctrl-L clears the screen, Ctrl-R searches the history. The history is kept in
        ~/.sqltk_history (lines holding a key, such as .rekey, are left out).

        OPTIONS:
           -ascii               set output mode to 'ascii'
           -bail                stop after hitting an error
           -batch               force batch I/O (no prompt)
           -box                 set output mode to 'box'
           -column              set output mode to 'column'
           -cmd COMMAND         run COMMAND before reading standard input or the SQL arguments
           -csv                 set output mode to 'csv'
           -echo                print inputs before execution
           -init FILENAME       read and run FILENAME first
           -[no]header          turn headers on or off (default: on at a terminal only)
           -help                show this message
           -html                set output mode to HTML
           -json                set output mode to 'json'
           -line                set output mode to 'line'
           -list                set output mode to 'list'
           -markdown            set output mode to 'markdown'
           -mode MODE           set output mode to MODE (any mode .mode takes)
           -newline SEP         set the output row separator (default: a line feed)
           -nullvalue TEXT      set the text shown for NULL (default: '')
           -quote               set output mode to 'quote'
           -readonly            open the database read-only
           -separator SEP       set the output column separator (default: '|')
           -table               set output mode to 'table' (the default at a terminal)
           -tabs                set output mode to 'tabs'
           -version             show the SQLite version
           -demo                create a demonstration database in a temporary folder, search it, explain each step

        ENCRYPTION:
           -key PASSPHRASE      the passphrase of an encrypted database (--key VALUE or --key=VALUE)
           -ask-key             ask for the passphrase on the terminal, without echo (twice for a new file)
           -key-file FILE       read the passphrase from FILE (one trailing line break is ignored)
           -raw-key HEX         a raw 256-bit key: 64 hexadecimal digits, no key derivation
           -cipher NAME         chacha20 (the default), aes128cbc, aes256cbc, aegis, ascon128, sqlcipher1 to sqlcipher4
           -sqlcipher 3|4       open or create a file SQLCipher 3 or 4 reads (same as --cipher sqlcipherN)

        """
}
