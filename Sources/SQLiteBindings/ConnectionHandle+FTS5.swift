import CSQLiteToolkit

// FTS5 custom tokenizers: the `fts5_api` of a connection, tokenizers written in Swift registered through
// `xCreateTokenizer_v2`, and existing tokenizers (`unicode61`, `porter`, ...) found through `xFindTokenizer_v2` and
// driven from Swift. SQLite owns each registration box and releases it through the `xDestroy` given to
// `xCreateTokenizer_v2` (when the tokenizer is replaced and when the connection closes); each tokenizer instance a
// table creates is released by `xDelete`.

/// Why FTS5 is tokenizing text: the `flags` argument of a tokenizer's `xTokenize`.
///
/// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
public struct FTS5TokenizeFlags: OptionSet, Sendable, Hashable {
    /// The C value.
    public var rawValue: Int32

    /// Wraps a C value.
    @inlinable
    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// `FTS5_TOKENIZE_QUERY`: the text is a `MATCH` query.
    public static let query = FTS5TokenizeFlags(rawValue: FTS5_TOKENIZE_QUERY)
    /// `FTS5_TOKENIZE_PREFIX`: with ``query``, the token is followed by `*` (a prefix query).
    public static let prefix = FTS5TokenizeFlags(rawValue: FTS5_TOKENIZE_PREFIX)
    /// `FTS5_TOKENIZE_DOCUMENT`: the text is a document being inserted or deleted.
    public static let document = FTS5TokenizeFlags(rawValue: FTS5_TOKENIZE_DOCUMENT)
    /// `FTS5_TOKENIZE_AUX`: an auxiliary function such as `highlight()` is asking.
    public static let aux = FTS5TokenizeFlags(rawValue: FTS5_TOKENIZE_AUX)
}

/// Receives one token from a tokenizer: its bytes (UTF-8), the byte range it came from in the input text, and
/// whether it is colocated with the previous token (`FTS5_TOKEN_COLOCATED`, a synonym). It returns `.ok` to go on;
/// any other code stops the tokenizer, which must return that code.
public typealias FTS5TokenSink = (
    _ token: UnsafeRawBufferPointer, _ start: Int32, _ end: Int32, _ isColocated: Bool
) -> ResultCode

/// A tokenizer instance written in Swift: tokenizes UTF-8 `text` for `flags`, passing each token to the sink, and
/// returns `.ok` or the code that stopped it.
public typealias FTS5Tokenize = (
    _ text: UnsafeRawBufferPointer, _ flags: FTS5TokenizeFlags, _ emit: FTS5TokenSink
) -> ResultCode

/// The registration of a Swift tokenizer: makes an instance from the arguments of a table's `tokenize` option.
final class FTS5TokenizerFactoryBox {
    let create: ([String]) -> FTS5Tokenize?

    init(create: @escaping ([String]) -> FTS5Tokenize?) {
        self.create = create
    }
}

/// One instance of a Swift tokenizer, whose address is the `Fts5Tokenizer*` SQLite holds.
final class FTS5TokenizerInstanceBox {
    let tokenize: FTS5Tokenize

    init(tokenize: @escaping FTS5Tokenize) {
        self.tokenize = tokenize
    }
}

/// The C entry points of every Swift tokenizer.
private enum FTS5Trampoline {
    static let create:
        @convention(c) (
            UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafePointer<CChar>?>?, Int32,
            UnsafeMutablePointer<OpaquePointer?>?
        ) -> Int32 = { userData, arguments, count, output in
            guard let userData, let output else { return SQLITE_MISUSE }
            let factory = Unmanaged<FTS5TokenizerFactoryBox>.fromOpaque(userData).takeUnretainedValue()
            var strings: [String] = []
            if let arguments {
                for index in 0..<Int(Swift.max(count, 0)) {
                    strings.append(arguments[index].map { String(cString: $0) } ?? "")
                }
            }
            guard let tokenize = factory.create(strings) else { return SQLITE_ERROR }
            let instance = FTS5TokenizerInstanceBox(tokenize: tokenize)
            output.pointee = OpaquePointer(Unmanaged.passRetained(instance).toOpaque())
            return SQLITE_OK
        }

