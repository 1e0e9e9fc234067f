#if os(Windows)
    import WinSDK
#elseif canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
    import SQLiteToolkitSystemShim
#elseif canImport(Musl)
    import Musl
    import SQLiteToolkitSystemShim
#elseif canImport(Android)
    import Android
    import SQLiteToolkitSystemShim
#endif

// The system calls of `AtomicFileReplacement`, beside the other platform code (Platform.swift) but in a file of
// their own: creating the replacement with the original's metadata, the full sync of a file and of its directory,
// and the rename. Linux, Android and musl take the extended-attribute calls from SQLiteToolkitSystemShim, whose
// header includes <sys/xattr.h> (their Swift modules leave it out); Darwin's take two more arguments (a position
// and options), and Darwin keeps a file's data-protection class apart, read and set with `fcntl`.

/// The file calls of an atomic file replacement. Each failure is a ``DatabaseError`` whose message starts with
/// `operation` and ends with the C library's reason.
enum PlatformFileReplacement {
    #if os(Windows)
        /// Windows is refused until a Windows machine has run the replacement: `rename` there refuses an existing
        /// destination, and the durable replacement (`MoveFileExW` with `MOVEFILE_REPLACE_EXISTING |
        /// MOVEFILE_WRITE_THROUGH`, `FlushFileBuffers`) is not written yet.
        static func unsupported(_ operation: String) -> DatabaseError {
            DatabaseError(
                extendedCode: .cantopen,
                message: "\(operation): replacing a database file atomically is not available on Windows yet",
                reason: .atomicReplacementUnavailable)
        }

        static func createFile(atPath path: String, withMetadataOf original: String, operation: String) throws {
            throw unsupported(operation)
        }

        static func fullSync(atPath path: String, operation: String) throws {
            throw unsupported(operation)
        }

        static func rename(_ source: String, to destination: String, operation: String) throws {
            throw unsupported(operation)
        }

        /// Nothing to remove: no replacement is ever created on Windows.
        static func removeFile(atPath path: String) {}
    #else
        /// Removes the file `path` if it is one (`unlink(2)`): never a directory, nor what a directory holds.
        static func removeFile(atPath path: String) {
            _ = unlink(path)
        }

