extension DatabaseQueue {
    /// How the queue learns of commits made by other connections and processes, while something observes it:
    /// ``ExternalChangeDetection/fileSystemEvents`` unless set by ``setExternalChangeDetection(_:)``.
    public var externalChangeDetection: ExternalChangeDetection { serialized.externalChanges.detection }

    /// Sets how the queue learns of commits made by other connections and processes; it applies at once, to an
    /// observation running now too, and after a ``reopen()``.
    ///
    /// ```swift
    /// try queue.setExternalChangeDetection(.polling(interval: .milliseconds(250)))
    /// ```
    ///
    /// - Throws: ``DatabaseError/Reason/invalidExternalChangeDetection(_:)`` for a polling interval that is not
    ///   positive, or `.never`.
    public func setExternalChangeDetection(_ detection: ExternalChangeDetection) throws {
        try serialized.externalChanges.setDetection(detection)
    }
}
