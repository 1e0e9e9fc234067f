import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Replaces a file by a new version written beside it, in one step that an error, a crash or a power cut cannot
/// split: the file is the original, whole, or the replacement, whole; never neither. What the atomic key change
/// writes its re-keyed copy into.
///
/// ```swift
/// let replacement = AtomicFileReplacement(replacing: path)
/// try replacement.prepare(operation: "decrypt()")     // an empty file beside `path`, with its metadata
/// // ... write the new version into replacement.replacementPath, and close it ...
/// try replacement.commit(operation: "decrypt()")      // sync, rename: the commit point
/// try replacement.syncDirectory(operation: "decrypt()")
/// ```
///
/// - The replacement is created before anything is written into it, with the original's mode, its owner and group
///   (where this process may set them: a privileged process, or a group the process belongs to), its extended
///   attributes (on Linux the access-control lists and `user.*` attributes among them; on Apple platforms the
///   backup exclusion and every other attribute `listxattr` names), and on Apple platforms its data-protection
///   class. A `0600` file stays `0600`. A file with more than one hard link is refused
///   (``DatabaseError/Reason/keyChangeOfHardLinkedFile``): the rename replaces one name only, and the others would
///   keep the old content.
/// - ``commit(operation:)`` syncs the replacement (`F_FULLFSYNC` on Apple platforms, which `fsync` is not there,
///   falling back to `fsync` where the file system refuses it), then renames it over the original (`rename(2)`,
///   atomic on the same file system). The rename is the commit point: before it, a failure leaves the original;
///   from it on, the replacement is the file.
/// - ``syncDirectory(operation:)`` then makes the rename itself durable.
/// - Windows is refused with ``DatabaseError/Reason/atomicReplacementUnavailable`` until a Windows machine has run
///   a replacement there (`MoveFileExW` with `MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH`, and
///   `FlushFileBuffers`): the C library's `rename` there refuses an existing destination.
struct AtomicFileReplacement {
    /// The file replaced.
    let path: String
    /// The new version, beside the original so the rename stays on one file system.
    let replacementPath: String

    /// A step of the replacement that the tests make fail. These calls bypass SQLite's VFS, so the fault VFS cannot
    /// reach them; without this, the failures after the commit point (``syncDirectory(operation:)``) could not be
    /// produced at all.
    enum Step: Sendable {
        case syncReplacement, rename, syncDirectory
    }

    /// The step that fails in this task, for the tests; `nil` (always, outside them) fails none.
    @TaskLocal static var failingStep: Step?

    /// Throws the error `step` would throw, when a test asked for it to fail.
    private static func failIfAsked(_ step: Step, operation: String, code: ResultCode) throws {
        guard failingStep == step else { return }
        throw DatabaseError(extendedCode: code, message: "\(operation): injected failure of \(step)")
    }

    /// A replacement of the file at `path`, written into `path` + `suffix`.
    init(replacing path: String, suffix: String = "-sqltk-rekey") {
        self.path = path
        self.replacementPath = path + suffix
    }

    /// Removes a replacement an interrupted run left (never the file: the rename is the commit), then creates the
    /// empty replacement with the original's metadata.
    func prepare(operation: String) throws {
        discard()
        try PlatformFileReplacement.createFile(
            atPath: replacementPath, withMetadataOf: path, operation: "\(operation) failed")
    }

    /// Makes the replacement durable and renames it over the original: the commit point. A throw means the rename
    /// did not happen and the original is unchanged; the caller then ``discard()``s the replacement.
    func commit(operation: String) throws {
        try Self.failIfAsked(
            .syncReplacement, operation: "\(operation) failed: syncing the new file", code: .ioerrFsync)
        try PlatformFileReplacement.fullSync(
            atPath: replacementPath, operation: "\(operation) failed: syncing the new file")
        try Self.failIfAsked(.rename, operation: "\(operation) failed: renaming the new file", code: .ioerr)
        try PlatformFileReplacement.rename(
            replacementPath, to: path, operation: "\(operation) failed: renaming the new file over the original")
    }

    /// Syncs the directory after ``commit(operation:)``, so the rename survives a power cut. A throw here comes
    /// after the commit point: the replacement is the file, but a power cut may still bring back the original.
    func syncDirectory(operation: String) throws {
        try Self.failIfAsked(
            .syncDirectory, operation: "\(operation): syncing the database's directory failed", code: .ioerrFsync)
        try PlatformFileReplacement.fullSync(
            atPath: Self.directory(of: path), operation: "\(operation): syncing the database's directory failed")
    }

    /// Removes the replacement, if any.
    func discard() {
        // A file only: a directory of that name, which this replacement never made, stays with what it holds (the
        // replacement's exclusive create then fails, before anything changed).
        PlatformFileReplacement.removeFile(atPath: replacementPath)
    }

    /// The folder holding the file at `path`: what is before its last separator, `/` for a file at the root, `.`
    /// for a bare name.
    static func directory(of path: String) -> String {
        #if os(Windows)
            let separator = path.lastIndex { $0 == "/" || $0 == "\\" }
        #else
            let separator = path.lastIndex(of: "/")
        #endif
        guard let separator else { return "." }
        return separator == path.startIndex ? "/" : String(path[..<separator])
    }
}
