import SQLiteBindings

extension Database {
    /// A kind of object in the schema, as `sqlite_schema.type` names it.
    ///
    /// Related SQLite documentation: <https://sqlite.org/schematab.html>
    public enum SchemaObjectType: String, Sendable, Hashable, CaseIterable {
        /// A table (ordinary or virtual).
        case table
        /// An index.
        case index
        /// A view.
        case view
        /// A trigger.
        case trigger
    }

    /// One row of `sqlite_schema`: a table, index, view or trigger.
    ///
    /// Related SQLite documentation: <https://sqlite.org/schematab.html>
    public struct SchemaObject: Sendable, Hashable {
        /// What the object is.
        public var type: SchemaObjectType
        /// Its name.
        public var name: String
        /// The table it belongs to (its own name for a table or view).
        public var tableName: String
        /// The SQL that created it; `nil` for the indexes SQLite makes for `UNIQUE` and `PRIMARY KEY` constraints.
        public var sql: String?
    }

    /// A column of a table, as `PRAGMA table_xinfo` describes it.
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_table_info>
    public struct ColumnInfo: Sendable, Hashable {
        /// The column's position in the table, from 0.
        public var position: Int
        /// The column's name.
        public var name: String
        /// The declared type, as written in `CREATE TABLE` (empty when none was given).
        public var declaredType: String
        /// Whether the column is `NOT NULL`.
        public var isNotNull: Bool
        /// The SQL text of the default value (`'abc'`, `0`, `CURRENT_TIMESTAMP`), or `nil` when there is none.
        public var defaultValueSQL: String?
        /// The column's 1-based position in the primary key, or 0 when it is not part of it.
        public var primaryKeyPosition: Int
        /// Whether it is a generated column (`GENERATED ALWAYS AS ...`, virtual or stored).
        public var isGenerated: Bool
    }

    /// An index of a table, as `PRAGMA index_list` and `PRAGMA index_info` describe it.
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_index_list>
    public struct IndexInfo: Sendable, Hashable {
        /// Why the index exists.
        public enum Origin: String, Sendable, Hashable {
            /// A `CREATE INDEX` statement.
            case createIndex = "c"
            /// A `UNIQUE` constraint.
            case uniqueConstraint = "u"
            /// A `PRIMARY KEY` constraint.
            case primaryKeyConstraint = "pk"
        }

        /// The index's name (`sqlite_autoindex_...` for the ones SQLite makes for constraints).
        public var name: String
        /// The indexed columns in index order; `nil` for an expression (`CREATE INDEX i ON t (lower(name))`).
        public var columns: [String?]
        /// Whether the index is `UNIQUE`.
        public var isUnique: Bool
        /// Why the index exists.
        public var origin: Origin
        /// Whether it is a partial index (`... WHERE condition`).
        public var isPartial: Bool
    }

    /// A foreign key of a table, as `PRAGMA foreign_key_list` describes it.
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_foreign_key_list>
    public struct ForeignKeyInfo: Sendable, Hashable {
        /// The foreign key's number in its table.
        public var id: Int
        /// The table it refers to.
        public var destinationTable: String
        /// The pairs of columns, in order: the column of this table and the column it refers to (`nil` when the
        /// constraint refers to the other table's primary key without naming its columns).
        public var columns: [(origin: String, destination: String?)]
        /// The `ON UPDATE` action (`NO ACTION`, `CASCADE`, `SET NULL`, `SET DEFAULT`, `RESTRICT`).
        public var onUpdate: String
        /// The `ON DELETE` action.
        public var onDelete: String

        /// Whether two descriptions are equal.
        public static func == (lhs: ForeignKeyInfo, rhs: ForeignKeyInfo) -> Bool {
            lhs.id == rhs.id && lhs.destinationTable == rhs.destinationTable && lhs.onUpdate == rhs.onUpdate
                && lhs.onDelete == rhs.onDelete && lhs.columns.elementsEqual(rhs.columns, by: { $0 == $1 })
        }

