import Testing

@testable import BindgenCore

/// The conversions the session extension needs: buffers SQLite allocates and hands over, messages it allocates,
/// 32-bit byte counts, `void *` input bytes, and typed out-parameters.
@Suite("Buffers, owned messages and 32-bit lengths")
struct BufferConversionTests {
    static let header = """
        typedef struct sqltk_sqlite3_session sqltk_sqlite3_session;
        int sqltk_sqlite3session_changeset(sqltk_sqlite3_session *pSession, int *pnChangeset, void **ppChangeset);
        int sqltk_sqlite3changeset_invert(int nIn, const void *pIn, int *pnOut, void **ppOut);
        int sqltk_sqlite3changegroup_add(sqltk_sqlite3_session *p, int nData, void *pData);
        int sqltk_sqlite3session_diff(sqltk_sqlite3_session *p, const char *zFrom, char **pzErrMsg);
        int sqltk_sqlite3changeset_op(sqltk_sqlite3_session *p, int *pOp, int *pbIndirect);
        """
    static let handles = #"{"handles": {"sqlite3_session": "SessionHandle"}}"#

    static func session(_ functions: String...) -> String {
        #"{"receiver": "SessionHandle", "functions": ["# + functions.joined(separator: ", ") + "]}"
    }

    static let changeset = """
        {"c": "sqlite3session_changeset", "signature": "int (sqlite3_session *, int *, void **)", "link": "l",
         "wrappers": [{"swift": "changeset", "doc": "d", "params": ["self",
           {"name": "count", "convert": "outBufferLength", "of": "changeset"},
           {"name": "changeset", "convert": "outBuffer"}], "returns": "resultCode"}]}
        """
    static let invert = """
        {"c": "sqlite3changeset_invert", "signature": "int (int, const void *, int *, void **)", "link": "l",
         "wrappers": [{"swift": "invert", "doc": "d", "static": true, "params": [
           {"name": "count", "convert": "bytesLength", "of": "input"},
           {"name": "input", "label": "_", "convert": "bytes"},
           {"name": "outputCount", "convert": "outBufferLength", "of": "inverted"},
           {"name": "inverted", "convert": "outBuffer"}], "returns": "resultCode"}]}
        """
    static let add = """
        {"c": "sqlite3changegroup_add", "signature": "int (sqlite3_session *, int, void *)", "link": "l",
         "wrappers": [{"swift": "add", "doc": "d", "params": ["self",
           {"name": "count", "convert": "bytesLength", "of": "bytes"},
           {"name": "bytes", "label": "_", "convert": "bytes"}], "returns": "resultCode"}]}
        """
    static let diff = """
        {"c": "sqlite3session_diff", "signature": "int (sqlite3_session *, const char *, char **)", "link": "l",
         "wrappers": [{"swift": "diff", "doc": "d", "params": ["self", {"name": "from", "convert": "text"},
           {"name": "message", "convert": "outOwnedText"}], "returns": "resultCode"}]}
        """
    static let operation = """
        {"c": "sqlite3changeset_op", "signature": "int (sqlite3_session *, int *, int *)", "link": "l",
         "wrappers": [{"swift": "operation", "doc": "d", "params": ["self",
           {"name": "kind", "convert": "out", "type": "ChangesetOperation"},
           {"name": "isIndirect", "convert": "out", "type": "Bool"}], "returns": "resultCode"}]}
        """

    /// The generated text of `SessionHandle.swift` for a spec of all five functions, with `replacing` applied.
    static func generated(replacing target: String = "", with replacement: String = "") throws -> String {
        let spec = session(changeset, invert, add, diff, operation)
            .replacingOccurrences(of: target.isEmpty ? "\u{0}" : target, with: replacement)
        let generator = try Fixtures.generator(
            header: header, specs: ["handles.json": handles, "session.json": spec])
        return try #require(try generator.files()["SessionHandle.swift"])
    }

    @Test("a buffer SQLite allocates comes back as a SQLiteBuffer sized by its length out-parameter")
    func outBuffer() throws {
        let text = try Self.generated()
        #expect(text.contains("func changeset() -> (code: ResultCode, changeset: SQLiteBuffer?)"))
        #expect(text.contains("var count: Int32 = 0"))
        #expect(text.contains("var changeset: UnsafeMutableRawPointer? = nil"))
        #expect(text.contains("sqltk_sqlite3session_changeset(rawValue, &count, &changeset)"))
        #expect(text.contains("SQLiteBuffer(taking: changeset, count: count)"))
    }

    @Test("a 32-bit input length refuses a longer buffer with SQLITE_TOOBIG before the call")
    func narrowedLength() throws {
        let text = try Self.generated()
        #expect(text.contains("static func invert(_ input: UnsafeRawBufferPointer)"))
        #expect(
            text.contains(
                "guard let count = Int32(exactly: input.count) else { return (code: ResultCode.toobig, inverted: nil) }"
            ))
        #expect(text.contains("func add(_ bytes: UnsafeRawBufferPointer) -> ResultCode"))
        #expect(text.contains("guard let count = Int32(exactly: bytes.count) else { return ResultCode.toobig }"))
    }

    @Test("bytes for a `void *` parameter are passed as a mutable pointer, `const void *` as it is")
    func mutableBytes() throws {
        let text = try Self.generated()
        #expect(text.contains("UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? emptyBytes)"))
        #expect(text.contains("sqltk_sqlite3changeset_invert(count, input.baseAddress ?? emptyBytes,"))
    }

    @Test("a message SQLite allocates is copied and freed by takeSQLiteString")
    func ownedText() throws {
        let text = try Self.generated()
        #expect(text.contains("var message: UnsafeMutablePointer<CChar>? = nil"))
        #expect(text.contains("message: takeSQLiteString(message)"))
        #expect(text.contains("-> (code: ResultCode, message: String?)"))
    }

    @Test("a numeric out-parameter with a type comes back as that type, or as Bool")
    func typedOut() throws {
        let text = try Self.generated()
        #expect(text.contains("kind: ChangesetOperation(rawValue: kind)"))
        #expect(text.contains("isIndirect: isIndirect != 0"))
        #expect(text.contains("-> (code: ResultCode, kind: ChangesetOperation, isIndirect: Bool)"))
    }

    @Test("a buffer without its length out-parameter is refused, naming the function")
    func bufferWithoutLength() throws {
        #expect {
            _ = try Self.generated(
                replacing: #"{"name": "count", "convert": "outBufferLength", "of": "changeset"}"#,
                with: "\"rawOut count\"")
        } throws: { error in
            String(describing: error).contains("sqlite3session_changeset")
                && String(describing: error).contains("outBufferLength")
        }
    }

    @Test("a 32-bit length in a wrapper that does not return a result code is refused")
    func narrowedLengthNeedsResultCode() throws {
        #expect {
            _ = try Self.generated(
                replacing: "\"convert\": \"bytes\"}], \"returns\": \"resultCode\"",
                with: "\"convert\": \"bytes\"}]")
        } throws: { error in
            String(describing: error).contains("sqlite3changegroup_add")
                && String(describing: error).contains("32-bit")
        }
    }
}
