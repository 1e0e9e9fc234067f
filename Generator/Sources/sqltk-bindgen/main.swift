import BindgenCore
import Foundation

// sqltk-bindgen: generates Sources/SQLiteBindings/Generated from sqlite3.h and Generator/Spec.
// Run from the package root: `swift run sqltk-bindgen [--check] [--coverage] [--draft]`.

let usage = """
    usage: sqltk-bindgen [--check | --coverage | --draft] [--header PATH] [--spec DIR] [--output DIR] [--clang PATH]
      (no mode)   write the generated files into the output folder
      --check     exit 1 when the committed files differ from what would be generated
      --coverage  print how many header functions the spec wraps and skips
      --draft     print skeleton spec entries for the functions the spec does not decide yet
      --partial   with no mode: write even though some functions are undecided (work in progress only)
    """

var mode = "write"
var partial = false
var options = [
    "--header": "sqlite-amalgamation/include/CSQLiteToolkit.h",
    "--spec": "Generator/Spec",
    "--output": "Sources/SQLiteBindings/Generated",
    "--clang": ProcessInfo.processInfo.environment["CLANG"] ?? "clang",
    "--format-configuration": ".swift-format",
]
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--partial":
        partial = true
    case "--check", "--coverage", "--draft":
        mode = String(argument.dropFirst(2))
    case _ where options[argument] != nil:
        guard let value = arguments.popFirst() else {
            FileHandle.standardError.write(Data("\(argument) needs a value\n\(usage)\n".utf8))
            exit(2)
        }
        options[argument] = value
    default:
        FileHandle.standardError.write(Data("unknown argument \(argument)\n\(usage)\n".utf8))
        exit(2)
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("sqltk-bindgen: error: \(message)\n".utf8))
    exit(1)
}

let header = options["--header", default: ""]
guard FileManager.default.fileExists(atPath: header) else {
    fail("no header at \(header); run from the package root after sqlite-amalgamation/fetch")
}

do {
    let generator = try Generator(
        header: header,
        specDirectory: options["--spec", default: ""],
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
        let output = options["--output", default: ""]
        let files = try generator.files(allowingUndecided: partial && mode != "check").mapValues {
            try Formatter.format($0, configuration: options["--format-configuration", default: ""])
        }
        let stale = try Writer.compare(files, directory: output)
        if mode == "check" {
            guard stale.isEmpty else {
                fail("generated bindings are stale: \(stale.joined(separator: ", ")); run `swift run sqltk-bindgen`")
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