        /// Hashes the table, actions and columns.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(id)
            hasher.combine(destinationTable)
            hasher.combine(onUpdate)
            hasher.combine(onDelete)
            for pair in columns {
                hasher.combine(pair.origin)
                hasher.combine(pair.destination)
            }
        }
    }

    /// Whether the schema `schema` has a table named `name` (compared without regard to ASCII case, as SQLite
    /// does). Virtual tables count; views do not (see ``viewExists(_:in:includingTemporary:)``).
    ///
    /// ```swift
    /// if try !db.tableExists("player") { try db.execute("CREATE TABLE player (...)") }
    /// if try db.tableExists("session", includingTemporary: true) { ... }  // main or temp
    /// ```
    ///
    /// - Parameters:
    ///   - name: the table's name.
    ///   - schema: `main` by default, `temp`, or the name of an attached database.
    ///   - includingTemporary: also look in `temp`, where `CREATE TEMP TABLE` puts its tables.
    /// - Throws: ``DatabaseError/Reason/noSuchSchema(_:)`` for an unknown schema.
    ///
    /// Related SQLite documentation: <https://sqlite.org/schematab.html>
    public func tableExists(_ name: String, in schema: String = "main", includingTemporary: Bool = false) throws
        -> Bool
    {
        try objectExists(.table, name, in: schema, includingTemporary: includingTemporary)
    }

    /// Whether the schema `schema` has a view named `name` (compared without regard to ASCII case).
    ///
    /// - Parameters:
    ///   - name: the view's name.
    ///   - schema: `main` by default, `temp`, or the name of an attached database.
    ///   - includingTemporary: also look in `temp`, where `CREATE TEMP VIEW` puts its views.
    ///
    /// Related SQLite documentation: <https://sqlite.org/schematab.html>
    public func viewExists(_ name: String, in schema: String = "main", includingTemporary: Bool = false) throws
        -> Bool
    {
        try objectExists(.view, name, in: schema, includingTemporary: includingTemporary)
    }

    private func objectExists(
        _ type: SchemaObjectType, _ name: String, in schema: String, includingTemporary: Bool
    ) throws -> Bool {
        try checkSchemaExists(schema)
        var schemas = [schema]
        if includingTemporary && !schema.isSameIdentifier(as: "temp") { schemas.append("temp") }
        for schema in schemas {
            let sql = "SELECT 1 FROM \(try Database.schemaTable(schema)) WHERE type = ? AND name = ? COLLATE NOCASE"
            if try queryValue(sql, type.rawValue, name, as: Int.self) != nil { return true }
        }
        return false
    }

    /// Every table, index, view and trigger of the schema `schema`, in the order SQLite stores them, without
    /// `sqlite_schema` itself.
    ///
    /// By default only the schema's own objects are listed, as FMDB lists them: the objects SQLite makes for itself
    /// (every name that starts with `sqlite_`, which SQL cannot create: `sqlite_sequence` for `AUTOINCREMENT`,
    /// `sqlite_stat1` after `ANALYZE`, the `sqlite_autoindex_...` indexes of `UNIQUE` and `PRIMARY KEY`
    /// constraints) are left out.
    ///
    /// ```swift
    /// let mine = try db.schemaObjects()  // tables, indexes, views, triggers you created
    /// let all = try db.schemaObjects(includingInternal: true)  // also sqlite_sequence, sqlite_autoindex_...
    /// ```
    ///
    /// - Parameters:
    ///   - schema: `main` by default, `temp`, or the name of an attached database.
    ///   - includingInternal: also list the objects SQLite made for itself.
    /// - Throws: ``DatabaseError/Reason/noSuchSchema(_:)`` for an unknown schema.
    ///
    /// Related SQLite documentation: <https://sqlite.org/schematab.html>
    public func schemaObjects(in schema: String = "main", includingInternal: Bool = false) throws -> [SchemaObject] {
        try checkSchemaExists(schema)
        // SQLite reserves the `sqlite_` prefix for itself: `CREATE TABLE sqlite_x` fails, so no user object has it.
        let filter = includingInternal ? "" : " WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
        let sql = "SELECT type, name, tbl_name, sql FROM \(try Database.schemaTable(schema))\(filter) ORDER BY rowid"
        var objects: [SchemaObject] = []
        let rows = try query(sql)
        while let row = try rows.next() {
            // Types this version of the toolkit does not know are left out rather than guessed.
            guard let type = SchemaObjectType(rawValue: try row.value(at: 0)) else { continue }
            objects.append(
                SchemaObject(
                    type: type, name: try row.value(at: 1), tableName: try row.value(at: 2),
                    sql: try row.value(at: 3)))
        }
        return objects
    }

    /// The columns of the table or view `table` in the schema `schema`, in table order, with their declared
    /// type, nullability, default value and primary-key position. The hidden columns of virtual tables are left
    /// out; generated columns are included.
    ///
    /// ```swift
    /// for column in try db.columns(in: "player") {
    ///     print(column.name, column.declaredType, column.isNotNull, column.primaryKeyPosition)
    /// }
    /// ```
    ///
    /// - Throws: ``DatabaseError/Reason/noSuchTable(_:)`` when there is no such table or view.
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_table_info>
    public func columns(in table: String, schema: String = "main") throws -> [ColumnInfo] {
        try checkSchemaExists(schema)
        // The table-valued form takes the names as bound arguments: nothing is quoted.
        let rows = try query(
            "SELECT cid, name, type, \"notnull\", dflt_value, pk, hidden FROM pragma_table_xinfo(?, ?)", table, schema)
        var columns: [ColumnInfo] = []
        while let row = try rows.next() {
            let hidden: Int = try row.value(at: 6)
            if hidden == 1 { continue }  // a hidden column of a virtual table
            columns.append(
                ColumnInfo(
                    position: try row.value(at: 0), name: try row.value(at: 1), declaredType: try row.value(at: 2),
                    isNotNull: try row.value(at: 3), defaultValueSQL: try row.value(at: 4),
                    primaryKeyPosition: try row.value(at: 5), isGenerated: hidden == 2 || hidden == 3))
        }
        if columns.isEmpty { try checkTableExists(table, in: schema) }
        return columns
    }

    /// Whether the table or view `table` of the schema `schema` has a column named `column`, compared without
    /// regard to ASCII case, as SQLite compares names. FMDB's `columnExists:inTableWithName:`.
    ///
    /// ```swift
    /// if try !db.columnExists("email", in: "player") {
    ///     try db.execute("ALTER TABLE player ADD COLUMN email TEXT")
    /// }
    /// ```
    ///
    /// Generated columns count; the hidden columns of virtual tables do not, as in ``columns(in:schema:)``.
    ///
    /// - Parameters:
    ///   - column: the column's name.
    ///   - table: the table's or view's name; a table that does not exist has no column, so the answer is `false`.
    ///   - schema: `main` by default, `temp`, or the name of an attached database.
    /// - Throws: ``DatabaseError/Reason/noSuchSchema(_:)`` for an unknown schema.
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_table_info>
    public func columnExists(_ column: String, in table: String, schema: String = "main") throws -> Bool {
        try checkSchemaExists(schema)
        // The table-valued pragma takes the names as bound arguments, and yields no row for a missing table.
        let sql = "SELECT 1 FROM pragma_table_xinfo(?, ?) WHERE name = ? COLLATE NOCASE AND hidden <> 1"
        return try queryValue(sql, table, schema, column, as: Int.self) != nil
    }

    /// The indexes of the table `table` in the schema `schema`, with their columns, including those SQLite
    /// makes for `UNIQUE` and `PRIMARY KEY` constraints.
    ///
    /// - Throws: ``DatabaseError/Reason/noSuchTable(_:)`` when there is no such table.
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_index_list>
    public func indexes(on table: String, schema: String = "main") throws -> [IndexInfo] {
        try checkTableExists(table, in: schema)
        let list = try query(
            "SELECT name, \"unique\", origin, partial FROM pragma_index_list(?, ?) ORDER BY seq", table, schema)
        var indexes: [IndexInfo] = []
        while let row = try list.next() {
            let origin: String = try row.value(at: 2)
            indexes.append(
                IndexInfo(
                    name: try row.value(at: 0), columns: [], isUnique: try row.value(at: 1),
                    origin: IndexInfo.Origin(rawValue: origin) ?? .createIndex, isPartial: try row.value(at: 3)))
        }
        for position in indexes.indices {
            indexes[position].columns = try query(
                "SELECT name FROM pragma_index_info(?, ?) ORDER BY seqno", indexes[position].name, schema
            ).map { try $0.value(at: 0, as: String?.self) }
        }
        return indexes
    }

    /// The foreign keys of the table `table` in the schema `schema`, with their columns and actions.
    ///
    /// - Throws: ``DatabaseError/Reason/noSuchTable(_:)`` when there is no such table.
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_foreign_key_list>
    public func foreignKeys(in table: String, schema: String = "main") throws -> [ForeignKeyInfo] {
        try checkTableExists(table, in: schema)
        let rows = try query(
            "SELECT id, \"table\", \"from\", \"to\", on_update, on_delete FROM pragma_foreign_key_list(?, ?) "
                + "ORDER BY id, seq", table, schema)
        var foreignKeys: [ForeignKeyInfo] = []
        while let row = try rows.next() {
            let id: Int = try row.value(at: 0)
            let pair = (
                origin: try row.value(at: 2, as: String.self), destination: try row.value(at: 3, as: String?.self)
            )
            if let last = foreignKeys.indices.last, foreignKeys[last].id == id {
                foreignKeys[last].columns.append(pair)
            } else {
                foreignKeys.append(
                    ForeignKeyInfo(
                        id: id, destinationTable: try row.value(at: 1), columns: [pair], onUpdate: try row.value(at: 4),
                        onDelete: try row.value(at: 5)))
            }
        }
        return foreignKeys
    }

    /// Throws ``DatabaseError/Reason/noSuchTable(_:)`` unless `table` is a table or view of `schema`.
    func checkTableExists(_ table: String, in schema: String) throws {
        guard try tableExists(table, in: schema) || viewExists(table, in: schema) else {
            throw DatabaseError(extendedCode: .error, message: "no such table: \(table)", reason: .noSuchTable(table))
        }
    }
}
