extension DatabasePool {
    /// Runs a WAL checkpoint on the writer: `.passive` copies what it can without waiting; `.full` waits for the
    /// writer lock and for readers of older snapshots; `.restart` also waits until the next writer can restart the
    /// WAL from its beginning; `.truncate` also truncates the WAL file to zero bytes. Waiting follows the busy mode.
    ///
    /// - Returns: the number of frames in the WAL, and how many of them are now in the database file.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/wal_checkpoint_v2.html>
    @discardableResult
    public func checkpoint(_ mode: CheckpointMode = .passive) throws -> (walFrames: Int, checkpointedFrames: Int) {
        try writeWithoutTransaction { db in
            let connection = try db.connection()
            let (code, walFrames, checkpointed) = connection.checkpoint(schema: nil, mode: mode)
            guard code == .ok else { throw db.error(code, sql: nil) }
            return (Int(walFrames), Int(checkpointed))
        }
    }
}
