import SQLiteBindings
import Testing

@Suite("Statements: prepare, bind, step, columns")
struct StatementBindingTests {
    /// Prepares `SELECT ?1`, lets `bind` bind parameter 1, steps to the row and hands the statement to `check`.
    private func roundTrip(
        bind: (StatementHandle) -> ResultCode,
        check: (StatementHandle) throws -> Void
    ) throws {
        let connection = try TestConnection()
        let statement = try connection.prepare("SELECT ?1")
        defer { _ = statement.finalize() }
        #expect(bind(statement) == .ok)
        #expect(statement.step() == .row)
        try check(statement)
        #expect(statement.step() == .done)
    }

    @Test("a 32-bit integer reads back through every column accessor")
    func bindInt() throws {
        try roundTrip {
            $0.bindInt(1, -42)
        } check: { statement in
            #expect(statement.columnType(0) == .integer)
            #expect(statement.columnInt(0) == -42)
            #expect(statement.columnInt64(0) == -42)
            #expect(statement.columnDouble(0) == -42.0)
            #expect(statement.columnText(0) == "-42")
            #expect(statement.columnBytes(0) == 3)
            #expect(statement.columnBlob(0) == Array("-42".utf8))
        }
    }

    @Test("a 64-bit integer keeps all its bits")
    func bindInt64() throws {
        try roundTrip {
            $0.bindInt64(1, .max)
        } check: { statement in
            #expect(statement.columnType(0) == .integer)
            #expect(statement.columnInt64(0) == .max)
            #expect(statement.columnText(0) == "9223372036854775807")
        }
    }

    @Test("a double reads back as a float, and as text by SQLite's rules")
    func bindDouble() throws {
        try roundTrip {
            $0.bindDouble(1, 1.5)
        } check: { statement in
            #expect(statement.columnType(0) == .float)
            #expect(statement.columnDouble(0) == 1.5)
            #expect(statement.columnInt64(0) == 1)
            #expect(statement.columnText(0) == "1.5")
        }
    }

    @Test("text is copied at bind time and reads back as text and as its UTF-8 bytes")
    func bindText() throws {
        try roundTrip(
            bind: { statement in
                let text = String(repeating: "é", count: 3)
                return statement.bindText(1, text)
            },
            check: { statement in
                #expect(statement.columnType(0) == .text)
                #expect(statement.columnText(0) == "ééé")
                #expect(statement.columnBytes(0) == 6)
                #expect(statement.columnBlob(0) == Array("ééé".utf8))
                #expect(Array(statement.columnTextNoCopy(0)) == Array("ééé".utf8))
            })
    }

    @Test("a BLOB is copied at bind time and reads back through the copying and no-copy accessors")
    func bindBlob() throws {
        let bytes: [UInt8] = [0, 1, 2, 255]
        try roundTrip { statement in
            bytes.withUnsafeBytes { statement.bindBlob(1, $0) }
        } check: { statement in
            #expect(statement.columnType(0) == .blob)
            #expect(statement.columnBytes(0) == 4)
            #expect(statement.columnBlob(0) == bytes)
            #expect(Array(statement.columnBlobNoCopy(0)) == bytes)
        }
    }

    @Test("a zero BLOB reads back as that many zero bytes")
    func bindZeroBlob() throws {
        try roundTrip {
            $0.bindZeroBlob(1, byteCount: 5)
        } check: { statement in
            #expect(statement.columnType(0) == .blob)
            #expect(statement.columnBlob(0) == [0, 0, 0, 0, 0])
        }
    }

    @Test("NULL reads back as nil text, nil bytes and zero numbers")
    func bindNull() throws {
        try roundTrip {
            $0.bindNull(1)
        } check: { statement in
            #expect(statement.columnType(0) == .null)
            #expect(statement.columnText(0) == nil)
            #expect(statement.columnBlob(0) == nil)
            #expect(statement.columnBlobNoCopy(0).baseAddress == nil)
            #expect(statement.columnInt64(0) == 0)
            #expect(statement.columnDouble(0) == 0)
            #expect(statement.columnBytes(0) == 0)
        }
    }

