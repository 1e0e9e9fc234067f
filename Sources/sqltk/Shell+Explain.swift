import SQLiteToolkit

extension Shell {
    /// The opcodes that end a loop back to its start: the instructions between are indented.
    private static let loopEnds: Set<String> = ["Next", "Prev", "VPrev", "VNext", "SorterNext"]
    /// The opcodes a `Goto` back to which closes a loop too.
    private static let loopStarts: Set<String> = ["Yield", "SeekLT", "SeekGT", "RowSetRead", "Rewind"]
    /// The widths of EXPLAIN's columns: addr, opcode, p1, p2, p3, p4, p5, comment.
    private static let programWidths = [4, 13, 4, 4, 4, 13, 2, 13]

    /// Writes the rows of an EXPLAIN statement as sqlite3 3.40 writes them whatever the output mode: a table with
    /// its header, the instructions inside each loop indented by two spaces.
    func printProgram(_ rows: Rows) throws {
        var program: [[String?]] = []
        while let row = try rows.next() {
            program.append(
                try (0..<row.count).map { row.datatype(at: $0) == .null ? nil : try Self.rawText(of: row, at: $0) })
        }
        guard !program.isEmpty else { return }
        let indents = Self.indents(of: program)
        let names = ["addr", "opcode", "p1", "p2", "p3", "p4", "p5", "comment"]
        func padded(_ text: String, _ width: Int) -> String {
            text + String(repeating: " ", count: max(0, width - text.unicodeScalars.count))
        }
        var output = zip(names, Self.programWidths).map { padded($0, $1) }.joined(separator: "  ") + "\n"
        output += Self.programWidths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
        for (index, instruction) in program.enumerated() {
            let cells = instruction.prefix(Self.programWidths.count).enumerated().map { column, value in
                let width = column == Self.programWidths.count - 1 ? 0 : Self.programWidths[column]
                let indent = column == 1 ? String(repeating: " ", count: indents[index]) : ""
                return indent + padded(value ?? settings.nullValue, width)
            }
            output += cells.joined(separator: "  ") + "\n"
        }
        writeOutput(output)
    }

    /// The indent of each instruction, as sqlite3 3.40 works it out: two spaces for each loop it is inside, a
    /// loop running from the target of a `Next` (or the like), or of a `Goto` back to a loop's start, to that
    /// instruction.
    private static func indents(of program: [[String?]]) -> [Int] {
        var indents = [Int](repeating: 0, count: program.count)
        var startsLoop = [Bool](repeating: false, count: program.count)
        func number(_ instruction: [String?], _ column: Int) -> Int {
            column < instruction.count ? instruction[column].flatMap { Int($0) } ?? 0 : 0
        }
        for (index, instruction) in program.enumerated() {
            let opcode = instruction.count > 1 ? instruction[1] ?? "" : ""
            let target = number(instruction, 3) + (index - number(instruction, 0))
            startsLoop[index] = loopStarts.contains(opcode)
            let closesLoop =
                loopEnds.contains(opcode) && target > 0
                || opcode == "Goto" && target >= 0 && target <= index
                    && (startsLoop[target] || number(instruction, 2) != 0)
            if closesLoop && target < index {
                for inner in target..<index { indents[inner] += 2 }
            }
        }
        return indents
    }
}
