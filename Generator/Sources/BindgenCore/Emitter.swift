/// Words Swift reserves, which a generated member name must escape.
private let swiftKeywords: Set<String> = [
    "as", "associatedtype", "break", "case", "catch", "class", "continue", "default", "defer", "deinit", "do", "else",
    "enum", "extension", "fallthrough", "false", "fileprivate", "for", "func", "guard", "if", "import", "in", "init",
    "inout", "internal", "is", "let", "nil", "operator", "private", "protocol", "public", "repeat", "rethrows",
    "return", "self", "static", "struct", "subscript", "super", "switch", "throw", "throws", "true", "try",
    "typealias", "var", "where", "while",
]

/// Turns checked spec entries into Swift source text.
struct Emitter {
    let header: CHeader
    /// C object type without the link prefix (`sqlite3_stmt`) to Swift handle type (`StatementHandle`).
    let handles: [String: String]

    // MARK: - Types

    private static let scalarTypes: [String: String] = [
        "int": "Int32", "unsigned int": "UInt32", "double": "Double", "char": "CChar", "unsigned char": "UInt8",
        "sqltk_sqlite3_int64": "Int64", "sqltk_sqlite_int64": "Int64",
        "sqltk_sqlite3_uint64": "UInt64", "sqltk_sqlite_uint64": "UInt64",
    ]

    /// Whether `type` is a number Swift imports as a plain numeric type.
    func isScalar(_ type: CType) -> Bool {
        guard case .named(let name, _) = type, name != "char", name != "unsigned char" else { return false }
        return Self.scalarTypes[name] != nil
    }

    /// The Swift handle type for a pointer to a wrapped C object, if `type` is one.
    func handleType(_ type: CType) -> String? {
        guard let name = type.pointee?.name else { return nil }
        return handles[specName(forLinkName: name)]
    }

    /// The type Swift imports for `type`.
    func importedType(_ type: CType, function: String) throws -> String {
        switch type {
        case .named(let name, _):
            if name == "void" { return "Void" }
            if let scalar = Self.scalarTypes[name] { return scalar }
            // Other names are typedefs of the header (function pointer types, complete structs), which Swift
            // imports under their own name; C's own number types must be mapped above.
            guard name.hasPrefix(linkPrefix) else { throw GeneratorError.unsupportedType(name) }
            return name
        case .pointer(let pointee):
            if case .named(let name, let isConst) = pointee {
                if name == "void" { return isConst ? "UnsafeRawPointer?" : "UnsafeMutableRawPointer?" }
                if header.opaqueTypes.contains(name) { return "OpaquePointer?" }
            }
            if case .functionPointer = pointee { throw GeneratorError.unsupportedSignature(function) }
            let inner = try importedType(pointee, function: function)
            return pointee.isConstPointee ? "UnsafePointer<\(inner)>?" : "UnsafeMutablePointer<\(inner)>?"
        case .functionPointer(let returns, let parameters, let isVariadic):
            guard !isVariadic else { throw GeneratorError.unsupportedSignature(function) }
            let parameterList = try parameters.map { try importedType($0, function: function) }
            let result = try importedType(returns, function: function)
            return "(@convention(c) (\(parameterList.joined(separator: ", "))) -> \(result))?"
        }
    }

    // MARK: - Functions

