import BindgenCore
import Foundation

// sqltk-bindgen: the code generator of SQLiteToolkit. Run it from the repository root (or from inside Generator/,
// with `swift run sqltk-bindgen ...`); default paths are found from the repository root either way.
//   swift run --package-path Generator sqltk-bindgen [--check | --coverage | --draft]
//       Sources/SQLiteBindings/Generated from the prefixed sqlite3.h and Generator/Spec
//   swift run --package-path Generator sqltk-bindgen overloads [--check]
//       the fixed-arity argument overloads (Sources/SQLiteToolkit/Generated) and the test calls of each
//
// The overloads are a subcommand of this executable, not a second one: they are generated Swift under the same rules
// (the same header line, `swift format` with the same configuration, the same `--check`), and one executable is one
// command to remember and one thing to build. They need neither clang nor the installed header, so they are a
// subcommand of their own rather than part of the default run, which needs the installed amalgamation.

let usage = """
    usage: sqltk-bindgen [--check | --coverage | --draft] [--header PATH] [--spec DIR] [--output DIR] [--clang PATH]
           sqltk-bindgen overloads [--check]
      (no mode)   write the generated bindings into the output folder
      --check     exit 1 when the committed files differ from what would be generated
      --coverage  print how many header functions the spec wraps and skips
      --draft     print skeleton spec entries for the functions the spec does not decide yet
      --partial   with no mode: write even though some functions are undecided (work in progress only)
      overloads   write the fixed-arity argument overloads (with --check: exit 1 when they are stale)
    Paths given as options are relative to the current folder; the defaults are found from the repository root.
    """

func fail(_ message: String, status: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("sqltk-bindgen: error: \(message)\n".utf8))
    exit(status)
}

func failUsage(_ message: String) -> Never {
    fail("\(message)\n\(usage)", status: 2)
}

var arguments = CommandLine.arguments.dropFirst()
let overloads = arguments.first == "overloads"
if overloads { arguments.removeFirst() }
var mode = "write"
var partial = false
var options: [String: String] = [
    "--clang": ProcessInfo.processInfo.environment["CLANG"] ?? "clang"
]
let pathOptions = ["--header", "--spec", "--output", "--format-configuration"]
while let argument = arguments.popFirst() {
    if overloads && argument != "--check" { failUsage("unknown argument \(argument) for overloads") }
    switch argument {
    case "--check":
        mode = "check"
    case "--partial":
        partial = true
    case "--coverage", "--draft":
        mode = String(argument.dropFirst(2))
    case _ where pathOptions.contains(argument) || argument == "--clang":
        guard let value = arguments.popFirst() else { failUsage("\(argument) needs a value") }
        options[argument] = value
    default:
        failUsage("unknown argument \(argument)")
    }
}

let currentDirectory = FileManager.default.currentDirectoryPath
/// The repository root, needed for every path the options leave to their defaults.
@MainActor func repositoryRoot() -> String {
    guard let root = Repository.root(containing: currentDirectory) else {
        fail(
            "no repository root (a folder with Generator/Spec and sqlite-amalgamation) at or above "
                + "\(currentDirectory); run from the repository or its Generator folder"
        )
    }
    return root
}
/// The path an option names, or its default inside the repository.
@MainActor func path(_ option: String, default relativePath: String) -> String {
    options[option] ?? Repository.path(relativePath, in: repositoryRoot())
}
let formatConfiguration = path("--format-configuration", default: Repository.formatConfiguration)

do {
    if overloads {
        let root = repositoryRoot()
        let files = try ArgumentOverloads().files().mapValues {
            try Formatter.format($0, configuration: formatConfiguration)
        }
        if mode == "check" {
            let stale = Writer.stalePaths(files, root: root)
            guard stale.isEmpty else {
                fail(
                    "generated argument overloads are stale: \(stale.joined(separator: ", ")); "
                        + "run `\(ArgumentOverloads.regenerateCommand)`"
                )
            }
            print("sqltk-bindgen overloads: \(files.count) generated files are up to date")
        } else {
            let written = try Writer.write(files, root: root)
            let paths = files.keys.sorted().joined(separator: ", ")
            print("sqltk-bindgen overloads: wrote \(paths) (\(written.count) changed)")
        }
        exit(0)
    }

    let header = path("--header", default: Repository.header)
    guard FileManager.default.fileExists(atPath: header) else {
        fail("no header at \(header)")
    }
    if options["--header"] == nil {
        let installed = Repository.path(Repository.installedHeader, in: repositoryRoot())
        guard FileManager.default.fileExists(atPath: installed) else {
            fail("no installed SQLite header at \(installed); run sqlite-amalgamation/fetch first")
        }
    }
    let generator = try Generator(
        header: header,
        specDirectory: path("--spec", default: Repository.spec),
        clang: options["--clang", default: "clang"]
    )
    switch mode {
    case "coverage":
        let coverage = try generator.coverage(allowingUndecided: partial)
        print(
            "\(coverage.wrapped) of \(coverage.declared) header functions wrapped (\(coverage.wrappers) Swift wrappers), "
                + "\(coverage.skipped) skipped with reasons"
                + (coverage.undecided > 0 ? ", \(coverage.undecided) undecided" : "")
        )
    case "draft":
        print(generator.draft())
    default:
        let output = path("--output", default: Repository.bindingsOutput)
        let files = try generator.files(allowingUndecided: partial && mode != "check").mapValues {
            try Formatter.format($0, configuration: formatConfiguration)
        }
        let stale = try Writer.compare(files, directory: output)
        if mode == "check" {
            guard stale.isEmpty else {
                fail(
                    "generated bindings are stale: \(stale.joined(separator: ", ")); "
                        + "run `\(Generator.regenerateCommand)`"
                )
            }
            print("sqltk-bindgen: \(files.count) generated files are up to date")
        } else {
            try Writer.write(files, directory: output)
            print("sqltk-bindgen: wrote \(files.count) files to \(output) (\(stale.count) changed)")
        }
    }
} catch let error as GeneratorError {
    fail(error.description)
} catch {
    fail("\(error)")
}
