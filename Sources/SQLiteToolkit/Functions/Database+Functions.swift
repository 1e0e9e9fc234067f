import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// Custom SQL functions on `Database`, built on the closure glue of `SQLiteBindings` (`createScalarFunction`,
// `createAggregateFunction`, `createWindowFunction`): SQLite keeps each closure and releases it when the function is
// replaced or removed and when the connection closes. Each form hands SQLite one closure, registered with the
// connection's callback scope as its `CallbackCounter`: the C trampoline of SQLiteBindings counts the call in the
// scope and calls the closure directly. The low-level form registers the user's closure itself; the typed and
// aggregate forms (inlinable, so specialized where the function is defined) register one closure that reads the
// arguments, calls the user's closure and sets the result.
//
// `Date` arguments and results follow the connection's `Configuration.dateStorage`, as binds and `Row` reads do:
// a result is stored in the connection's form, an argument is read from any form, numbers in the connection's unit.
//
// Calling back into the same connection from a function:
// - Allowed: queries and writes through the same `Database` (SQLite runs nested statements), reading its state.
// - Refused by SQLite with an error the function can throw on: `COMMIT` or `ROLLBACK` while the calling statement
//   runs (`SQLITE_BUSY`), defining, replacing or removing a function or collation (`SQLITE_BUSY`).
// - `close()`: like a close from any callback, it closes the connection for its users at once and releases the
//   statements and the file when the calling statement returns (finalizing that statement under SQLite would crash);
//   the calling statement then fails with `DatabaseError.Reason.connectionClosed`.

extension Database {
    /// Properties of a custom SQL function, which let SQLite optimize and restrict where it is used.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/c_deterministic.html>
    public struct FunctionOptions: OptionSet, Sendable, Hashable {
        /// The raw value.
        public var rawValue: Int

        /// Wraps a raw value.
        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// The function always gives the same result for the same arguments, so SQLite may call it once for
        /// constant arguments and use it in indexes on expressions and in `CHECK` constraints.
        public static let deterministic = FunctionOptions(rawValue: 1 << 0)
        /// The function may be called only from top-level SQL, never from views, triggers, `CHECK` constraints or
        /// indexes in the schema (recommended for functions with side effects).
        public static let directOnly = FunctionOptions(rawValue: 1 << 1)
        /// The function has no side effects and reads nothing but its arguments, so it is safe to use from the
        /// schema even when the connection is in defensive mode with untrusted schemas.
        ///
        /// This build does not trust the schema (`SQLITE_TRUSTED_SCHEMA=0`): a function used by the schema (in an
        /// index on an expression, a generated column, a `CHECK` constraint, a view or a trigger) needs
        /// `.innocuous` as well as ``deterministic``, or using the schema fails with SQLite's "unsafe use of
        /// f()", which the toolkit completes with a hint naming this flag.
        ///
        /// ```swift
        /// try db.createFunction("normalized", options: [.deterministic, .innocuous]) { (text: String) in
        ///     text.lowercased()
        /// }
        /// try db.execute("CREATE INDEX player_name ON player (normalized(name))")
        /// ```
        ///
        /// Related SQLite documentation: <https://sqlite.org/c3ref/c_deterministic.html#sqlitedirectonly>
        public static let innocuous = FunctionOptions(rawValue: 1 << 2)

        /// The flags SQLite takes, with the UTF-8 text encoding.
        @usableFromInline
        var flags: FunctionFlags {
            var flags = FunctionFlags.utf8
            if contains(.deterministic) { flags.insert(.deterministic) }
            if contains(.directOnly) { flags.insert(.directonly) }
            if contains(.innocuous) { flags.insert(.innocuous) }
            return flags
        }
    }

    // MARK: - Scalar functions

