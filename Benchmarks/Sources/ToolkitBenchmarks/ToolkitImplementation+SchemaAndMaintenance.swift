import BenchmarkCore
import SQLiteToolkit

// The schema-and-maintenance workloads through SQLiteToolkit's public API: `Database.openBlob` and
// `Blob.read(into:at:)` into one reused 64 KiB buffer; `Database.backup(to:pagesPerStep:)`.

extension ToolkitImplementation {
    func prepareSchemaAndMaintenance(_ workload: Workload, size: WorkloadSize, db: Database) throws -> PreparedRun {
        switch workload {
        case .blobReadChunks:
            let chunkCount = workload.units(size)
            let chunkSize = BenchmarkData.blobChunkSize
            try db.execute(BenchmarkData.createBlobTable)
            try db.execute("INSERT INTO blob (id, content) VALUES (1, zeroblob(?))", chunkCount * chunkSize)
            let writer = try db.openBlob(table: "blob", column: "content", row: 1, writable: true)
            for chunk in 0..<chunkCount { try writer.write(BenchmarkData.blobChunk(chunk), at: chunk * chunkSize) }
            writer.close()
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
            return PreparedRun(
                body: {
                    let blob = try db.openBlob(table: "blob", column: "content", row: 1)
                    defer { blob.close() }
                    var sum: Int64 = 0
                    for chunk in 0..<chunkCount {
                        try blob.read(into: buffer, at: chunk * chunkSize)
                        sum &+= BenchmarkData.blobChunkChecksum(
                            chunk: chunk, first: buffer[0], last: buffer[chunkSize - 1])
                    }
                    return sum
                },
                close: {
                    buffer.deallocate()
                    db.close()
                }
            )
        case .backupRows:
            try populateIntegers(db, rows: size.rows)
            let destination = try Database()
            return PreparedRun(
                body: {
                    try db.backup(to: destination, pagesPerStep: Int(BenchmarkData.backupPagesPerStep))
                    return 0
                },
                verify: { _ in try destination.queryValue(BenchmarkData.checksumIntegers, as: Int64.self) ?? 0 },
                close: {
                    destination.close()
                    db.close()
                }
            )
        default:
            throw BenchmarkError("\(workload.rawValue) is not a schema-and-maintenance workload")
        }
    }
}
