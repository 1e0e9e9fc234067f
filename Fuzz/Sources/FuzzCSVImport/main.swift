// libFuzzer target: sqltk's CSV import, the reader (CSVReader) and the table writer (CSVImport), compiled from
// the sqltk sources themselves (the other files beside this one are links to Sources/sqltk).
//
// Input: a selector byte, then the CSV bytes. The selector chooses the table's name (plain, or with quotes and
// spaces) and whether a table of that name exists before the import. Invariants: the reader gives records in
// line order; an import into a new table stores every field exactly as read, in order; an import that fails
// leaves nothing behind (all or nothing). Build and run with Fuzz/run.
import CFuzzerDriver
import Foundation
import FuzzSupport
import SQLiteToolkit

let tableNames = ["imported", "my \"table\" name", "x'); DROP TABLE t; --", "ünï"]

/// libFuzzer's entry point: runs one input; always returns 0 (a failure stops the process).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCSVImport(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    let selector = input.byte()
    let bytes = input.take(size)
    let table = tableNames[Int(selector % 4)]
    let tableExists = selector & 4 != 0
    let records: [(line: Int, fields: [String])]
    do {
        records = try CSVReader.records(in: bytes)
    } catch is CSVReader.Failure {
        return 0
    } catch {
        fatalError("the CSV reader threw \(type(of: error))")
    }
    for (previous, next) in zip(records, records.dropFirst()) where next.line <= previous.line {
        fatalError("record lines out of order: \(previous.line) then \(next.line)")
    }
    do {
        let db = try fuzzDatabase()
        if tableExists { try db.execute("CREATE TABLE \(try Database.quoteIdentifier(table)) (a TEXT, b TEXT)") }
        let before = try db.queryValue("SELECT count(*) FROM sqlite_schema", as: Int.self)
        do {
            try CSVImport.insert(records, into: table, in: db)
        } catch is CSVImport.FieldCountMismatch, is DatabaseError {
            // All or nothing: no new table, no row.
            let after = try db.queryValue("SELECT count(*) FROM sqlite_schema", as: Int.self)
            guard after == before else { fatalError("a failed import left a table behind") }
            if tableExists {
                let rows = try db.queryValue(
                    "SELECT count(*) FROM \(try Database.quoteIdentifier(table))", as: Int.self)
                guard rows == 0 else { fatalError("a failed import left \(rows ?? -1) rows behind") }
            }
            db.close()
            return 0
        }
        if !tableExists, let header = records.first {
            // Every field back exactly, in order, as text of the file's very bytes (UTF-8 or not).
            let columns = try CSVImport.columnNames(for: header.fields).map(Database.quoteIdentifier)
            let stored = try db.query(
                "SELECT \(columns.joined(separator: ", ")) FROM \(try Database.quoteIdentifier(table)) ORDER BY rowid"
            ).map { row in
                try (0..<row.count).map { index in
                    guard row.datatype(at: index) == .text else { fatalError("an imported field is not text") }
                    return try row.withUnsafeBytes(at: index) { Array($0) }
                }
            }
            let expected = records.dropFirst().map { $0.fields.map(RawText.bytes(of:)) }
            guard stored == expected else { fatalError("the imported rows differ from the records read") }
        }
        db.close()
    } catch is DatabaseError {
    } catch {
        fatalError("\(type(of: error)) is not DatabaseError")
    }
    return 0
}

/// The program's entry: SwiftPM links `main` as `FuzzCSVImport_main`; it hands the command line to libFuzzer.
@_cdecl("FuzzCSVImport_main")
public func fuzzCSVImportMain(_ count: CInt, _ arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = count
    var arguments = arguments
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzCSVImport(data, size)
    }
}
