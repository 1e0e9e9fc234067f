import Foundation
import YaslabCSVReading

// Each reader: first, whether it reads back the fields a CSV writer quotes, byte for byte; then the time it takes
// to read every record of the file given.
let texts = ["c\r\nd", "cr\ronly", "lf\nonly", "say \"hi\"", "a,b", "  lead", "", "emoji 😀👍🏽🇫🇷", "e\u{301}", "end\r"]
let record = texts.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: ",")
let sample = texts.indices.map { "h\($0)" }.joined(separator: ",") + "\r\n" + record + "\r\n"

func isExact(_ fields: [String]?) -> Bool {
    fields.map { $0.map { Array($0.utf8) } == texts.map { Array($0.utf8) } } ?? false
}

func measure(_ name: String, _ body: () throws -> Int) rethrows {
    let start = Date()
    let count = try body()
    print(name + ":", String(format: "%.2f s,", Date().timeIntervalSince(start)), count, "records")
}

guard CommandLine.arguments.count == 2, let data = FileManager.default.contents(atPath: CommandLine.arguments[1])
else {
    print("usage: csv-readers FILE.csv")
    exit(64)
}
print(
    "exact round trip: sqltk", isExact(try CSVReader.records(in: Array(sample.utf8)).last?.fields),
    "| yaslab/CSV.swift", isExact(try yaslabRecords(in: sample).first),
    "| SwiftCSV", isExact(try swiftCSVRecords(in: sample).first))
try measure("sqltk CSVReader (bytes in memory)") { try CSVReader.records(in: Array(data)).count - 1 }
try measure("yaslab/CSV.swift 2.5.2 (stream)") { try yaslabCount(path: CommandLine.arguments[1]) }
try measure("SwiftCSV 0.10.0 (string in memory)") {
    try swiftCSVRecords(in: String(decoding: data, as: UTF8.self)).count
}
