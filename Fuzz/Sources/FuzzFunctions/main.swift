// libFuzzer target: random argument values into custom SQL functions registered with Database.createFunction.
//
// Input: the arguments (see FuzzInput.value()), then a selector byte per call. Each input registers, on a fresh
// in-memory database, typed functions of every standard type, a variadic function over FunctionValues, a
// low-level function that reads every argument through every C accessor and sets a result chosen by the input
// (an error among them), an aggregate and a window function; then calls them with the arguments bound, directly
// and over a table of the arguments. An identity function must give back exactly what was bound (SQLite stores a
// NaN as NULL). Build and run with Fuzz/run.
import CFuzzerDriver
import Foundation
import FuzzSupport
import SQLiteToolkit

/// Reads every argument of a call as every standard type (failures must be `DatabaseError`), plus out-of-range
/// indexes; the result is the number of arguments that read as `String`.
func readEveryArgument(_ arguments: FunctionValues) -> Int {
    var strings = 0
    for index in -1...arguments.count {
        func attempt<T: DatabaseValueConvertible>(_: T.Type) {
            do {
                _ = try arguments.value(at: index, as: T.self)
                _ = try arguments.value(at: index, as: T?.self)
                if T.self == String.self { strings += 1 }
            } catch is DatabaseError {
            } catch {
                fatalError("reading argument \(index) as \(T.self) threw \(type(of: error)), not DatabaseError")
            }
        }
        attempt(Int.self)
        attempt(Int8.self)
        attempt(UInt8.self)
        attempt(Int32.self)
        attempt(UInt32.self)
        attempt(Int64.self)
        attempt(UInt64.self)
        attempt(Double.self)
        attempt(Float.self)
        attempt(Bool.self)
        attempt(String.self)
        attempt(Data.self)
        attempt([UInt8].self)
        attempt(Date.self)
        attempt(UUID.self)
        attempt(DatabaseValue.self)
        _ = arguments[index]
    }
    _ = arguments.values
    return strings
}

/// An aggregate that reads each row's arguments as every type and keeps a count and the last value.
struct FuzzAggregate: DatabaseWindowFunction {
    var rows = 0
    var last: DatabaseValue = .null
    mutating func step(_ arguments: FunctionValues) throws {
        _ = readEveryArgument(arguments)
        rows += 1
        last = arguments[0]
        if case .text(let text) = last, text == "throw" {
            throw DatabaseError(extendedCode: .constraint, message: "the aggregate refuses this row")
        }
    }
    mutating func inverse(_ arguments: FunctionValues) throws {
        _ = readEveryArgument(arguments)
        rows -= 1
    }
    func value() -> Int { rows }
    func finalize() -> Int { rows }
}

/// Registers the functions of one input; `results` chooses the low-level function's result for each call.
func registerFunctions(on db: Database, results: [UInt8]) throws {
    try db.createFunction("f_int") { (x: Int) in x }
    try db.createFunction("f_uint64") { (x: UInt64) in x }
    try db.createFunction("f_int8") { (x: Int8?) in x }
    try db.createFunction("f_double") { (x: Double) in x }
    try db.createFunction("f_float") { (x: Float?) in x }
    try db.createFunction("f_bool") { (x: Bool) in x }
    try db.createFunction("f_string") { (x: String) in x }
    try db.createFunction("f_data") { (x: Data?) in x }
    try db.createFunction("f_bytes") { (x: [UInt8]) in x }
    try db.createFunction("f_date") { (x: Date?) in x }
    try db.createFunction("f_uuid") { (x: UUID) in x }
    try db.createFunction("f_pair") { (x: String?, y: Int64?) in (x ?? "") + String(y ?? 0) }
    try db.createFunction("f_identity") { (x: DatabaseValue) in x }
    try db.createFunction("f_values", argumentCount: nil) { arguments in readEveryArgument(arguments) }
    var call = 0
    try db.createFunction("f_raw", argumentCount: nil) { context, arguments in
        for argument in arguments {
            _ = argument.valueType()
            _ = argument.valueNumericType()
            _ = argument.valueInt()
            _ = argument.valueInt64()
            _ = argument.valueDouble()
            _ = argument.valueString()
            _ = argument.valueData()
            _ = argument.valueDataNoCopy()
            _ = argument.valueBytes()
            _ = argument.valueSubtype()
        }
        let choice = results.isEmpty ? 0 : results[call % results.count]
        call += 1
        switch choice % 9 {
        case 0: context.resultNull()
        case 1: context.resultInt64(Int64(arguments.count))
        case 2: context.resultDouble(Double(choice))
        case 3: context.resultString(arguments.first?.valueString() ?? "")
        case 4:
            if let first = arguments.first { context.resultData(first.valueDataNoCopy()) } else { context.resultNull() }
        case 5: context.resultError("f_raw fails on purpose")
        case 6: throw DatabaseError(extendedCode: .range, message: "f_raw throws on purpose")
        case 7: if let first = arguments.first { context.resultValue(first) } else { context.resultNull() }
        default: _ = context.resultZeroBlob(byteCount: UInt64(choice))
        }
    }
    try db.createAggregate("f_aggregate", argumentCount: 1, FuzzAggregate.self)
    try db.createWindowFunction("f_window", argumentCount: 1, FuzzAggregate.self)
}