    /// The Swift text of one wrapper, with its doc comment, indented for an extension body.
    func wrapper(_ spec: WrapperSpec, of function: FunctionSpec, declaration: CFunction) throws -> String {
        let name = function.c
        guard spec.params.count == declaration.parameters.count else {
            throw GeneratorError.specMismatch(
                function: name,
                message:
                    "the spec lists \(spec.params.count) parameters; the header declares \(declaration.parameters.count)"
            )
        }
        var signature: [String] = []
        var arguments: [String] = []
        var prelude: [String] = []
        var openers: [String] = []
        var outputs: [(label: String, expression: String, type: String)] = []
        // 32-bit lengths checked before the call: the parameter's name and the Swift count it holds.
        var narrowedLengths: [(name: String, count: String)] = []
        var byName: [String: ParameterSpec] = [:]
        for parameter in spec.params where parameter.convert != .receiver {
            guard byName.updateValue(parameter, forKey: parameter.name) == nil else {
                throw GeneratorError.specMismatch(function: name, message: "two parameters are named \(parameter.name)")
            }
        }

        func fail(_ message: String) -> GeneratorError {
            GeneratorError.specMismatch(function: name, message: message)
        }
        func declare(_ parameter: ParameterSpec, _ type: String) {
            let label = parameter.label ?? parameter.name
            signature.append(label == parameter.name ? "\(label): \(type)" : "\(label) \(parameter.name): \(type)")
        }

        for (parameter, cParameter) in zip(spec.params, declaration.parameters) {
            let cType = cParameter.type
            let imported = try importedType(cType, function: name)
            switch parameter.convert {
            case .receiver:
                guard spec.isStatic != true else { throw fail("a static wrapper has no receiver parameter") }
                arguments.append("rawValue")
            case .auto:
                if isScalar(cType) {
                    declare(parameter, imported)
                    arguments.append(parameter.name)
                } else if let handle = handleType(cType) {
                    let isOptional = parameter.optional == true
                    declare(parameter, isOptional ? handle + "?" : handle)
                    arguments.append(isOptional ? "\(parameter.name)?.rawValue" : "\(parameter.name).rawValue")
                } else {
                    declare(parameter, imported)
                    arguments.append(parameter.name)
                }
            case .text, .optionalText:
                guard cType == .pointer(.named("char", isConst: true)) else {
                    throw fail("parameter \(parameter.name) is text but its C type is not const char *")
                }
                let isOptional = parameter.convert == .optionalText
                declare(parameter, isOptional ? "String?" : "String")
                openers.append(
                    isOptional
                        ? "withOptionalCString(\(parameter.name)) { \(parameter.name)Pointer in"
                        : "\(parameter.name).withCString { \(parameter.name)Pointer in"
                )
                arguments.append("\(parameter.name)Pointer")
            case .bytes:
                guard case .pointer(.named("void", let isConst)) = cType else {
                    throw fail("parameter \(parameter.name) is bytes but its C type is not void *")
                }
                declare(parameter, "UnsafeRawBufferPointer")
                // Some functions (sqlite3changeset_apply, ...) take `void *` for bytes they only read.
                arguments.append(
                    isConst
                        ? "\(parameter.name).baseAddress ?? emptyBytes"
                        : "UnsafeMutableRawPointer(mutating: \(parameter.name).baseAddress ?? emptyBytes)"
                )
            case .textLength, .bytesLength:
                guard let measured = parameter.of, let target = byName[measured] else {
                    throw fail("parameter \(parameter.name) measures a parameter the spec does not name (`of`)")
                }
                let isText = parameter.convert == .textLength
                guard isText ? (target.convert == .text) : (target.convert == .bytes) else {
                    throw fail(
                        "parameter \(parameter.name) measures \(measured), which is not \(isText ? "text" : "bytes")")
                }
                let count = "\(measured)\(isText ? ".utf8.count" : ".count")"
                if imported == "Int64" || imported == "UInt64" {
                    arguments.append("\(imported)(\(count))")
                } else if imported == "Int32" {
                    // A 32-bit length cannot hold every Swift count: a longer buffer is refused with
                    // SQLITE_TOOBIG before the call, never truncated or trapped on.
                    guard spec.returns?.convert == .resultCode else {
                        throw fail(
                            "parameter \(parameter.name) is a 32-bit length, which needs a resultCode result to refuse a longer buffer"
                        )
                    }
                    narrowedLengths.append((parameter.name, count))
                    arguments.append(parameter.name)
                } else {
                    throw fail(
                        "parameter \(parameter.name) is a length of C type \(imported); only 32- and 64-bit lengths convert"
                    )
                }
            case .transient:
                arguments.append("sqltk_transient()")
            case .constant:
                guard let value = parameter.value else {
                    throw fail("constant parameter \(parameter.name) has no value")
                }
                arguments.append(value)
            case .bool:
                guard imported == "Int32" else { throw fail("parameter \(parameter.name) is bool but not int") }
                declare(parameter, "Bool")
                arguments.append("\(parameter.name) ? 1 : 0")
            case .rawValue:
                guard let type = parameter.type else { throw fail("parameter \(parameter.name) needs a `type`") }
                declare(parameter, type)
                arguments.append("\(parameter.name).rawValue")
            case .out, .rawOut:
                guard let pointee = cType.pointee else {
                    throw fail("out-parameter \(parameter.name) is not a pointer")
                }
                let storage = try importedType(pointee, function: name)
                guard storage.hasSuffix("?") || isScalar(pointee) else {
                    throw fail(
                        "out-parameter \(parameter.name) points to \(storage), which has no zero value to start from")
                }
                let initial = storage.hasSuffix("?") ? "nil" : "0"
                prelude.append("var \(parameter.name): \(storage) = \(initial)")
                arguments.append("&\(parameter.name)")
                if parameter.convert == .rawOut {
                    outputs.append((parameter.name, parameter.name, storage))
                } else if let type = parameter.type {
                    guard isScalar(pointee) else {
                        throw fail("out-parameter \(parameter.name) has a `type` but does not point to a number")
                    }
                    outputs.append(
                        type == "Bool"
                            ? (parameter.name, "\(parameter.name) != 0", "Bool")
                            : (parameter.name, "\(type)(rawValue: \(parameter.name))", type))
                } else if let handle = handleType(pointee) {
                    outputs.append((parameter.name, "\(parameter.name).map(\(handle).init(rawValue:))", handle + "?"))
                } else if pointee == .pointer(.named("char", isConst: true)) {
                    outputs.append((parameter.name, "\(parameter.name).map { String(cString: $0) }", "String?"))
                } else {
                    outputs.append((parameter.name, parameter.name, storage))
                }
            case .outBuffer:
                guard cType == .pointer(.pointer(.named("void", isConst: false))) else {
                    throw fail("out-parameter \(parameter.name) is a buffer but its C type is not void **")
                }
                let lengths = spec.params.filter { $0.convert == .outBufferLength && $0.of == parameter.name }
                guard lengths.count == 1, let length = lengths.first else {
                    throw fail("buffer \(parameter.name) needs exactly one outBufferLength parameter giving its size")
                }
                prelude.append("var \(parameter.name): UnsafeMutableRawPointer? = nil")
                arguments.append("&\(parameter.name)")
                // SQLiteBuffer owns the memory SQLite allocated and is the one place that frees it.
                outputs.append(
                    (parameter.name, "SQLiteBuffer(taking: \(parameter.name), count: \(length.name))", "SQLiteBuffer?"))
            case .outBufferLength:
                guard let buffer = parameter.of, byName[buffer]?.convert == .outBuffer else {
                    throw fail("parameter \(parameter.name) measures a buffer the spec does not name (`of`)")
                }
                guard cType == .pointer(.named("int", isConst: false)) else {
                    throw fail("parameter \(parameter.name) is a buffer length but its C type is not int *")
                }
                prelude.append("var \(parameter.name): Int32 = 0")
                arguments.append("&\(parameter.name)")
            case .outOwnedText:
                guard cType == .pointer(.pointer(.named("char", isConst: false))) else {
                    throw fail("out-parameter \(parameter.name) is owned text but its C type is not char **")
                }
                prelude.append("var \(parameter.name): UnsafeMutablePointer<CChar>? = nil")
                arguments.append("&\(parameter.name)")
                outputs.append((parameter.name, "takeSQLiteString(\(parameter.name))", "String?"))
            }
        }

        let call = "\(declaration.linkName)(\(arguments.joined(separator: ", ")))"
        let result = try convertedResult(
            spec.returns ?? ReturnSpec(convert: .auto), call: call, declaration: declaration, arguments: arguments)
        var body: [String]
        var returnType: String?
        if outputs.isEmpty {
            body = result.statements
            returnType = result.type
        } else {
            var components: [(label: String, expression: String, type: String)] = []
            body = []
            if let type = result.type {
                guard result.statements.count == 1, let only = result.statements.first, only.hasPrefix("return ") else {
                    throw fail("a result that needs several statements cannot be combined with out-parameters")
                }
                body.append("let result = \(only.dropFirst("return ".count))")
                components.append((result.label, "result", type))
            } else {
                body.append(contentsOf: result.statements)
            }
            components += outputs
            if components.count == 1, let only = components.first {
                body.append("return \(only.expression)")
                returnType = only.type
            } else {
                body.append(
                    "return (" + components.map { "\($0.label): \($0.expression)" }.joined(separator: ", ") + ")")
                returnType = "(" + components.map { "\($0.label): \($0.type)" }.joined(separator: ", ") + ")"
            }
        }

        // Refuse a buffer too long for a 32-bit length before anything else runs.
        var guards: [String] = []
        if !narrowedLengths.isEmpty {
            var defaults = ["ResultCode.toobig"]
            for output in outputs {
                defaults.append("\(output.label): \(Self.zeroValue(output.type))")
            }
            let early = outputs.isEmpty ? "ResultCode.toobig" : "(code: " + defaults.joined(separator: ", ") + ")"
            for length in narrowedLengths {
                guards.append("guard let \(length.name) = Int32(exactly: \(length.count)) else { return \(early) }")
            }
        }

        // Nest the body in the closures that keep text alive for the call.
        var lines: [String] = []
        let needsReturn = returnType != nil
        for opener in openers {
            lines.append((needsReturn ? "return " : "") + opener)
        }
        lines += body
        lines += Array(repeating: "}", count: openers.count)
        lines = guards + prelude + lines

        var text =
            "/// \(spec.doc)\n///\n/// C function: `\(function.c)`. Related SQLite documentation: <\(function.link)>\n"
        text += "@inlinable\n"
        let arrow = returnType.map { " -> \($0)" } ?? ""
        text +=
            "public \(spec.isStatic == true ? "static " : "")func \(spec.swift)(\(signature.joined(separator: ", ")))\(arrow) {\n"
        text += lines.map { "    " + $0 }.joined(separator: "\n") + "\n}\n"
        return text
    }