    @Test("the no-copy text and BLOB binds read the caller's bytes in place")
    func bindNoCopy() throws {
        let connection = try TestConnection()
        let statement = try connection.prepare("SELECT ?1, ?2")
        defer { _ = statement.finalize() }
        let text = Array("hello, world".utf8CString)
        let blob: [UInt8] = [9, 8, 7]
        text.withUnsafeBufferPointer { textBuffer in
            blob.withUnsafeBytes { blobBuffer in
                // Only "hello" of the text: the byte count, not the NUL, ends it.
                #expect(statement.bindText(1, textBuffer.baseAddress, byteCount: 5, destructor: nil) == .ok)
                #expect(statement.bindBlob(2, blobBuffer.baseAddress, byteCount: 3, destructor: nil) == .ok)
                #expect(statement.step() == .row)
                #expect(statement.columnText(0) == "hello")
                #expect(statement.columnBlob(1) == blob)
                // Bound in place, so the statement must let go of them before the buffers go away.
                #expect(statement.reset() == .ok)
                #expect(statement.clearBindings() == .ok)
            }
        }
        #expect(statement.step() == .row)
        #expect(statement.columnType(0) == .null)
    }

    @Test("NULL, empty text and a zero-length BLOB stay distinct")
    func emptyValuesAreDistinct() throws {
        let connection = try TestConnection()
        let statement = try connection.prepare("SELECT ?1, ?2, ?3")
        defer { _ = statement.finalize() }
        #expect(statement.bindNull(1) == .ok)
        #expect(statement.bindText(2, "") == .ok)
        #expect(statement.bindBlob(3, UnsafeRawBufferPointer(start: nil, count: 0)) == .ok)
        #expect(statement.step() == .row)
        #expect(statement.columnType(0) == .null)
        #expect(statement.columnType(1) == .text)
        #expect(statement.columnType(2) == .blob)
        #expect(statement.columnText(0) == nil)
        #expect(statement.columnText(1) == "")
        #expect(statement.columnBlob(0) == nil)
        #expect(statement.columnBlob(2) == [])
        #expect(statement.columnBytes(2) == 0)
    }

    @Test("text with an embedded NUL and non-ASCII UTF-8 survives a round trip through a table")
    func embeddedNulAndUnicode() throws {
        let connection = try TestConnection()
        try connection.execute("CREATE TABLE t(value TEXT)")
        let text = "a\u{0}b — ünïcødé 😀"
        let insert = try connection.prepare("INSERT INTO t VALUES (?)")
        #expect(insert.bindText(1, text) == .ok)
        #expect(insert.step() == .done)
        #expect(insert.finalize() == .ok)
        let select = try connection.prepare("SELECT value, length(value) FROM t")
        defer { _ = select.finalize() }
        #expect(select.step() == .row)
        #expect(select.columnText(0) == text)
        #expect(select.columnBytes(0) == Int32(text.utf8.count))
    }

    @Test("a value read from one statement binds into another with its type")
    func bindValue() throws {
        let connection = try TestConnection()
        let source = try connection.prepare("SELECT x'CAFE'")
        defer { _ = source.finalize() }
        #expect(source.step() == .row)
        let value = try #require(source.columnValue(0))
        let target = try connection.prepare("SELECT typeof(?1), ?1")
        defer { _ = target.finalize() }
        #expect(target.bindValue(1, value) == .ok)
        #expect(target.step() == .row)
        #expect(target.columnText(0) == "blob")
        #expect(target.columnBlob(1) == [0xCA, 0xFE])
    }