        /// Creates the empty file `path`, which must not exist, with the mode, owner and group (where this process
        /// may set them) and the extended attributes of the file `original`, and on Apple platforms its
        /// data-protection class: the replacement starts with the original's metadata, so the data written into
        /// it is never readable by more than the original's was.
        ///
        /// The original is read by its path, never through a descriptor of its own: closing any descriptor of a
        /// file releases every POSIX lock the process holds on it, the exclusive lock the key change took on the
        /// database among them, and another process could then commit into the file while it is copied.
        static func createFile(atPath path: String, withMetadataOf original: String, operation: String) throws {
            var status = stat()
            guard stat(original, &status) == 0 else { throw failure(operation, "cannot read the mode of \(original)") }
            // The rename gives `original`'s name a new file; its other names would keep the old content (a plain
            // copy after an encryption, the old key after a change). Refused before anything is written.
            if status.st_nlink > 1 {
                throw DatabaseError(
                    extendedCode: .cantopen,
                    message: "\(operation): \(original) has \(status.st_nlink) hard links, and replacing it would "
                        + "leave the old content under its other names; remove the other links first. Nothing changed",
                    reason: .keyChangeOfHardLinkedFile)
            }
            // Owner-only until the original's mode is applied, whatever the umask.
            let created = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(0o600))
            guard created >= 0 else { throw failure(operation, "cannot create \(path)") }
            defer { _ = closeDescriptor(created) }
            // The owner first: changing it may clear the set-user-ID bits and some attributes (a file capability).
            // Compared with the new file's own (its group may be the directory's, as on Apple platforms).
            var createdStatus = stat()
            guard fstat(created, &createdStatus) == 0 else {
                throw failure(operation, "cannot read the owner of \(path)")
            }
            if status.st_uid != createdStatus.st_uid || status.st_gid != createdStatus.st_gid {
                // Only a privileged process may give a file away; any process may set a group it belongs to.
                // Neither permitted, the replacement is this process's, like any file it creates.
                if fchown(created, status.st_uid, status.st_gid) != 0 {
                    _ = fchown(created, uid_t.max, status.st_gid)
                }
            }
            try copyExtendedAttributes(from: original, to: created, operation: operation)
            #if canImport(Darwin)
                // The class is read through a descriptor (fcntl), whose close releases the process's locks on the
                // original: the key change creates the replacement before it locks the database.
                let source = open(original, O_RDONLY | O_CLOEXEC)
                guard source >= 0 else { throw failure(operation, "cannot open \(original)") }
                defer { _ = closeDescriptor(source) }
                // A volume without data protection answers -1: the original has no class to keep.
                let protectionClass = fcntl(source, F_GETPROTECTIONCLASS)
                if protectionClass >= 0, fcntl(created, F_SETPROTECTIONCLASS, protectionClass) != 0 {
                    throw failure(operation, "cannot give \(path) the data-protection class \(protectionClass)")
                }
            #endif
            // The mode last: an access-control list set above (an attribute on Linux) changes the group bits.
            guard fchmod(created, status.st_mode & 0o7777) == 0 else {
                throw failure(operation, "cannot set the mode of \(path)")
            }
        }

        /// Makes the file or directory at `path` durable: `F_FULLFSYNC` on Apple platforms, where `fsync` leaves the
        /// data in the drive's cache (falling back to `fsync` where the file system refuses it), `fsync` elsewhere.
        static func fullSync(atPath path: String, operation: String) throws {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw failure(operation, "cannot open \(path)", code: .ioerrFsync) }
            defer { _ = closeDescriptor(descriptor) }
            #if canImport(Darwin)
                if fcntl(descriptor, F_FULLFSYNC) == 0 { return }
            #endif
            guard fsync(descriptor) == 0 else { throw failure(operation, "cannot sync \(path)", code: .ioerrFsync) }
        }

        /// Renames `source` to `destination`, replacing it in one step (`rename(2)`).
        static func rename(_ source: String, to destination: String, operation: String) throws {
            guard renameFile(source, destination) == 0 else {
                throw failure(operation, "cannot rename \(source) to \(destination)")
            }
        }

        /// Copies every extended attribute `listxattr` names on `source` to `destination`. An attribute the
        /// destination refuses is an error, unless the destination already holds the same value (a security
        /// label the system gave the new file).
        private static func copyExtendedAttributes(from source: String, to destination: Int32, operation: String) throws
        {
            let names = try attributeNames(of: .path(source), operation: operation)
            for name in names {
                guard let value = try attributeValue(name, of: .path(source), operation: operation) else { continue }
                if setAttribute(name, value, on: destination) == 0 { continue }
                let savedErrno = errno
                if (try? attributeValue(name, of: .descriptor(destination), operation: operation)) == value {
                    continue
                }
                errno = savedErrno
                throw DatabaseError(
                    extendedCode: .ioerr,
                    message: "\(operation): cannot copy the extended attribute \(name) to the new file: "
                        + PlatformFiles.lastErrorDescription(),
                    reason: .fileMetadataNotCopied)
            }
        }

        /// A file whose extended attributes are read: the original by its path (see ``createFile(atPath:withMetadataOf:operation:)``),
        /// the replacement through its descriptor.
        private enum AttributeSource {
            case path(String)
            case descriptor(Int32)
        }

        /// The names of the extended attributes of the file; none where the file system has no attributes.
        private static func attributeNames(of descriptor: AttributeSource, operation: String) throws -> [String] {
            while true {
                let size = listAttributes(descriptor, nil, 0)
                if size < 0 {
                    if errno == ENOTSUP || errno == EOPNOTSUPP { return [] }
                    throw failure(operation, "cannot list the extended attributes of the database")
                }
                if size == 0 { return [] }
                var buffer = [CChar](repeating: 0, count: size)
                let read = listAttributes(descriptor, &buffer, size)
                // The list grew between the two calls: ask again.
                if read < 0 && errno == ERANGE { continue }
                guard read >= 0 else { throw failure(operation, "cannot list the extended attributes of the database") }
                return buffer.prefix(read).split(separator: 0).map { name in
                    String(decoding: name.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                }
            }
        }

        /// The value of one extended attribute of the file; `nil` when it disappeared since it was listed.
        private static func attributeValue(_ name: String, of descriptor: AttributeSource, operation: String) throws
            -> [UInt8]?
        {
            while true {
                let size = getAttribute(descriptor, name, nil, 0)
                if size < 0 && errno == noAttribute { return nil }
                guard size >= 0 else { throw failure(operation, "cannot read the extended attribute \(name)") }
                var value = [UInt8](repeating: 0, count: size)
                let read = value.withUnsafeMutableBytes { getAttribute(descriptor, name, $0.baseAddress, size) }
                if read < 0 && errno == ERANGE { continue }
                if read < 0 && errno == noAttribute { return nil }
                guard read >= 0 else { throw failure(operation, "cannot read the extended attribute \(name)") }
                return Array(value.prefix(read))
            }
        }

        #if canImport(Darwin)
            /// Darwin's "no such attribute".
            private static let noAttribute = ENOATTR

            private static func listAttributes(
                _ source: AttributeSource, _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int
            ) -> Int {
                switch source {
                case .path(let path): listxattr(path, buffer, size, 0)
                case .descriptor(let descriptor): flistxattr(descriptor, buffer, size, 0)
                }
            }

            private static func getAttribute(
                _ source: AttributeSource, _ name: String, _ value: UnsafeMutableRawPointer?, _ size: Int
            ) -> Int {
                switch source {
                case .path(let path): getxattr(path, name, value, size, 0, 0)
                case .descriptor(let descriptor): fgetxattr(descriptor, name, value, size, 0, 0)
                }
            }

            private static func setAttribute(_ name: String, _ value: [UInt8], on descriptor: Int32) -> Int32 {
                value.withUnsafeBytes { fsetxattr(descriptor, name, $0.baseAddress, value.count, 0, 0) }
            }
        #else
            /// Linux's "no such attribute".
            private static let noAttribute = ENODATA

            private static func listAttributes(
                _ source: AttributeSource, _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int
            ) -> Int {
                switch source {
                case .path(let path): listxattr(path, buffer, size)
                case .descriptor(let descriptor): flistxattr(descriptor, buffer, size)
                }
            }

            private static func getAttribute(
                _ source: AttributeSource, _ name: String, _ value: UnsafeMutableRawPointer?, _ size: Int
            ) -> Int {
                switch source {
                case .path(let path): getxattr(path, name, value, size)
                case .descriptor(let descriptor): fgetxattr(descriptor, name, value, size)
                }
            }

            private static func setAttribute(_ name: String, _ value: [UInt8], on descriptor: Int32) -> Int32 {
                value.withUnsafeBytes { fsetxattr(descriptor, name, $0.baseAddress, value.count, 0) }
            }
        #endif

        /// The error of a failed call, with `errno`'s description.
        private static func failure(_ operation: String, _ what: String, code: ResultCode = .ioerr) -> DatabaseError {
            DatabaseError(extendedCode: code, message: "\(operation): \(what): \(PlatformFiles.lastErrorDescription())")
        }
    #endif
}

#if !os(Windows)
    /// `rename(2)`, under a name of its own, so ``PlatformFileReplacement/rename(_:to:operation:)`` does not call
    /// itself.
    private func renameFile(_ source: String, _ destination: String) -> Int32 {
        rename(source, destination)
    }

    /// `close(2)`, under a name of its own beside the types that declare a `close()`.
    private func closeDescriptor(_ descriptor: Int32) -> Int32 {
        close(descriptor)
    }
#endif
