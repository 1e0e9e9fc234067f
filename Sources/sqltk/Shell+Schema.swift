import Foundation
import SQLiteToolkit

extension Shell {
    // MARK: - Schema

    func listTables(matching pattern: String?) throws {
        // pragma_table_list tells a virtual table's shadow tables (an FTS5 table's _data, _idx, ...) apart.
        let names = try strings(
            """
            SELECT name FROM pragma_table_list
            WHERE schema = 'main' AND type IN ('table', 'view', 'virtual') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
              AND name LIKE ?1
            ORDER BY name
            """, [pattern ?? "%"])
        guard !names.isEmpty else { return }
        // In columns, filled down then across, like `ls`.
        let width = (names.map(\.count).max() ?? 0) + 2
        let columnCount = max(1, 80 / width)
        let rowCount = (names.count + columnCount - 1) / columnCount
        for row in 0..<rowCount {
            var line = ""
            for column in 0..<columnCount {
                let index = column * rowCount + row
                guard index < names.count else { break }
                let name = names[index]
                line += name + String(repeating: " ", count: width - name.count)
            }
            writeOutput(line.trimmingCharacters(in: .whitespaces) + "\n")
        }
    }

    func showSchema(matching pattern: String?) throws {
        let statements = try strings(
            """
            SELECT sql FROM sqlite_schema
            WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
              AND name NOT IN (SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow')
              AND (name LIKE ?1 OR tbl_name LIKE ?1)
            ORDER BY rowid
            """, [pattern ?? "%"])
        for sql in statements { writeOutput(sql + ";\n") }
    }

    func listIndexes(of table: String?) throws {
        let names = try strings(
            "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name LIKE ?1 ORDER BY name", [table ?? "%"])
        for name in names { writeOutput(name + "\n") }
    }
}
