import Foundation
import SQLiteToolkit

extension Shell {
    /// What `.import` was asked to do.
    struct ImportRequest {
        var file: String
        var table: String
        /// `--schema`; without it the table is found as SQL finds it (TEMP, main, attached).
        var schema: String?
        var skip = 0
        /// `--csv` or `--ascii`; `nil` to read with the separators of the output mode, as sqlite3 does.
        var format: CSVReader.Format?
    }

    static let importUsage =
        "usage: .import [--csv|--ascii] [--skip N] [--schema S] FILE TABLE (FILE may be |COMMAND)"

    /// Reads `.import`'s arguments as the sqlite3 shell does (options anywhere, one or two dashes); an unknown
    /// option or an extra argument is an error, never ignored.
    static func importRequest(_ arguments: [String]) throws -> ImportRequest {
        var file: String?
        var table: String?
        var request = ImportRequest(file: "", table: "")
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("-") else {
                if file == nil {
                    file = argument
                } else if table == nil {
                    table = argument
                } else {
                    throw Failure(".import: extra argument \"\(argument)\"; \(importUsage)")
                }
                continue
            }
            let option = argument.hasPrefix("--") ? String(argument.dropFirst()) : argument
            switch option {
            case "-csv": request.format = .csv
            case "-ascii": request.format = .ascii
            case "-skip", "-schema":
                guard index < arguments.count else { throw Failure(".import: \(argument) needs a value") }
                let value = arguments[index]
                index += 1
                if option == "-schema" {
                    request.schema = value
                } else {
                    guard let count = Int(value), count >= 0 else {
                        throw Failure(".import: \(argument) takes a number of rows, not \"\(value)\"")
                    }
                    request.skip = count
                }
            default:
                throw Failure(".import: unknown option \(argument); \(importUsage)")
            }
        }
        guard let file, let table else { throw Failure(importUsage) }
        request.file = file
        request.table = table
        return request
    }

    /// The separators `.import` reads with when neither `--csv` nor `--ascii` is given: those of the output mode,
    /// one byte each, as in the sqlite3 shell. CSV mode's row separator CRLF reads as a line feed, and stays one
    /// for the output after, as sqlite3 3.40 changes its setting to read with it.
    private func formatOfOutputMode() throws -> CSVReader.Format {
        // A Latin-1 separator is its one byte (see RawText).
        let column = RawText.bytes(of: settings.columnSeparator)
        guard column.count == 1 else {
            throw Failure(".import: the column separator must be one byte (see .separator), or give --csv or --ascii")
        }
        if settings.mode == .csv && settings.rowSeparator == "\r\n" { settings.rowSeparator = "\n" }
        let row = RawText.bytes(of: settings.rowSeparator)
        guard row.count == 1 else {
            throw Failure(".import: the row separator must be one byte (see .separator), or give --csv or --ascii")
        }
        return CSVReader.Format(
            columnSeparator: column[0], rowSeparator: row[0], readsQuotes: settings.mode != .ascii)
    }

    /// `.import`: reads FILE (or the output of `|COMMAND`) and writes its records into TABLE (see
    /// ``CSVImport/insert(_:into:schema:in:progress:)``), all or nothing.
    func importFile(_ arguments: [String]) throws {
        let request = try Self.importRequest(arguments)
        let format = try request.format ?? formatOfOutputMode()
        let path = request.file
        let bytes =
            path.hasPrefix("|") ? try Self.output(ofCommand: String(path.dropFirst())) : try Self.contents(ofFile: path)
        var records: [(line: Int, fields: [String])]
        do {
            records = try CSVReader.records(in: bytes, format: format)
        } catch let failure as CSVReader.Failure {
            throw Failure("\(path): \(failure)")
        }
        records.removeFirst(min(request.skip, records.count))
        guard !records.isEmpty else {
            // Nothing to add to an existing table is a success, as in sqlite3 (a header-only file after --skip 1);
            // without a table there is no header to make one from.
            if try CSVImport.existingTable(request.table, schema: request.schema, in: database) != nil { return }
            throw Failure("\(path) has no rows to import")
        }
        let progress = ProgressBar("import", enabled: isErrorTerminal)
        defer { progress.finish() }
        do {
            let renames = try CSVImport.insert(records, into: request.table, schema: request.schema, in: database) {
                progress.update(done: $0, total: $1)
            }
            if !renames.isEmpty {
                // On standard error, as sqlite3 writes it: the columns are not the header's names.
                let list = renames.map { "\"\($0.from)\" to \"\($0.to)\"" }.joined(separator: ",\n")
                writeError("Columns renamed during .import \(path) due to duplicates:\n\(list)\n")
            }
        } catch let mismatch as CSVImport.FieldCountMismatch {
            throw Failure(
                "\(path), line \(mismatch.line): \(mismatch.fields) fields, but the table has "
                    + "\(mismatch.headerFields) columns; nothing was imported")
        }
    }

    /// The standard output of `command`, run by the system's shell; a command that fails is an error.
    static func output(ofCommand command: String) throws -> [UInt8] {
        flushOutput()
        guard let pipe = RawText.withCString(command, { popen($0, "r") }) else {
            throw Failure("cannot start \(command)")
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = fread(&buffer, 1, buffer.count, pipe)
            if count <= 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        let status = pclose(pipe)
        guard status == 0 else { throw Failure("\(command) failed (exit status \(status >> 8))") }
        return bytes
    }
}