    @Test("parameters report their count, names and indices")
    func parameters() throws {
        let connection = try TestConnection()
        let statement = try connection.prepare("SELECT :a, @b, $c, ?, ?7")
        defer { _ = statement.finalize() }
        #expect(statement.bindParameterCount() == 7)
        #expect(statement.bindParameterName(1) == ":a")
        #expect(statement.bindParameterName(2) == "@b")
        #expect(statement.bindParameterName(3) == "$c")
        #expect(statement.bindParameterName(4) == nil)
        #expect(statement.bindParameterName(7) == "?7")
        #expect(statement.bindParameterIndex(":a") == 1)
        #expect(statement.bindParameterIndex("$c") == 3)
        #expect(statement.bindParameterIndex("a") == 0)
        #expect(statement.bindParameterIndex(":missing") == 0)
        #expect(statement.bindInt(8, 1) == .range)
    }

    @Test("a syntax error gives a result code, a message and the offset of the bad token")
    func prepareErrors() throws {
        let connection = try TestConnection()
        let (code, statement) = connection.handle.prepare(sql: "SELECT 1 FROM WHERE", flags: [])
        #expect(code == .error)
        #expect(statement == nil)
        #expect(connection.handle.errorCode() == .error)
        #expect(connection.handle.errorMessage()?.contains("syntax error") == true)
        #expect(connection.handle.errorOffset() == 14)

        let missing = connection.handle.prepare(sql: "SELECT nope FROM sqlite_schema", flags: [])
        #expect(missing.code == .error)
        #expect(connection.handle.errorMessage() == "no such column: nope")
        #expect(connection.handle.errorOffset() == 7)

        let incomplete = connection.handle.prepare(sql: "SELECT 1 FROM", flags: [])
        #expect(incomplete.code == .error)
        #expect(connection.handle.errorMessage() == "incomplete input")
        #expect(connection.handle.errorOffset() == -1)
    }

    @Test("SQL of only whitespace or comments prepares to no statement")
    func emptySQL() throws {
        let connection = try TestConnection()
        let (code, statement) = connection.handle.prepare(sql: "  -- nothing\n", flags: [])
        #expect(code == .ok)
        #expect(statement == nil)
    }

    @Test("the raw prepare reports the tail after the first statement")
    func prepareTail() throws {
        let connection = try TestConnection()
        let sql = "SELECT 1; SELECT 2"
        try sql.withCString { start in
            let (code, statement, tail) = connection.handle.prepare(
                sql: start, byteCount: Int32(sql.utf8.count), flags: [.persistent])
            #expect(code == .ok)
            let first = try #require(statement)
            defer { _ = first.finalize() }
            let rest = try #require(tail)
            #expect(rest - start == 9)
            #expect(String(cString: rest) == " SELECT 2")
            #expect(first.sql() == "SELECT 1;")
        }
    }

    @Test("step, reset and finalize report their result codes, and a constraint error is extended")
    func stepResetFinalize() throws {
        let connection = try TestConnection()
        try connection.execute(
            "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT UNIQUE); INSERT INTO t(name) VALUES ('a')")
        #expect(connection.handle.setExtendedResultCodes(true) == .ok)
        let insert = try connection.prepare("INSERT INTO t(name) VALUES ('a')")
        let code = insert.step()
        #expect(code == .constraintUnique)
        #expect(code.primary == .constraint)
        #expect(connection.handle.extendedErrorCode() == .constraintUnique)
        #expect(insert.reset() == .constraintUnique)
        #expect(insert.reset() == .ok)
        #expect(insert.finalize() == .ok)
    }

    @Test("columns report their names, declared types and origins")
    func columnMetadata() throws {
        let connection = try TestConnection()
        try connection.execute("CREATE TABLE person(id INTEGER PRIMARY KEY, name VARCHAR(20))")
        let statement = try connection.prepare("SELECT name AS label, id + 1 FROM person")
        defer { _ = statement.finalize() }
        #expect(statement.columnCount() == 2)
        #expect(statement.columnName(0) == "label")
        #expect(statement.columnName(1) == "id + 1")
        #expect(statement.columnName(2) == nil)
        #expect(statement.columnDeclaredType(0) == "VARCHAR(20)")
        #expect(statement.columnDeclaredType(1) == nil)
        #expect(statement.columnDatabaseName(0) == "main")
        #expect(statement.columnTableName(0) == "person")
        #expect(statement.columnOriginName(0) == "name")
        #expect(statement.columnOriginName(1) == nil)
    }

