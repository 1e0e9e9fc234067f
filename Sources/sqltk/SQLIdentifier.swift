import Foundation

/// `name` as an SQL identifier in double quotes, inner quotes doubled: for the table and column names the shell
/// writes into SQL (`.import`, `.dump`). Its own file so the CSV fuzz target compiles it with `CSVImport.swift`.
func quotedIdentifier(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
