import CFuzzerDriver
// libFuzzer target: random stored values of every storage class, read back as every type.
//
// Input: a selector byte, then the value's bytes. The value is stored as text (valid or invalid UTF-8, also
// through a TEXT column's affinity), as a blob, as an integer or a real (from 8 bytes), or as text read from a
// numeric column, then read as every type. The date-parsing paths (`YYYY-MM-DD HH:MM:SS.SSS`, ISO-8601, numeric
// text) get date-shaped prefixes. Build and run with Fuzz/run.
import Foundation
import FuzzSupport
import SQLiteToolkit

let prefixes = ["", "2026-01-01 ", "2026-01-01 00:00:", "2026-01-01T00:00:00", "1970-01-01 00:00:00.", "-", "0x"]

/// libFuzzer's entry point: runs one input; always returns 0 (a failure stops the process).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTypedReads(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    let selector = input.byte()
    let prefix = prefixes[Int(input.byte()) % prefixes.count]
    let payload = Array(prefix.utf8) + input.take(4096)
    do {
        let db = try fuzzDatabase()
        try db.execute(
            "CREATE TABLE t (any_ ANY, text_ TEXT, integer_ INTEGER, real_ REAL, numeric_ NUMERIC, blob_ BLOB)")
        let value: DatabaseValue
        var cast = false
        switch selector % 6 {
        case 0: value = .text(String(decoding: payload, as: UTF8.self))
        case 1: value = .blob(Data(payload))
        case 2:
            value = .blob(Data(payload))
            cast = true  // stored as text with the bytes as they are, invalid UTF-8 included
        case 3: value = .integer(payload.prefix(8).reduce(0) { ($0 << 8) | Int64($1) })
        case 4: value = .real(Double(bitPattern: payload.prefix(8).reduce(0) { ($0 << 8) | UInt64($1) }))
        default: value = FuzzInputValue.from(payload)
        }
        let placeholder = cast ? "CAST(? AS TEXT)" : "?"
        let placeholders = Array(repeating: placeholder, count: 6).joined(separator: ", ")
        try db.execute(
            "INSERT INTO t VALUES (\(placeholders))", arguments: StatementArguments(Array(repeating: value, count: 6)))
        let rows = try db.query("SELECT *, typeof(any_), length(text_), hex(blob_) FROM t")
        while let row = try rows.next() {
            for column in 0..<row.count { readEveryType(row, at: column) }
        }
        db.close()
    } catch is DatabaseError {
    } catch {
        fatalError("\(type(of: error)) is not DatabaseError")
    }
    return 0
}

/// A value of any storage class decoded from the payload, so the fuzzer can reach them all from one input.
enum FuzzInputValue {
    static func from(_ payload: [UInt8]) -> DatabaseValue {
        payload.withUnsafeBytes { buffer in
            var input = FuzzInput(buffer)
            return input.value()
        }
    }
}

/// The program's entry: SwiftPM links `main` as `FuzzTypedReads_main`; it hands the command line to libFuzzer.
@_cdecl("FuzzTypedReads_main")
public func fuzzTypedReadsMain(_ count: CInt, _ arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt
{
    var count = count
    var arguments = arguments
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzTypedReads(data, size)
    }
}
