import SQLiteToolkit

/// The rows of a query as arrays of values, for comparisons.
func allValues(_ db: Database, _ sql: String) throws -> [[DatabaseValue]] {
    try db.query(sql).map(\.values)
}