    /// The value an output takes when the wrapper returns before calling C: `nil`, `false`, 0, or a constant
    /// type's zero.
    static func zeroValue(_ type: String) -> String {
        if type.hasSuffix("?") { return "nil" }
        switch type {
        case "Bool": return "false"
        case "Int32", "UInt32", "Int64", "UInt64", "Double", "CChar", "UInt8": return "0"
        default: return "\(type)(rawValue: 0)"
        }
    }

    /// The statements that produce the wrapper's value from the C call, and its Swift type (`nil` for none).
    private func convertedResult(
        _ spec: ReturnSpec,
        call: String,
        declaration: CFunction,
        arguments: [String]
    ) throws -> (statements: [String], type: String?, label: String) {
        let name = declaration.name
        let cType = declaration.returns
        func fail(_ message: String) -> GeneratorError {
            GeneratorError.specMismatch(function: name, message: message)
        }
        func lengthCall() throws -> String {
            guard let length = spec.length, let lengthFunction = header.functions[length] else {
                throw fail("the result conversion needs `length`, a C function the header declares")
            }
            return "\(lengthFunction.linkName)(\(arguments.joined(separator: ", ")))"
        }
        switch spec.convert {
        case .auto:
            if cType == .named("void", isConst: false) { return ([call], nil, "") }
            if let handle = handleType(cType) {
                return (["return \(call).map(\(handle).init(rawValue:))"], handle + "?", "value")
            }
            return (["return \(call)"], try importedType(cType, function: name), "value")
        case .resultCode:
            guard cType == .named("int", isConst: false) else { throw fail("a result code must be a C int") }
            return (["return ResultCode(rawValue: \(call))"], "ResultCode", "code")
        case .bool:
            guard isScalar(cType) else { throw fail("a Bool result must be a C number") }
            return (["return \(call) != 0"], "Bool", "value")
        case .text:
            guard cType.pointee?.name == "char" || cType.pointee?.name == "unsigned char" else {
                throw fail("a text result must be a C string")
            }
            return (["return \(call).map { String(cString: $0) }"], "String?", "value")
        case .textBytes:
            guard cType.pointee?.name == "char" || cType.pointee?.name == "unsigned char" else {
                throw fail("a text result must be a C string")
            }
            return (
                [
                    "guard let text = \(call) else { return nil }",
                    "var count = 0",
                    "while text[count] != 0 { count += 1 }",
                    "return Array(UnsafeRawBufferPointer(start: text, count: count))",
                ], "[UInt8]?", "value"
            )
        case .textWithLength:
            return (
                [
                    "guard let text = \(call) else { return nil }",
                    "let count = Int(\(try lengthCall()))",
                    "return String(decoding: UnsafeRawBufferPointer(start: text, count: count), as: UTF8.self)",
                ], "String?", "value"
            )
        case .bytesWithLength:
            return (
                [
                    "guard let bytes = \(call) else { return [] }",
                    "return Array(UnsafeRawBufferPointer(start: bytes, count: Int(\(try lengthCall()))))",
                ], "[UInt8]", "value"
            )
        case .bytesOrNilWithLength:
            guard let datatype = spec.datatype, let datatypeFunction = header.functions[datatype] else {
                throw fail("the result conversion needs `datatype`, a C function the header declares")
            }
            let datatypeCall = "\(datatypeFunction.linkName)(\(arguments.joined(separator: ", ")))"
            return (
                [
                    "guard let bytes = \(call) else { return Datatype(rawValue: \(datatypeCall)) == .null ? nil : [] }",
                    "return Array(UnsafeRawBufferPointer(start: bytes, count: Int(\(try lengthCall()))))",
                ], "[UInt8]?", "value"
            )
        case .bufferWithLength:
            return (
                [
                    "let bytes = \(call)",
                    "return UnsafeRawBufferPointer(start: bytes, count: bytes == nil ? 0 : Int(\(try lengthCall())))",
                ], "UnsafeRawBufferPointer", "value"
            )
        case .rawValue:
            guard let type = spec.type else { throw fail("a rawValue result needs a `type`") }
            return (["return \(type)(rawValue: \(call))"], type, "value")
        }
    }

