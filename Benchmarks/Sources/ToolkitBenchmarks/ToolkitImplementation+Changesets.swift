import BenchmarkCore
import Foundation
import SQLiteToolkit

// The changeset workloads through SQLiteToolkit's Session, Changeset and Database.apply.

extension ToolkitImplementation {
    func prepareChangesetWorkload(_ workload: Workload, size: WorkloadSize, db: Database) throws -> PreparedRun {
        let rows = size.rows
        let checksumIntegers = { (_: Int64) throws -> Int64 in
            try db.queryValue(BenchmarkData.checksumIntegers, as: Int64.self) ?? 0
        }
        try db.execute(BenchmarkData.createIntegers)
        if workload == .changesetCapture {
            let insert = try db.prepare(BenchmarkData.insertPositional)
            let session = try Session(database: db)
            try session.attach("t")
            return PreparedRun(
                body: { try insertIntegers(db, insert, rows: rows) },
                verify: { _ in
                    let recorded = try session.changeset().changes().count
                    guard recorded == rows else { throw BenchmarkError("the session recorded \(recorded) rows") }
                    return try checksumIntegers(0)
                },
                close: { db.close() }
            )
        }
        let changeset = try insertChangeset(rows: rows)
        let conflicting = try db.prepare("INSERT INTO t VALUES (?, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1)")
        try db.transaction { _ in
            for row in stride(from: 0, to: rows, by: BenchmarkData.changesetConflictInterval) {
                try conflicting.execute(Int64(row + 1))
            }
        }
        return PreparedRun(
            body: {
                try db.apply(changeset) { _ in .replace }
                return Int64(rows)
            },
            verify: checksumIntegers,
            close: { db.close() }
        )
    }

    /// The changeset of `rows` rows inserted as in insert-positional, recorded in a database of its own.
    private func insertChangeset(rows: Int) throws -> Changeset {
        let source = try Database()
        defer { source.close() }
        try source.execute(BenchmarkData.createIntegers)
        let session = try Session(database: source)
        try session.attach("t")
        _ = try insertIntegers(source, try source.prepare(BenchmarkData.insertPositional), rows: rows)
        return try session.changeset()
    }
}
