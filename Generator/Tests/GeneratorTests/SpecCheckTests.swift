import Testing

@testable import BindgenCore

/// A spec that the generator must refuse, and the error it must stop with.
struct RejectedSpec: Sendable, CustomTestStringConvertible {
    var situation: String
    var specs: [String: String]
    var error: GeneratorError
    /// The name the error's description must mention.
    var named: String

    var testDescription: String { situation }
}

@Suite("Checking the spec against the header")
struct SpecCheckTests {
    static let header = """
        typedef struct sqltk_sqlite3 sqltk_sqlite3;
        int sqltk_sqlite3_close(sqltk_sqlite3 *db);
        const char *sqltk_sqlite3_errmsg(sqltk_sqlite3 *db);
        const void *sqltk_sqlite3_errmsg16(sqltk_sqlite3 *db);
        int sqltk_sqlite3_config(int op, ...);
        """

    static let close = """
        {"c": "sqlite3_close", "signature": "int (sqlite3 *)", "link": "https://sqlite.org/c3ref/close.html",
         "wrappers": [{"swift": "close", "doc": "Closes the connection.", "params": ["self"], "returns": "resultCode"}]}
        """
    static let skipOthers = """
        {"skip": [{"c": "sqlite3_errmsg", "reason": "Hand-written."}, {"pattern": "16$", "reason": "UTF-16."},
                  {"c": "sqlite3_config", "reason": "Variadic."}]}
        """

    static func connection(_ functions: String...) -> String {
        #"{"receiver": "ConnectionHandle", "functions": ["# + functions.joined(separator: ", ") + "]}"
    }

    @Test("a spec that decides every function exactly once passes, with its counts")
    func acceptsCompleteSpec() throws {
        let generator = try Fixtures.generator(
            header: Self.header,
            specs: ["connection.json": Self.connection(Self.close), "skips.json": Self.skipOthers]
        )
        let coverage = try generator.coverage()
        #expect(coverage == Coverage(declared: 4, wrapped: 1, skipped: 3, wrappers: 1, undecided: 0))
        #expect(try generator.files().keys.sorted() == ["ConnectionHandle.swift"])
    }

    @Test("signatures compare without regard to spacing")
    func ignoresWhitespaceInSignatures() throws {
        let close = Self.close.replacingOccurrences(of: "int (sqlite3 *)", with: "int  (sqlite3   *)")
        let generator = try Fixtures.generator(
            header: Self.header,
            specs: ["connection.json": Self.connection(close), "skips.json": Self.skipOthers]
        )
        #expect(try generator.coverage().wrapped == 1)
    }

