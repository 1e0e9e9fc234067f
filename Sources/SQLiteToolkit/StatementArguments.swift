import SQLiteBindings

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
    }

    let storage: Storage
    /// Why one of the values cannot be bound (an integer above `Int64.max`, which has no faithful
    /// ``DatabaseValue``): binding throws this instead of storing a rounded value.
    let unrepresentable: String?

    /// Positional arguments, in parameter order.
    public init(_ values: [DatabaseValue]) {
        storage = .positional(values)
        unrepresentable = nil
    }

    /// Positional arguments, in parameter order, with the reason one of them cannot be bound.
    init(_ values: [DatabaseValue], unrepresentable: String?) {
        storage = .positional(values)
        self.unrepresentable = unrepresentable
    }

    /// Positional arguments, in parameter order.
    public init(_ values: [(any DatabaseValueConvertible)?]) {
        storage = .positional(values.map { $0?.databaseValue ?? .null })
        unrepresentable = values.lazy.compactMap { $0.flatMap(Self.unrepresentable) }.first
    }

    /// Why `value` cannot be bound faithfully through its ``DatabaseValue``, or `nil` when it can: the typed path
    /// (``DatabaseValueConvertible/bind(to:at:)``) throws for an integer above `Int64.max`, and so must this one.
    static func unrepresentable(_ value: any DatabaseValueConvertible) -> String? {
        guard let integer = value as? any BinaryInteger, Int64(exactly: integer) == nil else { return nil }
        return "\(type(of: integer)) \(integer) does not fit SQLite's 64-bit signed integers"
    }

    /// Positional arguments from a parameter pack, for error messages.
    @usableFromInline
    init<each Value: DatabaseValueConvertible>(describing values: repeat each Value) {
        var list: [DatabaseValue] = []
        for value in repeat each values { list.append(value.databaseValue) }
        storage = .positional(list)
        unrepresentable = nil
    }

    /// Named arguments.
    public init(_ values: [String: (any DatabaseValueConvertible)?]) {
        storage = .named(values.mapValues { $0?.databaseValue ?? .null })
        unrepresentable = values.values.lazy.compactMap { $0.flatMap(Self.unrepresentable) }.first
    }

    /// Positional arguments from a literal.
    public init(arrayLiteral elements: (any DatabaseValueConvertible)?...) {
        self.init(elements)
    }

    /// Named arguments from a literal.
    public init(dictionaryLiteral elements: (String, (any DatabaseValueConvertible)?)...) {
        var values: [String: DatabaseValue] = [:]
        for (key, value) in elements { values[key] = value?.databaseValue ?? .null }
        storage = .named(values)
        unrepresentable = elements.lazy.compactMap { $0.1.flatMap(Self.unrepresentable) }.first
    }

    /// The number of arguments.
    public var count: Int {
        switch storage {
        case .positional(let values): values.count
        case .named(let values): values.count
        }
    }

    /// Binds the arguments after checking them all against the statement's parameters.
    func bind(to statement: Statement) throws {
        let handle = statement.handle
        let parameterCount = Int(statement.parameterCount)
        if let unrepresentable { throw DatabaseError.mismatch(unrepresentable, sql: statement.sql) }
        switch storage {
        case .positional(let values):
            guard values.count == parameterCount else {
                throw DatabaseError.misuse(
                    "the statement expects \(parameterCount) arguments, \(values.count) were given",
                    sql: statement.sql
                )
            }
            for (offset, value) in values.enumerated() {
                try value.bind(to: handle, at: Int32(offset + 1))
            }
        case .named(let values):
            var byName: [String: DatabaseValue] = [:]
            for (key, value) in values {
                let bare = key.first.map { ":@$".contains($0) } == true ? String(key.dropFirst()) : key
                guard byName.updateValue(value, forKey: bare) == nil else {
                    throw DatabaseError.misuse("the argument \"\(bare)\" is given twice", sql: statement.sql)
                }
            }
            var plan: [(index: Int32, value: DatabaseValue)] = []
            var used: Set<String> = []
            var missing: [String] = []
            for index in 1...max(parameterCount, 1) where index <= parameterCount {
                // `?NNN` has a name too ("?1"), but it is positional: a dictionary cannot bind it.
                guard let name = handle.bindParameterName(Int32(index)), name.first != "?" else {
                    throw DatabaseError.misuse(
                        "parameter \(index) is positional; pass positional arguments, not a dictionary",
                        sql: statement.sql
                    )
                }
                let bare = String(name.dropFirst())
                if let value = byName[bare] {
                    plan.append((Int32(index), value))
                    used.insert(bare)
                } else {
                    missing.append(name)
                }
            }
            let unknown = Set(byName.keys).subtracting(used).sorted()
            guard missing.isEmpty, unknown.isEmpty else {
                var problems: [String] = []
                if !missing.isEmpty { problems.append("missing \(missing.joined(separator: ", "))") }
                if !unknown.isEmpty { problems.append("unknown \(unknown.joined(separator: ", "))") }
                throw DatabaseError.misuse(
                    "named arguments do not match: \(problems.joined(separator: "; "))", sql: statement.sql)
            }
            for (index, value) in plan { try value.bind(to: handle, at: index) }
        }
    }
}

extension StatementArguments: CustomStringConvertible {
    /// The arguments as SQL literals, for error messages that opted in.
    public var description: String {
        switch storage {
        case .positional(let values):
            return "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .named(let values):
            return "[" + values.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
                + "]"
        }
    }
}
