import SQLiteToolkit

/// Rows read from the database with their column names, and their text for diffs and dumps.
struct RowTable: Sendable {
    var columns: [String]
    var rows: [[DatabaseValue]]

    /// The rows of `sql`.
    init(_ db: Database, _ sql: String, arguments: StatementArguments = []) throws {
        let cursor = try db.query(sql, arguments: arguments)
        columns = cursor.statement.columnNames
        rows = try cursor.map(\.values)
    }

    /// Every row of `table`, every column, in the order SQLite returns them.
    init(_ db: Database, table: String) throws {
        try self.init(db, "SELECT * FROM \(try Database.quoteIdentifier(table))")
    }

    init(columns: [String], rows: [[DatabaseValue]]) {
        self.columns = columns
        self.rows = rows
    }

    /// The same rows in SQLite's order of values, column by column.
    func sorted() -> RowTable {
        RowTable(columns: columns, rows: rows.sorted(by: RowTable.precedes))
    }

    /// Whether `left` sorts before `right`, comparing column by column as SQLite's `ORDER BY` does without a
    /// collation: NULL, then numbers (integers and reals by value), then text (by bytes), then blobs (by bytes);
    /// a shorter row first when one is a prefix of the other.
    static func precedes(_ left: [DatabaseValue], _ right: [DatabaseValue]) -> Bool {
        for (a, b) in zip(left, right) {
            let order = compare(a, b)
            if order != 0 { return order < 0 }
        }
        return left.count < right.count
    }

    /// -1, 0 or 1, as `a` sorts before, with or after `b`.
    static func compare(_ a: DatabaseValue, _ b: DatabaseValue) -> Int {
        let (rankA, rankB) = (rank(a), rank(b))
        if rankA != rankB { return rankA < rankB ? -1 : 1 }
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.text(let x), .text(let y)): return x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : (x == y ? 0 : 1)
        case (.blob(let x), .blob(let y)): return x.lexicographicallyPrecedes(y) ? -1 : (x == y ? 0 : 1)
        default:
            // Numbers of two classes, or two reals: by value, the integer first when they are equal, so the order
            // is total.
            let (x, y) = (number(a), number(b))
            if x != y { return x < y ? -1 : 1 }
            return a == b ? 0 : (a.datatype == .integer ? -1 : 1)
        }
    }

    private static func rank(_ value: DatabaseValue) -> Int {
        switch value {
        case .null: 0
        case .integer, .real: 1
        case .text: 2
        case .blob: 3
        }
    }

    private static func number(_ value: DatabaseValue) -> Double {
        switch value {
        case .integer(let x): Double(x)
        case .real(let x): x
        default: 0
        }
    }

    /// A row as text: each value as SQL writes it (`NULL`, `42`, `'text'`, `X'0A'`), padded to `widths`.
    static func line(_ row: [DatabaseValue], widths: [Int]) -> String {
        line(row.map(\.description), widths: widths)
    }

    static func line(_ cells: [String], widths: [Int]) -> String {
        var text = ""
        for (index, cell) in cells.enumerated() {
            if index > 0 { text += " | " }
            text += cell
            let width = index < widths.count ? widths[index] : 0
            if index < cells.count - 1, cell.count < width {
                text += String(repeating: " ", count: width - cell.count)
            }
        }
        return text
    }

    /// The width of each column over the column names and `rows`.
    func widths(including rows: [[DatabaseValue]]...) -> [Int] {
        var widths = columns.map(\.count)
        for row in rows.joined() {
            for (index, value) in row.enumerated() {
                let count = value.description.count
                if index < widths.count {
                    widths[index] = max(widths[index], count)
                } else {
                    widths.append(count)
                }
            }
        }
        return widths
    }

    /// The rows under their column names, one row a line, each line indented by two spaces.
    var text: String {
        let widths = widths(including: rows)
        var lines = ["  " + Self.line(columns, widths: widths)]
        lines += rows.map { "  " + Self.line($0, widths: widths) }
        return lines.joined(separator: "\n")
    }

    /// A row-by-row diff from `expected` to these rows: the column names, then every row marked `-` (expected,
    /// missing), `+` (actual, unexpected) or blank (in both), in order, and a count of each kind.
    func diff(expected: [[DatabaseValue]]) -> String {
        let difference = rows.difference(from: expected)
        var removed = Set<Int>()
        var inserted = Set<Int>()
        for change in difference {
            switch change {
            case .remove(let offset, _, _): removed.insert(offset)
            case .insert(let offset, _, _): inserted.insert(offset)
            }
        }
        let widths = widths(including: rows, expected)
        var lines = ["(- expected, + actual)", "  " + Self.line(columns, widths: widths)]
        var (e, a) = (0, 0)
        while e < expected.count || a < rows.count {
            if e < expected.count, removed.contains(e) {
                lines.append("- " + Self.line(expected[e], widths: widths))
                e += 1
            } else if a < rows.count, inserted.contains(a) {
                lines.append("+ " + Self.line(rows[a], widths: widths))
                a += 1
            } else if e < expected.count, a < rows.count {
                lines.append("  " + Self.line(rows[a], widths: widths))
                e += 1
                a += 1
            } else {
                break  // Unreachable when the difference is consistent; never index past an end.
            }
        }
        lines.append("\(removed.count) expected row(s) missing, \(inserted.count) unexpected row(s)")
        return lines.joined(separator: "\n")
    }
}