    @Test("a statement reports its SQL, expanded SQL, state and connection")
    func statementProperties() throws {
        let connection = try TestConnection()
        try connection.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)")
        let statement = try connection.prepare("SELECT x FROM t WHERE x > ? ORDER BY x")
        defer { _ = statement.finalize() }
        #expect(statement.bindText(1, "it's") == .ok)
        #expect(statement.sql() == "SELECT x FROM t WHERE x > ? ORDER BY x")
        #expect(statement.expandedSQL() == "SELECT x FROM t WHERE x > 'it''s' ORDER BY x")
        #expect(statement.isReadOnly())
        #expect(statement.explainMode() == 0)
        #expect(statement.connection() == connection.handle)
        #expect(connection.handle.nextStatement(after: nil) == statement)
        #expect(connection.handle.nextStatement(after: statement) == nil)
        #expect(statement.bindInt(1, 0) == .ok)
        #expect(!statement.isBusy())
        #expect(statement.dataCount() == 0)
        #expect(statement.step() == .row)
        #expect(statement.isBusy())
        #expect(statement.dataCount() == 1)
        #expect(statement.columnInt(0) == 1)
        #expect(statement.step() == .row)
        #expect(statement.step() == .done)
        #expect(statement.dataCount() == 0)
        #expect(statement.status(.vmStep, reset: false) > 0)
        #expect(statement.status(.sort, reset: true) == 1)
        #expect(statement.status(.sort, reset: false) == 0)
        #expect(statement.reset() == .ok)
        #expect(statement.setExplainMode(2) == .ok)
        #expect(statement.explainMode() == 2)

        let insert = try connection.prepare("INSERT INTO t VALUES (3)")
        defer { _ = insert.finalize() }
        #expect(!insert.isReadOnly())
    }

    @Test("a column value reads through the ValueHandle accessors, and a duplicate outlives the row")
    func columnValues() throws {
        let connection = try TestConnection()
        let statement = try connection.prepare("SELECT 7, 2.5, ?, x'0102', NULL, '12'")
        defer { _ = statement.finalize() }
        #expect(statement.bindText(1, "a\u{0}é") == .ok)
        #expect(statement.step() == .row)
        let integer = try #require(statement.columnValue(0))
        #expect(integer.valueType() == .integer)
        #expect(integer.valueInt() == 7)
        #expect(integer.valueInt64() == 7)
        #expect(integer.valueFromBind() == false)
        let real = try #require(statement.columnValue(1))
        #expect(real.valueType() == .float)
        #expect(real.valueDouble() == 2.5)
        let text = try #require(statement.columnValue(2))
        #expect(text.valueType() == .text)
        #expect(text.valueString() == "a\u{0}é")
        #expect(text.valueBytes() == 4)
        #expect(text.valueEncoding() == 1)
        #expect(text.valueFromBind())
        let blob = try #require(statement.columnValue(3))
        #expect(blob.valueType() == .blob)
        #expect(blob.valueData() == [1, 2])
        #expect(Array(blob.valueDataNoCopy()) == [1, 2])
        #expect(blob.valueSubtype() == 0)
        let null = try #require(statement.columnValue(4))
        #expect(null.valueType() == .null)
        #expect(null.valueString() == nil)
        #expect(null.valueData() == nil)
        let number = try #require(statement.columnValue(5))
        #expect(number.valueType() == .text)
        #expect(number.valueNumericType() == .integer)
        #expect(number.valueNoChange() == false)

        let copy = try #require(text.duplicate())
        #expect(statement.step() == .done)
        #expect(statement.reset() == .ok)
        #expect(copy.valueString() == "a\u{0}é")
        copy.free()
    }
}