    /// Defines or replaces the SQL function `name` with a closure that receives the function context and the raw
    /// arguments: the low-level form, closest to the C API and to FMDB's `makeFunctionNamed:`.
    ///
    /// Read the arguments with `valueType()`, `valueInt64()`, `valueString()`, ... and set the result with
    /// `resultInt64(_:)`, `resultString(_:)`, `resultNull()`, `resultError(_:)`, ...; an error the closure throws
    /// fails the statement with the error's description (and its code when it carries a ``ResultCode``).
    ///
    /// ```swift
    /// try db.createFunction("double", argumentCount: 1, options: .deterministic) { context, arguments in
    ///     context.resultInt64(arguments[0].valueInt64() * 2)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: The SQL name, at most 255 bytes of UTF-8. Case-insensitive in SQL.
    ///   - argumentCount: The number of arguments, or `nil` for any number. Functions of one name may differ by it.
    ///   - options: Properties such as ``FunctionOptions/deterministic``.
    ///   - body: The function. It runs on the thread that runs the statement, while the statement runs.
    /// - Throws: ``DatabaseError`` when the connection is closed, the name or argument count is invalid, or SQLite
    ///   refuses (`SQLITE_BUSY` while a statement using the function runs). The closure is released then, when the
    ///   function is replaced or removed, and when the connection closes.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
    public func createFunction(
        _ name: String,
        argumentCount: Int?,
        options: FunctionOptions = [],
        _ body: @escaping (FunctionContext, FunctionArguments) throws -> Void
    ) throws {
        try defineFunction(name, argumentCount: argumentCount, options: options, body)
    }

    /// Defines or replaces the SQL function `name` with a closure of typed arguments: the high-level form. The
    /// number of arguments is the closure's.
    ///
    /// Each argument is read as its Swift type with the same conversions as ``Row`` (an `Int` from the text `'5'`
    /// is 5; NULL reads only as an optional, as `nil`; `x''` reads as empty `Data`). The returned value becomes the
    /// result as it would be bound (`nil` is NULL). An error the closure throws, or an argument that cannot be read
    /// as its type, fails the statement with the error's description and its code when it carries one.
    ///
    /// ```swift
    /// try db.createFunction("RemoveDiacritics", options: [.deterministic, .innocuous]) { (text: String?) in
    ///     text?.folding(options: .diacriticInsensitive, locale: nil)
    /// }
    /// try db.query("SELECT name FROM person WHERE RemoveDiacritics(name) LIKE 'jose'")
    /// ```
    ///
    /// - Parameters:
    ///   - name: The SQL name, at most 255 bytes of UTF-8. Case-insensitive in SQL.
    ///   - options: Properties such as ``FunctionOptions/deterministic``.
    ///   - body: The function. It runs on the thread that runs the statement, while the statement runs.
    /// - Throws: As the low-level form,
    ///   ``createFunction(_:argumentCount:options:_:)-(_,_,_,(FunctionContext,FunctionArguments)->Void)``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
    @inlinable
    public func createFunction<each Argument: DatabaseValueConvertible, Result: DatabaseValueConvertible>(
        _ name: String,
        options: FunctionOptions = [],
        _ body: @escaping (repeat each Argument) throws -> Result
    ) throws {
        var argumentCount = 0
        for _ in repeat (each Argument).self { argumentCount += 1 }
        let dates = configuration.dateStorage
        // One closure, specialized here for the argument and result types, between SQLite's call and `body`.
        try defineFunction(name, argumentCount: argumentCount, options: options) { context, arguments in
            // A local counter passed inout, not captured by a nested function: no dynamic exclusivity check.
            var index = 0
            let result = try body(repeat try Database.readArgument((each Argument).self, arguments, &index, dates))
            try result.setResult(of: context, dateStorage: dates)
        }
    }

    // The pack form above reads its arguments through a loop over the pack that the optimizer leaves generic (a
    // metadata lookup and a witness call per argument and row), so the common arities have overloads of their own,
    // which overload resolution prefers: their reads are specialized for the argument types.

