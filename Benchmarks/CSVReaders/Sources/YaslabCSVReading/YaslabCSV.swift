// In a module of its own: here CSVReader is yaslab's, beside the executable's CSVReader (sqltk's).
import CSV
import Foundation

/// The records yaslab/CSV.swift reads from `text`, after its header.
public func yaslabRecords(in text: String) throws -> [[String]] {
    let reader = try CSVReader(string: text, hasHeaderRow: true)
    var records: [[String]] = []
    while let row = reader.next() { records.append(row) }
    return records
}

/// How many records yaslab/CSV.swift streams from the file at `path`, after its header.
public func yaslabCount(path: String) throws -> Int {
    guard let stream = InputStream(fileAtPath: path) else { return -1 }
    let reader = try CSVReader(stream: stream, hasHeaderRow: true)
    var count = 0
    while reader.next() != nil { count += 1 }
    return count
}