/// Steps `sql` to the end with `arguments`, reading every column as every type. Failures must be `DatabaseError`.
func run(_ sql: String, _ arguments: [DatabaseValue], on db: Database) {
    do {
        let rows = try db.query(sql, arguments: StatementArguments(arguments))
        while let row = try rows.next() {
            for column in 0..<row.count { readEveryType(row, at: column) }
        }
    } catch is DatabaseError {
    } catch {
        fatalError("\(sql): \(type(of: error)) is not DatabaseError")
    }
}

/// What SQLite stores for a bound value: NaN becomes NULL.
func stored(_ value: DatabaseValue) -> DatabaseValue {
    if case .real(let real) = value, real.isNaN { return .null }
    return value
}

/// libFuzzer's entry point: runs one input; always returns 0 (a failure stops the process).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFunctions(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    var arguments: [DatabaseValue] = []
    let count = Int(input.byte() % 8) + 1
    while arguments.count < count { arguments.append(input.value()) }
    let results = input.take(16)
    do {
        let db = try fuzzDatabase()
        try registerFunctions(on: db, results: results)
        for name in [
            "f_int", "f_uint64", "f_int8", "f_double", "f_float", "f_bool", "f_string", "f_data", "f_bytes",
            "f_date", "f_uuid", "f_identity", "f_raw", "f_values", "f_aggregate",
        ] {
            run("SELECT \(name)(?)", [arguments[0]], on: db)
        }
        let placeholders = Array(repeating: "?", count: arguments.count).joined(separator: ", ")
        run("SELECT f_raw(\(placeholders)), f_values(\(placeholders))", arguments + arguments, on: db)
        run("SELECT f_pair(?, ?)", Array((arguments + [.null, .null]).prefix(2)), on: db)
        // Identity: every storage class comes back exactly as bound.
        for argument in arguments {
            let back = try db.queryValue("SELECT f_identity(?)", argument, as: DatabaseValue.self)
            guard back == stored(argument) else {
                fatalError("f_identity gave \(String(describing: back)) for \(argument)")
            }
        }
        // The same functions over a table of the arguments: aggregates, window frames, a function per row.
        try db.execute("CREATE TABLE t (v)")
        for argument in arguments { try db.execute("INSERT INTO t VALUES (?)", argument) }
        run("SELECT f_aggregate(v), f_raw(v, v), count(*) FROM t", [], on: db)
        run(
            "SELECT f_window(v) OVER (ORDER BY rowid ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), f_string(v) FROM t",
            [], on: db)
        run("SELECT f_aggregate(v) FROM t GROUP BY typeof(v)", [], on: db)
        let rows = try db.queryValue("SELECT f_aggregate(v) FROM t WHERE v IS NOT 'throw'", as: Int.self)
        let expected = arguments.filter { $0 != .text("throw") }.count
        guard rows == expected else { fatalError("f_aggregate counted \(rows ?? -1) rows, not \(expected)") }
        db.close()
    } catch is DatabaseError {
    } catch {
        fatalError("\(type(of: error)) is not DatabaseError")
    }
    return 0
}

/// The program's entry: SwiftPM links `main` as `FuzzFunctions_main`; it hands the command line to libFuzzer.
@_cdecl("FuzzFunctions_main")
public func fuzzFunctionsMain(_ count: CInt, _ arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = count
    var arguments = arguments
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzFunctions(data, size)
    }
}
