import Foundation
import SQLiteToolkit

extension Shell {
    /// `.parameter set|unset|list|clear|init`: the values later statements bind to their parameters by name
    /// (`:name`, `@name`, `$name`, `?NNN`); a parameter with no value set is NULL, as in the sqlite3 shell.
    func runParameterCommand(_ arguments: [String]) throws {
        let usage = "usage: .parameter set NAME VALUE | unset NAME | list | clear | init"
        guard let subcommand = arguments.first else { throw Failure(usage) }
        switch (subcommand, arguments.count) {
        case ("set", 3):
            parameters[arguments[1]] = try parameterValue(arguments[2])
        case ("unset", 2):
            parameters[arguments[1]] = nil
        case ("list", 1):
            let width = parameters.keys.map(\.utf8.count).max() ?? 0
            for name in parameters.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
                let value = parameters[name] ?? .null
                var text = try database.queryValue("SELECT quote(?)", value, as: String.self) ?? "NULL"
                // Text holding bytes that are not UTF-8 (see RawText) is quoted here, keeping them.
                if case .text(let raw) = value, RawText.holdsRawBytes(raw) { text = Self.stringLiteral(raw) }
                writeOutput(name + String(repeating: " ", count: max(0, width - name.utf8.count)) + " " + text + "\n")
            }
        case ("clear", 1), ("init", 1):
            if subcommand == "clear" { parameters = [:] }
        default:
            throw Failure(usage)
        }
    }

    /// The value `.parameter set` stores: VALUE as an SQL expression when it is one (`5`, `'text'`, `1+2`,
    /// `x'00'`), otherwise the text as typed.
    private func parameterValue(_ text: String) throws -> DatabaseValue {
        do {
            let rows = try Self.prepare("SELECT \(text)", in: database).query()
            if let row = try rows.next(), row.count == 1 {
                // Text keeps its bytes that are not UTF-8 (a Latin-1 literal), bound as they are later.
                return row.datatype(at: 0) == .text ? .text(try Self.rawText(of: row, at: 0)) : row[0]
            }
        } catch {
            // Not an expression: the text itself, as the sqlite3 shell stores it.
        }
        return .text(text)
    }

    /// Runs the statements of `sql` one at a time: binding `.parameter` values, drawing an EXPLAIN QUERY PLAN
    /// statement's rows as the plan's tree (as the sqlite3 shell always does) and, with `.eqp on`, printing each
    /// other statement's query plan first. `endRows` is called before a plan is written, so the rows of an earlier
    /// statement (held by a columnar mode) come out before it.
    func runStatementByStatement(_ sql: String, rowHandler: (Row) -> Void, endRows: () -> Void) throws {
        for text in Self.statements(in: sql) {
            let statement = try Self.prepare(text, in: database)
            let explanation = Self.explanation(of: text)
            if showsQueryPlans && explanation == .none {
                // Bound as the statement is, so a parameter does not make the plan fail.
                let plan = try Self.prepare("EXPLAIN QUERY PLAN \(text)", in: database)
                endRows()
                let rows = try plan.query(arguments: arguments(for: plan))
                try bindRawTexts(of: plan)
                try printQueryPlan(rows)
            }
            let rows = try statement.query(arguments: arguments(for: statement))
            try bindRawTexts(of: statement)
            if explanation == .queryPlan {
                endRows()
                try printQueryPlan(rows)
                continue
            }
            if explanation == .program && statement.columnCount == 8 {
                endRows()
                try printProgram(rows)
                continue
            }
            while let row = try rows.next() { rowHandler(row) }
        }
    }

    /// Binds again the parameters of `statement` whose `.parameter` text holds bytes that are not UTF-8 (see
    /// ``RawText``), as those bytes, which a `String` binding cannot carry. SQLite copies them.
    private func bindRawTexts(of statement: Statement) throws {
        for index in 0..<Int(statement.parameterCount) {
            guard case .text(let text) = parameters[statement.parameterName(at: index + 1) ?? "?\(index + 1)"],
                RawText.holdsRawBytes(text)
            else { continue }
            do {
                try statement.bindText(bytes: RawText.bytes(of: text), at: index + 1)
            } catch {
                throw Failure("a .parameter value could not be bound (\(error)); nothing was run")
            }
        }
    }

    /// The statement `sql`, whose bytes that are not UTF-8 (see ``RawText``) reach SQLite as they are.
    static func prepare(_ sql: String, in database: Database) throws -> Statement {
        RawText.holdsRawBytes(sql) ? try database.prepare(bytes: RawText.bytes(of: sql)) : try database.prepare(sql)
    }

    /// The values `.parameter` set for the parameters of `statement`, by position: each parameter takes the value
    /// set for its name, or NULL.
    private func arguments(for statement: Statement) -> StatementArguments {
        StatementArguments(
            (0..<Int(statement.parameterCount)).map { index in
                parameters[statement.parameterName(at: index + 1) ?? "?\(index + 1)"] ?? .null
            })
    }

    /// `QUERY PLAN` and the plan in `rows` (EXPLAIN QUERY PLAN's id, parent, unused and detail columns) as a
    /// tree, as the sqlite3 shell draws it.
    private func printQueryPlan(_ rows: Rows) throws {
        let plan = try rows.map { row in
            (
                id: try row.value(at: 0) as Int, parent: try row.value(at: 1) as Int,
                detail: try Self.rawText(of: row, at: 3)
            )
        }
        guard !plan.isEmpty else { return }
        var output = "QUERY PLAN\n"
        func render(parent: Int, prefix: String) {
            let children = plan.filter { $0.parent == parent }
            for (index, child) in children.enumerated() {
                let isLast = index == children.count - 1
                output += prefix + (isLast ? "`--" : "|--") + child.detail + "\n"
                render(parent: child.id, prefix: prefix + (isLast ? "   " : "|  "))
            }
        }
        render(parent: 0, prefix: "")
        writeOutput(output)
    }

    /// What kind of EXPLAIN a statement is, as `sqlite3_stmt_isexplain` answers.
    enum Explanation {
        case none
        case program
        case queryPlan
    }

    /// Whether `sql` might hold an EXPLAIN statement, which ``runStatementByStatement(_:rowHandler:endRows:)``
    /// draws: a cheap test, so other text still runs as one script.
    static func mayHoldExplain(_ sql: String) -> Bool {
        sql.range(of: "explain", options: .caseInsensitive) != nil
    }

    /// Whether the statement `text` starts with EXPLAIN or EXPLAIN QUERY PLAN, after white space and comments.
    static func explanation(of text: String) -> Explanation {
        let bytes = Array(text.utf8)
        var index = 0
        func nextWord() -> String {
            while index < bytes.count {
                let byte = bytes[index]
                if byte == 0x20 || (0x09...0x0D).contains(byte) {
                    index += 1
                } else if byte == UInt8(ascii: "-"), index + 1 < bytes.count, bytes[index + 1] == byte {
                    while index < bytes.count && bytes[index] != UInt8(ascii: "\n") { index += 1 }
                } else if byte == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*") {
                    index += 2
                    while index + 1 < bytes.count && !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == byte) {
                        index += 1
                    }
                    index = min(bytes.count, index + 2)
                } else {
                    break
                }
            }
            let start = index
            while index < bytes.count, bytes[index] < 0x80, isalpha(Int32(bytes[index])) != 0 { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self).uppercased()
        }
        guard nextWord() == "EXPLAIN" else { return .none }
        return nextWord() == "QUERY" && nextWord() == "PLAN" ? .queryPlan : .program
    }

    /// The statements of `sql`, each with its `;`: cut where the text so far is a complete statement.
    static func statements(in sql: String) -> [String] {
        var result: [String] = []
        let bytes = Array(sql.utf8)
        var start = 0
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: ";") {
            let candidate = String(decoding: bytes[start...index], as: UTF8.self)
            if Database.completeness(of: candidate) == .complete {
                result.append(candidate)
                start = index + 1
            }
        }
        let rest = String(decoding: bytes[start...], as: UTF8.self)
        if Database.completeness(of: rest) != .empty { result.append(rest) }
        return result.filter { Database.completeness(of: $0) != .empty }
    }
}
