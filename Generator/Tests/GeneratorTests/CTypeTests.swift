import Testing

@testable import BindgenCore

@Suite("C types")
struct CTypeTests {
    /// The header model the mapping needs: which typedefs name incomplete structs.
    let emitter = Emitter(
        header: CHeader(
            functions: [:],
            opaqueTypes: ["sqltk_sqlite3", "sqltk_sqlite3_stmt", "sqltk_sqlite3_context", "sqltk_sqlite3_value"],
            macros: [:]
        ),
        handles: ["sqlite3": "ConnectionHandle", "sqlite3_stmt": "StatementHandle"]
    )

    @Test(
        "clang's spellings parse into the type they declare",
        arguments: [
            ("int", CType.named("int", isConst: false)),
            ("unsigned int", .named("unsigned int", isConst: false)),
            ("sqltk_sqlite3_int64", .named("sqltk_sqlite3_int64", isConst: false)),
            ("const char *", .pointer(.named("char", isConst: true))),
            ("char *const", .pointer(.named("char", isConst: false))),
            ("const char **", .pointer(.pointer(.named("char", isConst: true)))),
            ("struct sqltk_sqlite3 *", .pointer(.named("sqltk_sqlite3", isConst: false))),
            ("sqltk_sqlite3_stmt **", .pointer(.pointer(.named("sqltk_sqlite3_stmt", isConst: false)))),
            (
                "int (*)(void *, int)",
                .functionPointer(
                    returns: .named("int", isConst: false),
                    parameters: [.pointer(.named("void", isConst: false)), .named("int", isConst: false)],
                    isVariadic: false
                )
            ),
            (
                "void (*)(void *)",
                .functionPointer(
                    returns: .named("void", isConst: false),
                    parameters: [.pointer(.named("void", isConst: false))],
                    isVariadic: false
                )
            ),
            (
                "void *(*)(void)",
                .functionPointer(returns: .pointer(.named("void", isConst: false)), parameters: [], isVariadic: false)
            ),
        ]
    )
    func parsesType(spelling: String, expected: CType) throws {
        #expect(try CTypeParser.parse(spelling) == expected)
    }

    @Test("a function type gives its result, its parameters and whether it is variadic")
    func parsesFunction() throws {
        let function = try CTypeParser.parseFunction(
            "int (sqltk_sqlite3 *, const char *, int *, void (*)(void *), unsigned int, ...)")
        #expect(function.returns == .named("int", isConst: false))
        #expect(
            function.parameters == [
                .pointer(.named("sqltk_sqlite3", isConst: false)),
                .pointer(.named("char", isConst: true)),
                .pointer(.named("int", isConst: false)),
                .functionPointer(
                    returns: .named("void", isConst: false),
                    parameters: [.pointer(.named("void", isConst: false))],
                    isVariadic: false
                ),
                .named("unsigned int", isConst: false),
            ]
        )
        #expect(function.isVariadic)
    }

    @Test("a function of (void) has no parameters")
    func parsesVoidParameterList() throws {
        let function = try CTypeParser.parseFunction("sqltk_sqlite3_destructor_type (void)")
        #expect(function.returns == .named("sqltk_sqlite3_destructor_type", isConst: false))
        #expect(function.parameters.isEmpty)
        #expect(!function.isVariadic)
    }

    @Test(
        "spellings outside the grammar throw unsupportedType",
        arguments: ["", "*", "int [4]", "int (**)(void)", "int (*)(void", "int (int"]
    )
    func rejectsUnsupportedSpelling(spelling: String) {
        #expect(throws: GeneratorError.unsupportedType(spelling)) {
            if spelling.contains("(int") {
                _ = try CTypeParser.parseFunction(spelling)
            } else {
                _ = try CTypeParser.parse(spelling)
            }
        }
    }

    @Test(
        "each C type maps to the type Swift imports",
        arguments: [
            ("void", "Void"),
            ("int", "Int32"),
            ("unsigned int", "UInt32"),
            ("double", "Double"),
            ("unsigned char", "UInt8"),
            ("sqltk_sqlite3_int64", "Int64"),
            ("sqltk_sqlite3_uint64", "UInt64"),
            ("void *", "UnsafeMutableRawPointer?"),
            ("const void *", "UnsafeRawPointer?"),
            ("char *", "UnsafeMutablePointer<CChar>?"),
            ("const char *", "UnsafePointer<CChar>?"),
            ("const unsigned char *", "UnsafePointer<UInt8>?"),
            ("int *", "UnsafeMutablePointer<Int32>?"),
            ("unsigned int *", "UnsafeMutablePointer<UInt32>?"),
            ("sqltk_sqlite3_int64 *", "UnsafeMutablePointer<Int64>?"),
            ("const char **", "UnsafeMutablePointer<UnsafePointer<CChar>?>?"),
            ("char **", "UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?"),
            ("sqltk_sqlite3 *", "OpaquePointer?"),
            ("struct sqltk_sqlite3 *", "OpaquePointer?"),
            ("sqltk_sqlite3_stmt **", "UnsafeMutablePointer<OpaquePointer?>?"),
            ("int (*)(void *, int)", "(@convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32)?"),
            ("void (*)(void *)", "(@convention(c) (UnsafeMutableRawPointer?) -> Void)?"),
            ("void *(*)(void *)", "(@convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?)?"),
            (
                "int (*)(void *, int, char **, char **)",
                "(@convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, "
                    + "UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32)?"
            ),
            (
                "void (*)(sqltk_sqlite3_context *, int, sqltk_sqlite3_value **)",
                "(@convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void)?"
            ),
            (
                "int (*)(void *, int, const char *, const char *, const char *, const char *)",
                "(@convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, "
                    + "UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32)?"
            ),
        ]
    )
    func mapsToImportedType(spelling: String, expected: String) throws {
        let type = try CTypeParser.parse(spelling)
        #expect(try emitter.importedType(type, function: "sqlite3_example") == expected)
    }

    @Test(
        "callbacks Swift cannot import as written throw unsupportedSignature naming the function",
        arguments: ["int (*)(int, ...)", "void (*)(int (*)(void *, int), int, ...)"]
    )
    func rejectsVariadicCallback(spelling: String) throws {
        let type = try CTypeParser.parse(spelling)
        #expect(throws: GeneratorError.unsupportedSignature("sqlite3_example")) {
            _ = try emitter.importedType(type, function: "sqlite3_example")
        }
    }

    @Test(
        "numbers are scalars; characters, pointers and handles are not",
        arguments: [
            ("int", true), ("unsigned int", true), ("double", true), ("sqltk_sqlite3_int64", true),
            ("sqltk_sqlite3_uint64", true), ("char", false), ("unsigned char", false), ("int *", false),
            ("sqltk_sqlite3 *", false),
        ]
    )
    func classifiesScalars(spelling: String, isScalar: Bool) throws {
        #expect(emitter.isScalar(try CTypeParser.parse(spelling)) == isScalar)
    }

    @Test(
        "a pointer to a wrapped object maps to its handle type",
        arguments: [
            ("sqltk_sqlite3 *", "ConnectionHandle"), ("sqltk_sqlite3_stmt *", "StatementHandle"),
            ("sqltk_sqlite3_value *", nil), ("sqltk_sqlite3 **", nil), ("int", nil),
        ] as [(String, String?)]
    )
    func mapsHandles(spelling: String, handle: String?) throws {
        #expect(emitter.handleType(try CTypeParser.parse(spelling)) == handle)
    }
}