    /// Defines or replaces the SQL function `name` of one typed argument: the high-level form (see the
    /// parameter-pack `createFunction(_:options:_:)`), with the argument read without a generic call per row.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
    @inlinable @inline(__always)
    public func createFunction<A: DatabaseValueConvertible, Result: DatabaseValueConvertible>(
        _ name: String,
        options: FunctionOptions = [],
        _ body: @escaping (A) throws -> Result
    ) throws {
        // Always inlined, and the date storage captured only by functions of dates: the closure of any other
        // function captures `body` alone, which the optimizer inlines into it when `body` is a closure literal
        // that captures nothing, leaving one closure without a context between SQLite's call and the user's code.
        if Database.involvesDates(A.self, Result.self) {
            let dates = configuration.dateStorage
            try defineFunction(name, argumentCount: 1, options: options) { context, arguments in
                let result = try body(A.read(from: arguments[0], dateStorage: dates))
                try result.setResult(of: context, dateStorage: dates)
            }
        } else {
            try defineFunction(name, argumentCount: 1, options: options) { context, arguments in
                let result = try body(A.read(from: arguments[0], dateStorage: .unixSeconds))
                try result.setResult(of: context, dateStorage: .unixSeconds)
            }
        }
    }

    /// Defines or replaces the SQL function `name` of two typed arguments: the high-level form (see the
    /// parameter-pack `createFunction(_:options:_:)`), with the arguments read without a generic call per row.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
    @inlinable @inline(__always)
    public func createFunction<
        A: DatabaseValueConvertible, B: DatabaseValueConvertible, Result: DatabaseValueConvertible
    >(
        _ name: String,
        options: FunctionOptions = [],
        _ body: @escaping (A, B) throws -> Result
    ) throws {
        // As the one-argument form: the date storage is captured only by functions of dates.
        if Database.involvesDates(A.self, B.self, Result.self) {
            let dates = configuration.dateStorage
            try defineFunction(name, argumentCount: 2, options: options) { context, arguments in
                let result = try body(
                    A.read(from: arguments[0], dateStorage: dates),
                    B.read(from: arguments[1], dateStorage: dates))
                try result.setResult(of: context, dateStorage: dates)
            }
        } else {
            try defineFunction(name, argumentCount: 2, options: options) { context, arguments in
                let result = try body(
                    A.read(from: arguments[0], dateStorage: .unixSeconds),
                    B.read(from: arguments[1], dateStorage: .unixSeconds))
                try result.setResult(of: context, dateStorage: .unixSeconds)
            }
        }
    }

    /// Defines or replaces the SQL function `name` of three typed arguments: the high-level form (see the
    /// parameter-pack `createFunction(_:options:_:)`), with the arguments read without a generic call per row.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
    @inlinable
    public func createFunction<
        A: DatabaseValueConvertible, B: DatabaseValueConvertible, C: DatabaseValueConvertible,
        Result: DatabaseValueConvertible
    >(
        _ name: String,
        options: FunctionOptions = [],
        _ body: @escaping (A, B, C) throws -> Result
    ) throws {
        let dates = configuration.dateStorage
        try defineFunction(name, argumentCount: 3, options: options) { context, arguments in
            let result = try body(
                A.read(from: arguments[0], dateStorage: dates),
                B.read(from: arguments[1], dateStorage: dates),
                C.read(from: arguments[2], dateStorage: dates))
            try result.setResult(of: context, dateStorage: dates)
        }
    }

    /// Whether a function of these argument and result types reads or returns dates, which depend on the
    /// connection's date storage. A constant where the function is specialized.
    @inlinable @inline(__always)
    static func involvesDates<A, B, C>(_ a: A.Type, _ b: B.Type, _ c: C.Type = Void.self) -> Bool {
        isDate(A.self) || isDate(B.self) || isDate(C.self)
    }

    /// Whether `T` is `Date` or `Date?`.
    @inlinable @inline(__always)
    static func isDate<T>(_ type: T.Type) -> Bool {
        T.self == Date.self || T.self == Date?.self
    }

    /// Registers `call` as the function `name` as it is: the one closure SQLite's C trampoline calls, after counting
    /// the call in the connection's ``RunningCallbacks``.
    @inlinable
    func defineFunction(
        _ name: String,
        argumentCount: Int?,
        options: FunctionOptions,
        _ call: @escaping (FunctionContext, FunctionArguments) throws -> Void
    ) throws {
        let (connection, count) = try checkFunction(name: name, argumentCount: argumentCount)
        let code = connection.createScalarFunction(
            name: name, argumentCount: count, flags: options.flags, counter: runningCallbacks.counter, call)
        try checkRegistration(code, name: name, argumentCount: argumentCount)
    }