    // MARK: - Constants

    /// The Swift member name of a macro: the prefix removed, lower camel case (`SQLITE_IOERR_READ` → `ioerrRead`).
    static func memberName(_ macro: String, prefix: String) -> String {
        let words = macro.dropFirst(prefix.count).split(separator: "_").map { $0.lowercased() }
        guard let first = words.first else { return macro }
        var name = first + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        if let initial = name.first, initial.isNumber { name = "_" + name }
        return swiftKeywords.contains(name) ? "`\(name)`" : name
    }

    /// The Swift text of one constant group.
    func constants(_ group: ConstantGroupSpec) throws -> String {
        var selected: [String] = group.names ?? []
        for name in header.macros.keys.sorted() where (group.namePrefixes ?? []).contains(where: name.hasPrefix) {
            if !selected.contains(name) { selected.append(name) }
        }
        selected.removeAll { (group.exclude ?? []).contains($0) }
        var members: [(macro: String, member: String, value: Int64)] = []
        for macro in selected {
            guard let value = header.macros[macro] else { throw GeneratorError.missingConstant(macro) }
            members.append((macro, Self.memberName(macro, prefix: group.prefix), value))
        }
        members.sort { ($0.value, $0.macro) < ($1.value, $1.macro) }

        var text = ""
        let documentation = "/// \(group.doc)\n///\n/// Related SQLite documentation: <\(group.link)>\n"
        switch group.kind {
        case .extension:
            text += "extension \(group.type) {\n"
        case .values, .options:
            text += documentation
            let conformance = group.kind == .options ? "OptionSet" : "RawRepresentable, Hashable"
            text += "public struct \(group.type): \(conformance), Sendable {\n"
            text += "    /// The C value.\n    public var rawValue: \(group.rawType)\n\n"
            text += "    /// Wraps a C value.\n    @inlinable\n    public init(rawValue: \(group.rawType)) {\n"
            text += "        self.rawValue = rawValue\n    }\n"
        }
        for (index, member) in members.enumerated() {
            text += (index == 0 && group.kind == .extension ? "" : "\n") + "    /// `\(member.macro)`\n    @inlinable\n"
            text +=
                "    public static var \(member.member): \(group.type) { \(group.type)(rawValue: \(member.value)) }\n"
        }
        if group.generateNames == true {
            text += "\n    /// Every named constant, in the order of their values.\n"
            text += "    public static let allNamed: [\(group.type)] = [\n"
            text += members.map { "        .\($0.member),\n" }.joined()
            text += "    ]\n"
            text +=
                "\n    /// The C name of the constant (`\(members.first?.macro ?? "")`), or `nil` for a value without one.\n"
            text += "    public var name: String? {\n        switch rawValue {\n"
            var seen: Set<Int64> = []
            for member in members where seen.insert(member.value).inserted {
                text += "        case \(member.value): return \"\(member.macro)\"\n"
            }
            text += "        default: return nil\n        }\n    }\n"
        }
        text += "}\n"
        return text
    }
}
