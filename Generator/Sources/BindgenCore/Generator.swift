import Foundation

/// A reason generation stopped. Each names the function or constant at fault.
public enum GeneratorError: Error, CustomStringConvertible, Equatable {
    /// The spec wraps or skips a function the header does not declare.
    case missingFunction(String)
    /// The spec's signature for a function differs from the header's.
    case signatureMismatch(function: String, spec: String, header: String)
    /// The header declares a function the spec neither wraps nor skips.
    case undecidedFunction(String, signature: String)
    /// The spec decides a function more than once.
    case decidedTwice(String)
    /// A skip pattern matches no function of the header.
    case unusedSkipPattern(String)
    /// A spec entry cannot be generated as written.
    case specMismatch(function: String, message: String)
    /// A constant the spec names is not an integer macro of the header.
    case missingConstant(String)
    /// A C type outside what the generator maps.
    case unsupportedType(String)
    /// A function whose signature cannot be wrapped (variadic, pointer to function pointer).
    case unsupportedSignature(String)
    /// A spec file cannot be read.
    case unreadableSpec(file: String, message: String)
    /// An external tool (clang, swift format) failed.
    case toolFailed(tool: String, message: String)
    /// The argument overloads were asked for a largest arity outside the range the generator supports.
    case unsupportedArity(Int, supported: ClosedRange<Int>)

    /// A sentence naming what is wrong and where.
    public var description: String {
        switch self {
        case .missingFunction(let name):
            "the spec names \(name), which the header does not declare"
        case .signatureMismatch(let name, let spec, let header):
            "the C signature of \(name) changed: the spec says `\(spec)`, the header declares `\(header)`"
        case .undecidedFunction(let name, let signature):
            "the header declares \(name) `\(signature)`, which the spec neither wraps nor skips"
        case .decidedTwice(let name):
            "the spec decides \(name) more than once"
        case .unusedSkipPattern(let pattern):
            "the skip pattern \(pattern) matches no function of the header"
        case .specMismatch(let name, let message):
            "\(name): \(message)"
        case .missingConstant(let name):
            "the spec names the constant \(name), which the header does not define as an integer"
        case .unsupportedType(let type):
            "cannot map the C type `\(type)`"
        case .unsupportedSignature(let name):
            "\(name) has a signature the generator cannot wrap; skip it with a reason"
        case .unreadableSpec(let file, let message):
            "cannot read the spec file \(file): \(message)"
        case .toolFailed(let tool, let message):
            "\(tool) failed: \(message)"
        case .unsupportedArity(let arity, let supported):
            "cannot generate argument overloads up to \(arity) arguments: the largest arity must be in "
                + "\(supported.lowerBound)...\(supported.upperBound)"
        }
    }
}

/// How much of the header the spec wraps.
public struct Coverage: Equatable, Sendable {
    /// Functions the header declares.
    public var declared: Int
    /// Functions with at least one wrapper.
    public var wrapped: Int
    /// Functions skipped with a reason.
    public var skipped: Int
    /// Swift wrappers generated (a function may have several).
    public var wrappers: Int
    /// Functions the spec does not decide yet (always 0 unless undecided functions were allowed).
    public var undecided: Int
}

/// The generator: checks the spec against the header and writes one Swift file per receiver and
/// constant group.
public struct Generator {
    let header: CHeader
    let specFiles: [(name: String, file: SpecFile)]

    /// The command that regenerates the output, written at the top of every file. It runs from the repository root;
    /// the generator is a package of its own, so that the library's users never see it among the products.
    public static let regenerateCommand = "swift run --package-path Generator sqltk-bindgen"

    /// Reads the header through `clang` and every `*.json` file of `specDirectory`.
    public init(header: String, specDirectory: String, clang: String) throws {
        let cHeader = try CHeader.read(header: header, clang: clang)
        try self.init(header: cHeader, specDirectory: specDirectory)
    }

    /// Reads clang's outputs given as data (for tests) and the spec from `specDirectory`.
    public init(astJSON: Data, macroDefinitions: String, specDirectory: String) throws {
        try self.init(
            header: CHeader(astJSON: astJSON, macroDefinitions: macroDefinitions), specDirectory: specDirectory)
    }