    @Test("undecided functions are only counted when allowed, for work in progress")
    func countsUndecidedWhenAllowed() throws {
        let generator = try Fixtures.generator(
            header: Self.header, specs: ["connection.json": Self.connection(Self.close)])
        let coverage = try generator.coverage(allowingUndecided: true)
        #expect(coverage == Coverage(declared: 4, wrapped: 1, skipped: 0, wrappers: 1, undecided: 3))
        #expect(throws: GeneratorError.undecidedFunction("sqlite3_config", signature: "int (int, ...)")) {
            try generator.coverage()
        }
    }

    static let rejectedSpecs: [RejectedSpec] = [
        RejectedSpec(
            situation: "a signature that differs from the header's",
            specs: [
                "connection.json": connection(
                    close.replacingOccurrences(of: "int (sqlite3 *)", with: "int (sqlite3 *, int)")),
                "skips.json": skipOthers,
            ],
            error: .signatureMismatch(
                function: "sqlite3_close", spec: "int (sqlite3 *, int)", header: "int (sqlite3 *)"),
            named: "sqlite3_close"
        ),
        RejectedSpec(
            situation: "a wrapped function the header lacks",
            specs: [
                "connection.json": connection(
                    close, close.replacingOccurrences(of: "sqlite3_close", with: "sqlite3_close_v2")),
                "skips.json": skipOthers,
            ],
            error: .missingFunction("sqlite3_close_v2"),
            named: "sqlite3_close_v2"
        ),
        RejectedSpec(
            situation: "a skipped function the header lacks",
            specs: [
                "connection.json": connection(close),
                "skips.json": skipOthers.replacingOccurrences(
                    of: #"{"c": "sqlite3_config""#,
                    with: #"{"c": "sqlite3_shutdown", "reason": "x"}, {"c": "sqlite3_config""#),
            ],
            error: .missingFunction("sqlite3_shutdown"),
            named: "sqlite3_shutdown"
        ),
        RejectedSpec(
            situation: "a header function neither wrapped nor skipped",
            specs: [
                "connection.json": connection(close),
                "skips.json": skipOthers.replacingOccurrences(
                    of: #"{"c": "sqlite3_errmsg", "reason": "Hand-written."}, "#, with: ""),
            ],
            error: .undecidedFunction("sqlite3_errmsg", signature: "const char *(sqlite3 *)"),
            named: "sqlite3_errmsg"
        ),
        RejectedSpec(
            situation: "a function both wrapped and skipped",
            specs: [
                "connection.json": connection(close),
                "skips.json": skipOthers.replacingOccurrences(
                    of: #"{"c": "sqlite3_config""#,
                    with: #"{"c": "sqlite3_close", "reason": "x"}, {"c": "sqlite3_config""#),
            ],
            error: .decidedTwice("sqlite3_close"),
            named: "sqlite3_close"
        ),
        RejectedSpec(
            situation: "a function wrapped in two spec files",
            specs: [
                "connection.json": connection(close),
                "more.json": #"{"receiver": "Other", "functions": ["# + close + "]}",
                "skips.json": skipOthers,
            ],
            error: .decidedTwice("sqlite3_close"),
            named: "sqlite3_close"
        ),
        RejectedSpec(
            situation: "a skip pattern that matches nothing",
            specs: [
                "connection.json": connection(close),
                "skips.json": skipOthers.replacingOccurrences(
                    of: #"{"c": "sqlite3_config""#,
                    with: #"{"pattern": "^sqlite3_.*_v2$", "reason": "x"}, {"c": "sqlite3_config""#),
            ],
            error: .unusedSkipPattern("^sqlite3_.*_v2$"),
            named: "^sqlite3_.*_v2$"
        ),
        RejectedSpec(
            situation: "a wrapped variadic function",
            specs: [
                "connection.json": connection(
                    close,
                    """
                    {"c": "sqlite3_config", "signature": "int (int, ...)", "link": "https://sqlite.org/c3ref/config.html",
                     "wrappers": [{"swift": "config", "static": true, "doc": "Configures.", "params": ["op"]}]}
                    """),
                "skips.json": skipOthers.replacingOccurrences(
                    of: #", {"c": "sqlite3_config", "reason": "Variadic."}"#, with: ""),
            ],
            error: .unsupportedSignature("sqlite3_config"),
            named: "sqlite3_config"
        ),
    ]

    @Test(
        "a spec that contradicts the header stops generation with an error naming the function",
        arguments: rejectedSpecs)
    func rejectsSpec(_ rejected: RejectedSpec) throws {
        let generator = try Fixtures.generator(header: Self.header, specs: rejected.specs)
        let error = #expect(throws: GeneratorError.self) { try generator.coverage() }
        #expect(error == rejected.error)
        #expect(error?.description.contains(rejected.named) == true)
        #expect(throws: rejected.error) { try generator.files() }
    }

    @Test(
        "a skip without a reason cannot be read",
        arguments: [#"{"skip": [{"c": "sqlite3_errmsg"}]}"#, #"{"skip": [{"pattern": "16$"}]}"#]
    )
    func rejectsSkipWithoutReason(skips: String) throws {
        let error = #expect(throws: GeneratorError.self) {
            try Fixtures.generator(
                header: Self.header, specs: ["connection.json": Self.connection(Self.close), "skips.json": skips])
        }
        guard case .unreadableSpec(let file, let message) = error else {
            Issue.record("expected unreadableSpec, got \(String(describing: error))")
            return
        }
        #expect(file == "skips.json")
        #expect(message.contains("reason"))
        #expect(error?.description.contains("skips.json") == true)
    }

    @Test(
        "a wrapper that does not fit the C declaration stops generation with an error naming the function",
        arguments: [
            (#"["self", "extra"]"#, "the spec lists 2 parameters; the header declares 1"),
            (#"[{"name": "db", "convert": "text"}]"#, "parameter db is text but its C type is not const char *"),
            (#"[{"name": "db", "convert": "bool"}]"#, "parameter db is bool but not int"),
            (#"["out db"]"#, "out-parameter db points to sqltk_sqlite3, which has no zero value to start from"),
        ]
    )
    func rejectsWrapper(params: String, message: String) throws {
        let close = Self.close.replacingOccurrences(of: #"["self"]"#, with: params)
        let generator = try Fixtures.generator(
            header: Self.header,
            specs: ["connection.json": Self.connection(close), "skips.json": Self.skipOthers]
        )
        #expect(throws: GeneratorError.specMismatch(function: "sqlite3_close", message: message)) {
            try generator.files()
        }
    }

    @Test("two spec files that would write the same generated file stop generation")
    func rejectsOutputCollision() throws {
        let errmsg = """
            {"c": "sqlite3_errmsg", "signature": "const char *(sqlite3 *)", "link": "https://sqlite.org/c3ref/errcode.html",
             "wrappers": [{"swift": "errorMessage", "doc": "The message.", "params": ["self"], "returns": "text"}]}
            """
        let generator = try Fixtures.generator(
            header: Self.header,
            specs: [
                "connection.json": Self.connection(Self.close),
                "more.json": Self.connection(errmsg),
                "skips.json":
                    #"{"skip": [{"pattern": "16$", "reason": "UTF-16."}, {"c": "sqlite3_config", "reason": "Variadic."}]}"#,
            ]
        )
        let error = #expect(throws: GeneratorError.self) { try generator.files() }
        #expect(error?.description.contains("ConnectionHandle.swift") == true)
    }

    @Test("two parameters with one name stop generation, so an output cannot shadow an input")
    func rejectsDuplicateParameterNames() throws {
        let limit = """
            {"c": "sqlite3_limit", "signature": "int (sqlite3 *, int, int)", "link": "https://sqlite.org/c3ref/limit.html",
             "wrappers": [{"swift": "limit", "doc": "Sets a limit.", "params": ["self", "value", "value"]}]}
            """
        let generator = try Fixtures.generator(
            header:
                "typedef struct sqltk_sqlite3 sqltk_sqlite3;\nint sqltk_sqlite3_limit(sqltk_sqlite3 *db, int id, int newVal);",
            specs: ["connection.json": Self.connection(limit)]
        )
        #expect(
            throws: GeneratorError.specMismatch(function: "sqlite3_limit", message: "two parameters are named value")
        ) {
            try generator.files()
        }
    }
}