    static let delete: @convention(c) (OpaquePointer?) -> Void = { instance in
        guard let instance else { return }
        Unmanaged<FTS5TokenizerInstanceBox>.fromOpaque(UnsafeRawPointer(instance)).release()
    }

    static let tokenize:
        @convention(c) (
            OpaquePointer?, UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, Int32,
            (
                @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, Int32, Int32, Int32) -> Int32
            )?
        ) -> Int32 = { instance, context, flags, text, byteCount, _, _, token in
            guard let instance, let token else { return SQLITE_MISUSE }
            let box = Unmanaged<FTS5TokenizerInstanceBox>.fromOpaque(UnsafeRawPointer(instance))
                .takeUnretainedValue()
            let bytes = UnsafeRawBufferPointer(start: text, count: text == nil ? 0 : Int(Swift.max(byteCount, 0)))
            let code = box.tokenize(bytes, FTS5TokenizeFlags(rawValue: flags)) { bytes, start, end, isColocated in
                let tokenFlags = isColocated ? FTS5_TOKEN_COLOCATED : 0
                let pointer = (bytes.baseAddress ?? emptyBytes).assumingMemoryBound(to: CChar.self)
                return ResultCode(
                    rawValue: token(context, tokenFlags, pointer, Int32(clamping: bytes.count), start, end))
            }
            return code.rawValue
        }

    static let destroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { userData in
        guard let userData else { return }
        Unmanaged<FTS5TokenizerFactoryBox>.fromOpaque(userData).release()
    }

    /// Calls the sink that a tokenizer driven from Swift was given (see ``FTS5TokenizerHandle``).
    static let sink:
        @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, Int32, Int32, Int32) -> Int32 = {
            context, flags, token, byteCount, start, end in
            guard let context else { return SQLITE_MISUSE }
            let emit = context.assumingMemoryBound(to: FTS5TokenSink.self).pointee
            let bytes = UnsafeRawBufferPointer(start: token, count: token == nil ? 0 : Int(Swift.max(byteCount, 0)))
            return emit(bytes, start, end, flags & FTS5_TOKEN_COLOCATED != 0).rawValue
        }
}

