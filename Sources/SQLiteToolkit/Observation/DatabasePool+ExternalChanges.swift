extension DatabasePool {
    /// How the pool's writer learns of commits made by other connections and processes, while something observes
    /// the pool: ``ExternalChangeDetection/fileSystemEvents`` unless set by ``setExternalChangeDetection(_:)``.
    ///
    /// Only the writer writes, so a change of its `PRAGMA data_version` is a commit of another connection or
    /// process; its readers are never watched.
    public var externalChangeDetection: ExternalChangeDetection { writer.externalChanges.detection }

    /// Sets how the pool's writer learns of commits made by other connections and processes; it applies at once,
    /// to an observation running now too, and after a ``reopen()``.
    ///
    /// - Throws: ``DatabaseError/Reason/invalidExternalChangeDetection(_:)`` for a polling interval that is not
    ///   positive, or `.never`.
    public func setExternalChangeDetection(_ detection: ExternalChangeDetection) throws {
        try writer.externalChanges.setDetection(detection)
    }
}
