import Foundation
import SwiftCSV

/// The records SwiftCSV reads from `text`, after its header.
func swiftCSVRecords(in text: String) throws -> [[String]] {
    try SwiftCSV.CSV<Enumerated>(string: text, delimiter: .comma, loadColumns: false).rows
}
