import BenchmarkCore

// The raw C baseline of the schema-and-maintenance workloads: incremental BLOB reads and an online backup, written
// as a careful C programmer would (one 64 KiB buffer reused for every chunk; backup_step in a loop).

extension CBaselineWorkloads {
    @inlinable
    static func prepareSchemaAndMaintenance(
        _ workload: Workload, size: WorkloadSize, connection: CConnection<API>
    ) throws -> PreparedRun {
        switch workload {
        case .blobReadChunks:
            let chunkCount = workload.units(size)
            let chunkSize = BenchmarkData.blobChunkSize
            try connection.createBlob(chunkCount: chunkCount)
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunkSize, alignment: 16)
            return PreparedRun(
                body: {
                    var blob: OpaquePointer?
                    guard API.blobOpen(connection.handle, "main", "blob", "content", 1, 0, &blob) == API.ok else {
                        API.blobClose(blob)
                        throw connection.error("blob open")
                    }
                    defer { API.blobClose(blob) }
                    var sum: Int64 = 0
                    for chunk in 0..<chunkCount {
                        guard API.blobRead(blob, buffer, Int32(chunkSize), Int32(chunk * chunkSize)) == API.ok else {
                            throw connection.error("blob read")
                        }
                        sum &+= BenchmarkData.blobChunkChecksum(
                            chunk: chunk, first: buffer.load(as: UInt8.self),
                            last: buffer.load(fromByteOffset: chunkSize - 1, as: UInt8.self))
                    }
                    return sum
                },
                close: {
                    buffer.deallocate()
                    connection.close()
                }
            )
        case .backupRows:
            try connection.populateIntegers(rows: size.rows)
            let destination = try CConnection<API>(DatabaseLocation(storage: .memory, path: ":memory:"))
            return PreparedRun(
                body: {
                    guard let backup = API.backupInit(destination.handle, "main", connection.handle, "main") else {
                        throw destination.error("backup init")
                    }
                    var code = API.ok
                    while code == API.ok { code = API.backupStep(backup, BenchmarkData.backupPagesPerStep) }
                    let finish = API.backupFinish(backup)
                    guard code == API.done, finish == API.ok else { throw destination.error("backup step") }
                    return 0
                },
                verify: { _ in try destination.integer(BenchmarkData.checksumIntegers) },
                close: {
                    destination.close()
                    connection.close()
                }
            )
        default:
            throw BenchmarkError("\(workload.rawValue) is not a schema-and-maintenance workload")
        }
    }
}

extension CConnection {
    /// Creates the blob workload's table with one blob of `chunkCount` chunks, each written with its pattern.
    @inlinable
    func createBlob(chunkCount: Int) throws {
        let chunkSize = BenchmarkData.blobChunkSize
        try execute(BenchmarkData.createBlobTable)
        try execute("INSERT INTO blob (id, content) VALUES (1, zeroblob(\(chunkCount * chunkSize)))")
        var blob: OpaquePointer?
        guard API.blobOpen(handle, "main", "blob", "content", 1, 1, &blob) == API.ok else {
            API.blobClose(blob)
            throw error("blob open")
        }
        defer { API.blobClose(blob) }
        for chunk in 0..<chunkCount {
            let bytes = BenchmarkData.blobChunk(chunk)
            let code = bytes.withUnsafeBytes {
                API.blobWrite(blob, $0.baseAddress, Int32(chunkSize), Int32(chunk * chunkSize))
            }
            guard code == API.ok else { throw error("blob write") }
        }
    }
}