/// The type name FTS5 gives the `fts5_api*` it hands out through `SELECT fts5(?1)`; a static C string, as
/// `sqlite3_bind_pointer` requires.
private var fts5APIPointerType: UnsafePointer<CChar> {
    UnsafeRawPointer(("fts5_api_ptr" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self)
}

/// An instance of a tokenizer registered with FTS5 (such as `unicode61`), made and driven from Swift: the way a
/// wrapper tokenizer calls the tokenizer it wraps. Deleting the instance (`xDelete`) happens when this is released.
///
/// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
public final class FTS5TokenizerHandle {
    private let tokenizer: UnsafeMutablePointer<sqltk_fts5_tokenizer_v2>
    private let instance: OpaquePointer

    init(tokenizer: UnsafeMutablePointer<sqltk_fts5_tokenizer_v2>, instance: OpaquePointer) {
        self.tokenizer = tokenizer
        self.instance = instance
    }

    deinit {
        tokenizer.pointee.xDelete?(instance)
    }

    /// Tokenizes the UTF-8 `text` for `flags`, passing each token to `emit`; returns `.ok` or the code that
    /// stopped it (the first code other than `.ok` that `emit` returned, or the tokenizer's own error).
    public func tokenize(_ text: UnsafeRawBufferPointer, flags: FTS5TokenizeFlags, _ emit: FTS5TokenSink) -> ResultCode
    {
        guard let xTokenize = tokenizer.pointee.xTokenize else { return .misuse }
        return withoutActuallyEscaping(emit) { emit in
            var sink: FTS5TokenSink = emit
            return withUnsafeMutablePointer(to: &sink) { sinkPointer in
                let bytes = (text.baseAddress ?? emptyBytes).assumingMemoryBound(to: CChar.self)
                return ResultCode(
                    rawValue: xTokenize(
                        instance, sinkPointer, flags.rawValue, bytes, Int32(clamping: text.count), nil, 0,
                        FTS5Trampoline.sink))
            }
        }
    }
}

@available(*, unavailable, message: "a tokenizer instance belongs to its connection's thread")
extension FTS5TokenizerHandle: Sendable {}

extension ConnectionHandle {
    /// The connection's `fts5_api`, obtained with `SELECT fts5(?1)` and a pointer bind, or `nil` when FTS5 is
    /// missing or too old for version-2 tokenizers.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#extending_fts5>
    func fts5API() -> UnsafeMutablePointer<sqltk_fts5_api>? {
        let (code, statement) = prepare(sql: "SELECT fts5(?1)", flags: [])
        guard code == .ok, let statement else { return nil }
        defer { _ = statement.finalize() }
        var api: UnsafeMutablePointer<sqltk_fts5_api>?
        return withUnsafeMutablePointer(to: &api) { slot in
            guard statement.bindPointer(1, slot, type: fts5APIPointerType, destructor: nil) == .ok,
                statement.step() == .row
            else { return nil }
            guard let api = slot.pointee, api.pointee.iVersion >= 3 else { return nil }
            return api
        }
    }

    /// Registers (or replaces) the FTS5 tokenizer `name`, written in Swift: `create` makes an instance from the
    /// arguments that follow the name in a table's `tokenize` option, or returns `nil` to refuse them (the
    /// `CREATE VIRTUAL TABLE` then fails).
    ///
    /// ```swift
    /// _ = connection.createFTS5Tokenizer(name: "words") { arguments in
    ///     return { text, flags, emit in ... emit(tokenBytes, start, end, false) ... }
    /// }
    /// ```
    ///
    /// - Returns: `.ok`, `.error` when the connection has no FTS5 with version-2 tokenizers, or FTS5's code. The
    ///   closure is released when the tokenizer is replaced or the connection closes, or at once on failure.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
    public func createFTS5Tokenizer(name: String, create: @escaping ([String]) -> FTS5Tokenize?) -> ResultCode {
        guard let api = fts5API(), let createTokenizer = api.pointee.xCreateTokenizer_v2 else { return .error }
        let box = Unmanaged.passRetained(FTS5TokenizerFactoryBox(create: create))
        var tokenizer = sqltk_fts5_tokenizer_v2(
            iVersion: 2, xCreate: FTS5Trampoline.create, xDelete: FTS5Trampoline.delete,
            xTokenize: FTS5Trampoline.tokenize)
        let code = name.withCString { name in
            ResultCode(rawValue: createTokenizer(api, name, box.toOpaque(), &tokenizer, FTS5Trampoline.destroy))
        }
        // FTS5 calls xDestroy only for a tokenizer it registered.
        if code != .ok { box.release() }
        return code
    }

    /// Makes an instance of the FTS5 tokenizer `name` (built in, such as `unicode61`, `ascii`, `porter` and
    /// `trigram`, or registered) with `arguments`, to drive from Swift; `nil` when there is no such tokenizer or it
    /// refuses the arguments.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#tokenizers>
    public func findFTS5Tokenizer(name: String, arguments: [String] = []) -> FTS5TokenizerHandle? {
        guard let api = fts5API(), let findTokenizer = api.pointee.xFindTokenizer_v2 else { return nil }
        var userData: UnsafeMutableRawPointer?
        var tokenizer: UnsafeMutablePointer<sqltk_fts5_tokenizer_v2>?
        let found = name.withCString { findTokenizer(api, $0, &userData, &tokenizer) }
        guard found == SQLITE_OK, let tokenizer, let create = tokenizer.pointee.xCreate else { return nil }
        var instance: OpaquePointer?
        // NUL-terminated copies of the arguments, alive for the call.
        let copies = arguments.map { argument -> UnsafeMutablePointer<CChar> in
            let utf8 = Array(argument.utf8CString)
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
            copy.initialize(from: utf8, count: utf8.count)
            return copy
        }
        defer { for copy in copies { copy.deallocate() } }
        var pointers = copies.map { UnsafePointer<CChar>?(UnsafePointer($0)) }
        let created = pointers.withUnsafeMutableBufferPointer {
            create(userData, $0.baseAddress, Int32(clamping: $0.count), &instance)
        }
        guard created == SQLITE_OK, let instance else { return nil }
        return FTS5TokenizerHandle(tokenizer: tokenizer, instance: instance)
    }
}
