import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Arguments decided at run time: positional (for `?` and `?NNN`) or named (for `:name`, `@name`, `$name`).
///
/// ```swift
/// try db.execute("INSERT INTO player (name, score) VALUES (?, ?)", arguments: ["Arthur", 42])
/// try db.execute("INSERT INTO player (name, score) VALUES (:name, :score)",
///                arguments: ["name": "Arthur", "score": 42])
/// ```
///
/// Dictionary keys may be written with or without their `:`, `@` or `$` prefix. Any mismatch — too few, too
/// many, an unknown name — throws before anything runs (FMDB silently ignored extra arguments).
public struct StatementArguments: Sendable, Hashable, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    enum Storage: Sendable, Hashable {
        case positional([DatabaseValue])
        case named([String: DatabaseValue])
        /// A dictionary literal's pairs as written, unhashed: they bind by comparing each key with the parameter at
        /// its position, which is the usual case, and become a dictionary only when they are not in that order.
        case namedInOrder([NamedValue])
    }

    /// One pair of a dictionary literal.
    struct NamedValue: Sendable, Hashable {
        let key: String
        let value: DatabaseValue
    }

    let storage: Storage
    /// Why one of the values cannot be bound (an integer above `Int64.max`, which has no faithful
    /// ``DatabaseValue``): binding throws this instead of storing a rounded value.
    let unrepresentable: String?
    /// The `Date` arguments, by position or by key as given, kept beside their Unix seconds in ``storage``: their
    /// stored form depends on the connection's ``Database/Configuration/dateStorage``, known only when binding.
    let positionalDates: [Int: Date]
    let namedDates: [String: Date]
    /// The ``CArray`` arguments by position (NULL in ``storage``), bound with `sqlite3_carray_bind`.
    let positionalArrays: [Int: CArray]

    /// Positional arguments, in parameter order.
    public init(_ values: [DatabaseValue]) {
        storage = .positional(values)
        unrepresentable = nil
        positionalDates = [:]
        namedDates = [:]
        positionalArrays = [:]
    }

    /// Positional arguments, in parameter order, with the reason one of them cannot be bound and the dates among
    /// them.
    init(_ values: [DatabaseValue], unrepresentable: String?, dates: [Int: Date], arrays: [Int: CArray] = [:]) {
        storage = .positional(values)
        self.unrepresentable = unrepresentable
        positionalDates = dates
        namedDates = [:]
        positionalArrays = arrays
    }

    /// Positional arguments, in parameter order.
    public init(_ values: [(any DatabaseValueConvertible)?]) {
        var problem: String?
        var converted: [DatabaseValue] = []
        converted.reserveCapacity(values.count)
        var dates: [Int: Date] = [:]
        var arrays: [Int: CArray] = [:]
        for value in values {
            let databaseValue = Self.convert(value, problem: &problem)
            if let date = Self.date(value, converted: databaseValue) { dates[converted.count] = date }
            // An array's value is NULL: only NULL values pay for the cast.
            if case .null = databaseValue, let array = value as? CArray { arrays[converted.count] = array }
            converted.append(databaseValue)
        }
        storage = .positional(converted)
        unrepresentable = problem
        positionalDates = dates
        namedDates = [:]
        positionalArrays = arrays
    }

    /// `value` when it is a `Date`, whose stored form depends on the connection. A date converts to `.real`, so
    /// only real values pay for the dynamic cast.
    static func date(_ value: (any DatabaseValueConvertible)?, converted: DatabaseValue) -> Date? {
        guard case .real = converted else { return nil }
        return value as? Date
    }

    /// The value to store for `value`, noting in `problem` why it cannot be bound faithfully: the typed path
    /// (``DatabaseValueConvertible/bind(to:at:)``) throws for an integer above `Int64.max`, and so must this one.
    /// Such an integer's ``DatabaseValue`` is `.real`, so only real values pay for the dynamic cast.
    static func convert(_ value: (any DatabaseValueConvertible)?, problem: inout String?) -> DatabaseValue {
        guard let value else { return .null }
        let converted = value.databaseValue
        if case .real = converted, problem == nil, let integer = value as? any BinaryInteger,
            Int64(exactly: integer) == nil
        {
            problem = "a \(type(of: integer)) above Int64.max does not fit SQLite's 64-bit signed integers"
        }
        // An ISO8601Date the format cannot hold has no faithful value either (its `databaseValue` is NULL).
        if case .null = converted, problem == nil, let date = value as? ISO8601Date, !date.isRepresentable {
            problem = ISO8601Date.unrepresentableError.message
        }
        return converted
    }

    /// Notes in `problem` that `value`, a named argument, is a ``CArray``, which binds by position only. An array
    /// converts to NULL, so only NULL values pay for the cast.
    static func refuseNamedArray(
        _ value: (any DatabaseValueConvertible)?, converted: DatabaseValue, problem: inout String?
    ) {
        if case .null = converted, problem == nil, value is CArray { problem = CArray.namedArgumentProblem }
    }

    /// Positional arguments from a parameter pack, for error messages.
    @usableFromInline
    init<each Value: DatabaseValueConvertible>(describing values: repeat each Value) {
        var list: [DatabaseValue] = []
        for value in repeat each values { list.append(value.databaseValue) }
        storage = .positional(list)
        unrepresentable = nil
        positionalDates = [:]
        namedDates = [:]
        positionalArrays = [:]
    }

    /// Named arguments.
    public init(_ values: [String: (any DatabaseValueConvertible)?]) {
        var problem: String?
        var hasDates = false
        // `mapValues` keeps the dictionary's layout instead of hashing every key again.
        storage = .named(
            values.mapValues {
                let converted = Self.convert($0, problem: &problem)
                if !hasDates, Self.date($0, converted: converted) != nil { hasDates = true }
                Self.refuseNamedArray($0, converted: converted, problem: &problem)
                return converted
            })
        // The keys of the dates, found only when there are any: the common case pays nothing more.
        var dates: [String: Date] = [:]
        if hasDates {
            for (key, value) in values {
                if let date = value as? Date { dates[key] = date }
            }
        }
        unrepresentable = problem
        positionalDates = [:]
        namedDates = dates
        positionalArrays = [:]
    }

    /// Positional arguments from a literal.
    public init(arrayLiteral elements: (any DatabaseValueConvertible)?...) {
        self.init(elements)
    }

    /// Named arguments from a literal.
    ///
    /// The pairs are kept in the order written, without hashing their keys: written in the order of the
    /// statement's parameters, they bind by position after one comparison of names each. A key given twice keeps
    /// its last value, as in a dictionary.
    public init(dictionaryLiteral elements: (String, (any DatabaseValueConvertible)?)...) {
        var values: [NamedValue] = []
        values.reserveCapacity(elements.count)
        var problem: String?
        var dates: [String: Date] = [:]
        for (key, value) in elements {
            let converted = Self.convert(value, problem: &problem)
            if let date = Self.date(value, converted: converted) { dates[key] = date }
            Self.refuseNamedArray(value, converted: converted, problem: &problem)
            values.append(NamedValue(key: key, value: converted))
        }
        storage = .namedInOrder(values)
        unrepresentable = problem
        positionalDates = [:]
        namedDates = dates
        positionalArrays = [:]
    }

    /// The pairs of a literal as a dictionary; a key given twice keeps its last value.
    static func dictionary(_ values: [NamedValue]) -> [String: DatabaseValue] {
        var dictionary: [String: DatabaseValue] = Dictionary(minimumCapacity: values.count)
        for pair in values { dictionary[pair.key] = pair.value }
        return dictionary
    }

    /// The storage with a literal's pairs as a dictionary, so arguments compare, hash and describe themselves by
    /// content, whatever their order.
    private var canonicalStorage: Storage {
        guard case .namedInOrder(let values) = storage else { return storage }
        return .named(Self.dictionary(values))
    }

    /// Whether both hold the same arguments: the same values in the same positions, or the same values under the
    /// same names in any order.
    public static func == (lhs: StatementArguments, rhs: StatementArguments) -> Bool {
        lhs.canonicalStorage == rhs.canonicalStorage && lhs.unrepresentable == rhs.unrepresentable
            && lhs.positionalDates == rhs.positionalDates && lhs.namedDates == rhs.namedDates
            && lhs.positionalArrays == rhs.positionalArrays
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(canonicalStorage)
        hasher.combine(unrepresentable)
        hasher.combine(positionalDates)
        hasher.combine(namedDates)
        hasher.combine(positionalArrays)
    }

    /// The number of arguments.
    public var count: Int {
        switch storage {
        case .positional(let values): values.count
        case .named(let values): values.count
        case .namedInOrder(let values): Set(values.lazy.map(\.key)).count
        }
    }

    /// Binds the arguments after checking them all against the statement's parameters.
    func bind(to statement: Statement) throws {
        let handle = statement.handle
        let parameterCount = Int(statement.parameterCount)
        if let unrepresentable {
            throw DatabaseError.mismatch(unrepresentable, sql: statement.sql, reason: .valueMismatch)
        }
        switch storage {
        case .positional(let values):
            guard values.count == parameterCount else { throw statement.argumentCountError(given: values.count) }
            // Dates are stored as Unix seconds in `values`: only another strategy binds them again.
            let dates = statement.dateStorage == .unixSeconds ? [:] : positionalDates
            for (offset, value) in values.enumerated() {
                if !dates.isEmpty, let date = dates[offset] {
                    try date.bind(to: statement, at: Int32(offset + 1))
                } else if !positionalArrays.isEmpty, let array = positionalArrays[offset] {
                    try array.bind(to: handle, at: Int32(offset + 1))
                } else {
                    try value.bind(to: handle, at: Int32(offset + 1))
                }
            }
        case .namedInOrder(let values):
            if try bindInOrder(values, to: statement) { return }
            try Self.bindNamed(Self.dictionary(values), dates: namedDates, to: statement)
        case .named(let values):
            try Self.bindNamed(values, dates: namedDates, to: statement)
        }
    }

    /// Binds a literal's pairs by position when each names the parameter at its position and there are as many as
    /// parameters; returns `false`, having bound nothing, when they do not.
    private func bindInOrder(_ values: [NamedValue], to statement: Statement) throws -> Bool {
        let names = statement.parameterNamesWithoutPrefix()
        let count = values.count
        guard count == names.count else { return false }
        // Index loops: they read the pairs in place, where iterators copy each one.
        for index in 0..<count where !Statement.parameterName(names[index], matches: values[index].key) {
            return false
        }
        let handle = statement.handle
        let dates = statement.dateStorage == .unixSeconds ? [:] : namedDates
        for index in 0..<count {
            let position = Int32(truncatingIfNeeded: index + 1)
            if !dates.isEmpty, let date = dates[values[index].key] {
                try date.bind(to: statement, at: position)
            } else {
                try values[index].value.bind(to: handle, at: position)
            }
        }
        return true
    }

    /// Binds named arguments by looking up each parameter's name, or reports every mismatch at once.
    private static func bindNamed(
        _ values: [String: DatabaseValue], dates namedDates: [String: Date], to statement: Statement
    ) throws {
        let handle = statement.handle
        let byName = try Self.withoutPrefixes(values, sql: statement.sql)
        let dates =
            statement.dateStorage == .unixSeconds || namedDates.isEmpty
            ? [:] : try Self.withoutPrefixes(namedDates, sql: statement.sql)
        let names = statement.parameterNamesWithoutPrefix()
        // Bind as we go; on any mismatch, clear what was bound and report every problem at once.
        for (offset, name) in names.enumerated() {
            guard let name, let value = byName[name] else {
                _ = handle.clearBindings()
                throw Self.mismatch(byName, statement: statement)
            }
            if !dates.isEmpty, let date = dates[name] {
                try date.bind(to: statement, at: Int32(offset + 1))
            } else {
                try value.bind(to: handle, at: Int32(offset + 1))
            }
        }
        // Parameter names are distinct, so equal counts mean no argument was left unused.
        guard byName.count == names.count else {
            _ = handle.clearBindings()
            throw Self.mismatch(byName, statement: statement)
        }
    }

    /// Whether `key` starts with `:`, `@` or `$`; a look at its first UTF-8 byte, not at a `Character`.
    private static func hasParameterPrefix(_ key: String) -> Bool {
        switch key.utf8.first {
        case UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "$"): true
        default: false
        }
    }

    /// The arguments keyed by bare names: `values` itself unless a key starts with `:`, `@` or `$`.
    private static func withoutPrefixes<Value>(_ values: [String: Value], sql: String) throws -> [String: Value] {
        guard values.keys.contains(where: hasParameterPrefix) else { return values }
        var byName: [String: Value] = [:]
        for (key, value) in values {
            let bare = hasParameterPrefix(key) ? String(key.dropFirst()) : key
            guard byName.updateValue(value, forKey: bare) == nil else {
                throw DatabaseError.misuse(
                    "the argument \"\(bare)\" is given twice", sql: sql, reason: .duplicateArgumentName(bare))
            }
        }
        return byName
    }

    /// The error that says which parameters lack an argument and which arguments match no parameter.
    private static func mismatch(_ byName: [String: DatabaseValue], statement: Statement) -> DatabaseError {
        let handle = statement.handle
        var missing: [String] = []
        var used: Set<String> = []
        for (offset, bare) in statement.parameterNamesWithoutPrefix().enumerated() {
            // `?NNN` has a name too ("?1"), but it is positional: a dictionary cannot bind it.
            guard let bare else {
                return DatabaseError.misuse(
                    "parameter \(offset + 1) is positional; pass positional arguments, not a dictionary",
                    sql: statement.sql,
                    reason: .positionalParameter(index: offset + 1)
                )
            }
            if byName[bare] != nil {
                used.insert(bare)
            } else {
                missing.append(handle.bindParameterName(Int32(offset + 1)) ?? bare)
            }
        }
        let unknown = Set(byName.keys).subtracting(used).sorted()
        var problems: [String] = []
        if !missing.isEmpty { problems.append("missing \(missing.joined(separator: ", "))") }
        if !unknown.isEmpty { problems.append("unknown \(unknown.joined(separator: ", "))") }
        return DatabaseError.misuse(
            "named arguments do not match: \(problems.joined(separator: "; "))",
            sql: statement.sql,
            reason: unknown.isEmpty ? .missingArgumentNames(missing) : .unknownArgumentNames(unknown)
        )
    }
}

extension StatementArguments: CustomStringConvertible {
    /// The arguments as SQL literals, for error messages that opted in; a long text or blob is cut to its start and
    /// its size.
    public var description: String {
        switch canonicalStorage {
        case .positional(let values):
            return "[" + values.map { $0.truncatedDescription() }.joined(separator: ", ") + "]"
        case .named(let values):
            return "["
                + values.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.truncatedDescription())" }
                .joined(separator: ", ") + "]"
        case .namedInOrder(let values):
            return "["
                + values.map { "\($0.key): \($0.value.truncatedDescription())" }.joined(separator: ", ") + "]"
        }
    }
}
