import Foundation

/// One parameter of a C function as the header declares it.
struct CParameter: Equatable, Sendable {
    /// The parameter's name in the header, when it has one.
    var name: String?
    /// Its type.
    var type: CType
}

/// A C function declared by the header.
struct CFunction: Equatable, Sendable {
    /// The name the spec uses: without the `sqltk_` link prefix (`sqlite3_bind_int`).
    var name: String
    /// The name to call from Swift (`sqltk_sqlite3_bind_int`).
    var linkName: String
    /// The function type without the link prefix, as the spec's `signature` spells it.
    var signature: String
    var returns: CType
    var parameters: [CParameter]
    var isVariadic: Bool
}

/// What the generator knows about the C API: its functions, which structs are complete, and
/// the integer values of its macros.
struct CHeader: Sendable {
    /// Functions by their spec name.
    var functions: [String: CFunction]
    /// Typedef names (with the link prefix) of structs whose definition is not visible: Swift imports
    /// pointers to them as `OpaquePointer`.
    var opaqueTypes: Set<String>
    /// Integer macros by name, as the preprocessor sees them after every option is applied.
    var macros: [String: Int64]
}

/// The link prefix every C name of CSQLiteToolkit carries.
let linkPrefix = "sqltk_"

/// Removes the link prefix from SQLite's names, keeping it on the shim's own helpers.
func specName(forLinkName name: String) -> String {
    let rest = name.dropFirst(linkPrefix.count)
    if name.hasPrefix(linkPrefix), rest.hasPrefix("sqlite") || rest.hasPrefix("wxsqlite") {
        return String(rest)
    }
    return name
}

/// Spells a C type from the header the way the spec does: without the link prefix on SQLite's names.
func specSpelling(_ text: String) -> String {
    text.replacingOccurrences(of: linkPrefix + "sqlite", with: "sqlite")
        .replacingOccurrences(of: linkPrefix + "wxsqlite", with: "wxsqlite")
}

extension CHeader {
    /// Reads the header through clang: declarations from its JSON AST, macros from `-dM -E`.
    static func read(header: String, clang: String) throws -> CHeader {
        let ast = try run(clang, ["-x", "c", "-fsyntax-only", "-Xclang", "-ast-dump=json", header])
        let macros = try run(clang, ["-x", "c", "-E", "-dM", header])
        return try CHeader(astJSON: ast, macroDefinitions: String(decoding: macros, as: UTF8.self))
    }

    /// Builds the model from clang's JSON AST and its macro dump.
    init(astJSON: Data, macroDefinitions: String) throws {
        let root = try JSONDecoder().decode(ASTNode.self, from: astJSON)
        var functions: [String: CFunction] = [:]
        var completeRecords: Set<String> = []
        var typedefs: [String: String] = [:]
        for node in root.inner ?? [] {
            guard let name = node.name else { continue }
            switch node.kind {
            case "FunctionDecl" where name.hasPrefix(linkPrefix):
                guard functions[specName(forLinkName: name)] == nil, let type = node.type?.qualType else { continue }
                let parsed = try CTypeParser.parseFunction(type)
                let parameterNodes = (node.inner ?? []).filter { $0.kind == "ParmVarDecl" }
                let parameters = parsed.parameters.enumerated().map { index, type in
                    CParameter(name: index < parameterNodes.count ? parameterNodes[index].name : nil, type: type)
                }
                functions[specName(forLinkName: name)] = CFunction(
                    name: specName(forLinkName: name),
                    linkName: name,
                    signature: specSpelling(type),
                    returns: parsed.returns,
                    parameters: parameters,
                    isVariadic: parsed.isVariadic
                )
            case "RecordDecl" where node.completeDefinition == true:
                completeRecords.insert(name)
            case "TypedefDecl":
                if let type = node.type?.qualType { typedefs[name] = type }
            default:
                break
            }
        }
        var opaqueTypes: Set<String> = []
        for (name, type) in typedefs where type.hasPrefix("struct ") {
            if !completeRecords.contains(String(type.dropFirst("struct ".count))) { opaqueTypes.insert(name) }
        }
        self.init(functions: functions, opaqueTypes: opaqueTypes, macros: MacroEvaluator.evaluate(macroDefinitions))
    }
}

/// The part of clang's JSON AST the generator reads.
private struct ASTNode: Decodable {
    struct QualType: Decodable {
        var qualType: String
    }
    var kind: String?
    var name: String?
    var type: QualType?
    var completeDefinition: Bool?
    var inner: [ASTNode]?
}

/// Runs a tool and returns its standard output, or throws with its standard error.
func run(_ tool: String, _ arguments: [String]) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    let output = Pipe()
    // Standard error goes to a file, so a chatty tool cannot fill a pipe that nobody reads.
    let errorURL = FileManager.default.temporaryDirectory.appendingPathComponent(
        "sqltk-bindgen-\(UUID().uuidString).err")
    _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: errorURL) }
    let errors = try FileHandle(forWritingTo: errorURL)
    defer { try? errors.close() }
    process.standardOutput = output
    process.standardError = errors
    do {
        try process.run()
    } catch {
        throw GeneratorError.toolFailed(tool: tool, message: "\(error)")
    }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let errorData = (try? Data(contentsOf: errorURL)) ?? Data()
    guard process.terminationStatus == 0 else {
        throw GeneratorError.toolFailed(tool: tool, message: String(decoding: errorData, as: UTF8.self))
    }
    return data
}