    /// Reads argument `index` as `Value` and moves `index` to the next argument.
    @inlinable
    static func readArgument<Value: DatabaseValueConvertible>(
        _ type: Value.Type,
        _ arguments: FunctionArguments,
        _ index: inout Int,
        _ dates: DateStorage
    ) throws -> Value {
        let value = try Value.read(from: arguments[index], dateStorage: dates)
        index += 1
        return value
    }

    /// Defines or replaces the SQL function `name` with a closure that reads any number of arguments as Swift
    /// values: the high-level form for variadic functions.
    ///
    /// ```swift
    /// try db.createFunction("concat_ws", argumentCount: nil) { arguments in
    ///     let separator: String = try arguments.value(at: 0)
    ///     return try (1..<arguments.count).compactMap { try arguments.value(at: $0, as: String?.self) }
    ///         .joined(separator: separator)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: The SQL name, at most 255 bytes of UTF-8. Case-insensitive in SQL.
    ///   - argumentCount: The number of arguments, or `nil` for any number.
    ///   - options: Properties such as ``FunctionOptions/deterministic``.
    ///   - body: The function; it returns the result as it would be bound (`nil` is NULL).
    /// - Throws: As the low-level form, ``createFunction(_:argumentCount:options:_:)``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
    @inlinable
    public func createFunction<Result: DatabaseValueConvertible>(
        _ name: String,
        argumentCount: Int?,
        options: FunctionOptions = [],
        _ body: @escaping (FunctionValues) throws -> Result
    ) throws {
        let dates = configuration.dateStorage
        try defineFunction(name, argumentCount: argumentCount, options: options) { context, arguments in
            let result = try body(FunctionValues(arguments, dates: dates))
            try result.setResult(of: context, dateStorage: dates)
        }
    }

    /// Removes the function `name` defined with `argumentCount` arguments (`nil`: the variadic one), releasing its
    /// closure. Removing a function that does not exist does nothing.
    ///
    /// - Throws: ``DatabaseError`` when the connection is closed, the name is invalid, or SQLite refuses
    ///   (`SQLITE_BUSY` while a statement using the function runs).
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
    public func removeFunction(_ name: String, argumentCount: Int?) throws {
        let (connection, count) = try checkFunction(name: name, argumentCount: argumentCount)
        try checkRegistration(
            connection.removeFunction(name: name, argumentCount: count), name: name, argumentCount: argumentCount)
    }

    // MARK: - Checks

    /// The open connection and SQLite's argument count, or a typed error for a closed connection or an invalid
    /// name or count.
    @usableFromInline
    func checkFunction(name: String, argumentCount: Int?) throws -> (ConnectionHandle, Int32) {
        let connection = try connection()
        try Database.checkName(name, reason: .invalidFunctionName(name))
        guard let argumentCount else { return (connection, -1) }
        guard argumentCount >= 0, let count = Int32(exactly: argumentCount) else {
            throw DatabaseError.misuse(
                "a function takes 0 or more arguments, or any number (nil)",
                reason: .invalidArgumentCount(argumentCount))
        }
        return (connection, count)
    }

    /// Throws when `name` is empty, longer than SQLite's 255 bytes, or holds a NUL.
    static func checkName(_ name: String, reason: DatabaseError.Reason) throws {
        let length = name.utf8.count
        guard length > 0, length <= 255, !name.utf8.contains(0) else {
            throw DatabaseError.misuse("a name must have 1 to 255 bytes of UTF-8 and no NUL", reason: reason)
        }
    }

    /// Throws the error of a failed `sqlite3_create_function_v2`.
    @usableFromInline
    func checkRegistration(_ code: ResultCode, name: String, argumentCount: Int?) throws {
        guard code != .ok else { return }
        // With a valid name, SQLite refuses the definition itself only for an argument count above its limit.
        if code == .misuse, let argumentCount {
            throw DatabaseError.misuse(
                "SQLite refuses \(argumentCount) arguments for a function (its limit is SQLITE_MAX_FUNCTION_ARG)",
                reason: .invalidArgumentCount(argumentCount))
        }
        throw error(code, sql: nil)
    }
}
