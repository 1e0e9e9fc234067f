// libFuzzer target: SQL text plus arguments through SQLiteToolkit's prepare, bind, step and typed column reads.
//
// Input: SQL text up to the first NUL byte, then the arguments (see FuzzInput.value()). Each input runs on a fresh
// in-memory database with a small schema, as a single prepared statement (positional and named binding) and as a
// script. Build and run with Fuzz/run.
import CFuzzerDriver
import FuzzSupport
import SQLiteToolkit

let schema = """
    CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT, c REAL, d BLOB, e);
    CREATE INDEX t_b ON t (b);
    INSERT INTO t VALUES (1, 'one', 1.5, x'01', NULL), (2, '2026-01-01 00:00:00', -0.0, x'', 'x'),
        (3, '3', 1e300, zeroblob(16), 9223372036854775807), (4, NULL, NULL, NULL, -9223372036854775808);
    CREATE VIEW v AS SELECT a, b || 'x' AS bx FROM t;
    """

/// libFuzzer's entry point: runs one input; always returns 0 (a failure stops the process).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSQL(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    let sqlBytes = input.takeUntilNUL()
    let sql = String(decoding: sqlBytes, as: UTF8.self)
    var arguments: [DatabaseValue] = []
    while !input.isEmpty, arguments.count < 64 { arguments.append(input.value()) }
    do {
        let db = try fuzzDatabase()
        try db.executeScript(schema)
        run(sql, arguments: arguments, on: db)
        // The same SQL as a script: every statement, rows read through the row handler.
        var rows = 0
        try? db.executeScript(sql) { row in
            rows += 1
            if rows > 200 { throw DatabaseError(extendedCode: .abort, message: "enough rows") }
            for column in 0..<row.count { readEveryType(row, at: column) }
        }
        _ = db.isInTransaction
        db.close()
    } catch is DatabaseError {
    } catch {
        fatalError("\(type(of: error)) is not DatabaseError")
    }
    return 0
}

/// Prepares `sql` as one statement, binds `arguments` positionally and then by name, and reads the rows.
func run(_ sql: String, arguments: [DatabaseValue], on db: Database) {
    guard let statement = try? db.prepare(sql) else { return }
    for binding in 0..<2 {
        do {
            if binding == 0 {
                try statement.bind(StatementArguments(arguments))
            } else {
                var named: [String: (any DatabaseValueConvertible)?] = [:]
                for (index, value) in arguments.enumerated() { named["p\(index)"] = value }
                try statement.bind(StatementArguments(named))
            }
        } catch is DatabaseError {
            continue
        } catch {
            fatalError("\(type(of: error)) is not DatabaseError")
        }
        var count = 0
        while count < 200, (try? statement.step()) == true {
            count += 1
            let row = statement.currentRow
            for column in 0..<row.count { readEveryType(row, at: column) }
        }
        _ = try? statement.reset()
    }
    _ = statement.columnNames
    _ = statement.expandedSQL
}

/// The program's entry: SwiftPM links `main` as `FuzzSQL_main`; it hands the command line to libFuzzer.
@_cdecl("FuzzSQL_main")
public func fuzzSQLMain(_ count: CInt, _ arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = count
    var arguments = arguments
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzSQL(data, size)
    }
}