    init(header: CHeader, specDirectory: String) throws {
        self.header = header
        let names = try FileManager.default.contentsOfDirectory(atPath: specDirectory)
            .filter { $0.hasSuffix(".json") }.sorted()
        self.specFiles = try names.map { name in
            let path = (specDirectory as NSString).appendingPathComponent(name)
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                return (name, try JSONDecoder().decode(SpecFile.self, from: data))
            } catch {
                throw GeneratorError.unreadableSpec(file: name, message: "\(error)")
            }
        }
    }

    private var handles: [String: String] {
        specFiles.reduce(into: [:]) { result, entry in result.merge(entry.file.handles ?? [:]) { first, _ in first } }
    }

    /// Checks that the spec decides every function of the header exactly once, against its current signature.
    /// With `allowingUndecided`, functions the spec does not mention yet are only counted (`Coverage.undecided`),
    /// for work in progress; everything else is still checked.
    public func coverage(allowingUndecided: Bool = false) throws -> Coverage {
        var decided: Set<String> = []
        var wrappers = 0
        var wrapped = 0
        for (_, file) in specFiles {
            for function in file.functions ?? [] {
                guard let declaration = header.functions[function.c] else {
                    throw GeneratorError.missingFunction(function.c)
                }
                guard Self.normalized(function.signature) == Self.normalized(declaration.signature) else {
                    throw GeneratorError.signatureMismatch(
                        function: function.c,
                        spec: function.signature,
                        header: declaration.signature
                    )
                }
                guard !declaration.isVariadic else { throw GeneratorError.unsupportedSignature(function.c) }
                guard decided.insert(function.c).inserted else { throw GeneratorError.decidedTwice(function.c) }
                wrapped += 1
                wrappers += function.wrappers.count
            }
        }
        var skipped = 0
        let skips = specFiles.flatMap { $0.file.skip ?? [] }
        for skip in skips {
            if let name = skip.c {
                guard header.functions[name] != nil else { throw GeneratorError.missingFunction(name) }
                guard decided.insert(name).inserted else { throw GeneratorError.decidedTwice(name) }
                skipped += 1
            }
        }
        for skip in skips {
            guard let pattern = skip.pattern else { continue }
            let expression: NSRegularExpression
            do {
                expression = try NSRegularExpression(pattern: pattern)
            } catch {
                throw GeneratorError.unreadableSpec(file: "skip pattern", message: "\(pattern): \(error)")
            }
            var matched = false
            for name in header.functions.keys.sorted() {
                let range = NSRange(name.startIndex..., in: name)
                guard expression.firstMatch(in: name, range: range) != nil else { continue }
                matched = true
                if decided.insert(name).inserted { skipped += 1 }
            }
            if !matched { throw GeneratorError.unusedSkipPattern(pattern) }
        }
        let undecided = header.functions.keys.sorted().filter { !decided.contains($0) }
        if let name = undecided.first, !allowingUndecided {
            throw GeneratorError.undecidedFunction(name, signature: header.functions[name]?.signature ?? "")
        }
        return Coverage(
            declared: header.functions.count,
            wrapped: wrapped,
            skipped: skipped,
            wrappers: wrappers,
            undecided: undecided.count
        )
    }

    /// The generated files by name, before formatting. Throws the first problem of the spec; see
    /// `coverage(allowingUndecided:)` for `allowingUndecided`.
    public func files(allowingUndecided: Bool = false) throws -> [String: String] {
        _ = try coverage(allowingUndecided: allowingUndecided)
        let emitter = Emitter(header: header, handles: handles)
        var files: [String: String] = [:]
        for (specName, file) in specFiles {
            if let receiver = file.receiver, let functions = file.functions {
                var body: [String] = []
                for function in functions {
                    guard let declaration = header.functions[function.c] else { continue }
                    for wrapper in function.wrappers {
                        body.append(try emitter.wrapper(wrapper, of: function, declaration: declaration))
                    }
                }
                let indented = body.map {
                    $0.split(separator: "\n", omittingEmptySubsequences: false)
                        .map { $0.isEmpty ? "" : "    " + $0 }.joined(separator: "\n")
                }
                let fileName = file.file ?? receiver + ".swift"
                guard files[fileName] == nil else {
                    throw GeneratorError.unreadableSpec(
                        file: specName,
                        message: "another spec file also writes \(fileName); give one of them a distinct \"file\""
                    )
                }
                files[fileName] =
                    Self.fileHeader(spec: specName) + "extension \(receiver) {\n"
                    + indented.joined(separator: "\n").trimmingCharacters(in: .newlines) + "\n}\n"
            }
            for group in file.constants ?? [] {
                let name = group.kind == .extension ? group.type + "+Constants.swift" : group.type + ".swift"
                guard files[name] == nil else {
                    throw GeneratorError.unreadableSpec(
                        file: specName, message: "another spec file also writes \(name)")
                }
                files[name] = Self.fileHeader(spec: specName) + (try emitter.constants(group))
            }
        }
        return files
    }

    static func fileHeader(spec: String) -> String {
        """
        // Generated by sqltk-bindgen from sqlite3.h and Generator/Spec/\(spec). Do not edit.
        // Regenerate with: \(regenerateCommand)

        import CSQLiteToolkit


        """
    }

    /// Skeleton spec entries for the functions the spec does not decide yet, to start a review from.
    public func draft() -> String {
        var decided: Set<String> = []
        for (_, file) in specFiles {
            for function in file.functions ?? [] { decided.insert(function.c) }
            for skip in file.skip ?? [] { if let name = skip.c { decided.insert(name) } }
        }
        let patterns = specFiles.flatMap { $0.file.skip ?? [] }.compactMap(\.pattern)
            .compactMap { try? NSRegularExpression(pattern: $0) }
        var entries: [String] = []
        for name in header.functions.keys.sorted() where !decided.contains(name) {
            let range = NSRange(name.startIndex..., in: name)
            if patterns.contains(where: { $0.firstMatch(in: name, range: range) != nil }) { continue }
            guard let function = header.functions[name] else { continue }
            let parameters = function.parameters.enumerated().map { index, parameter in
                "\"\(parameter.name ?? "p\(index)")\""
            }
            entries.append(
                """
                {"c": "\(name)", "signature": "\(function.signature)", "link": "",
                 "wrappers": [{"swift": "", "doc": "", "params": [\(parameters.joined(separator: ", "))]}]}
                """
            )
        }
        return entries.joined(separator: ",\n")
    }

    private static func normalized(_ signature: String) -> String {
        signature.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
