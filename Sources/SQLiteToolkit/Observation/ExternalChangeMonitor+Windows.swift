#if os(Windows)
    import Foundation
    import WinSDK

    extension ExternalChangeMonitor {
        /// `ReadDirectoryChangesW` on the database's folder, read on a thread of its own (overlapped, so that a stop
        /// ends the wait at once), keeping the changes of the file, its `-wal` and its `-journal`.
        static func directoryChanges(path: String, _ onChange: @escaping @Sendable () -> Void)
            -> ExternalChangeMonitor?
        {
            let (folder, names) = watchedNames(path: path)
            guard let reader = WindowsDirectoryReader(folder: folder, names: names, onChange: onChange) else {
                return nil
            }
            let thread = Thread { reader.run() }
            thread.name = "SQLiteToolkit.ExternalChangeMonitor"
            thread.start()
            return ExternalChangeMonitor(kind: .fileSystemEvents) { reader.requestStop() }
        }
    }

    /// The folder's handle, the events of its reads and of a stop, and its buffer: released when both the monitor
    /// and the reading thread let go of it.
    final class WindowsDirectoryReader: @unchecked Sendable {
        // @unchecked Sendable: the buffer and the overlapped structure are used by the reading thread only;
        // `stopEvent` is signalled from any thread (SetEvent is thread-safe) and closed in deinit, after both.
        private let directory: HANDLE
        private let ioEvent: HANDLE
        private let stopEvent: HANDLE
        private let names: [String]
        private let onChange: @Sendable () -> Void
        private static let bufferSize = 64 * 1024
        private let buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferSize, alignment: 8)
        private let overlapped = UnsafeMutablePointer<OVERLAPPED>.allocate(capacity: 1)

        init?(folder: String, names: [String], onChange: @escaping @Sendable () -> Void) {
            let directory = folder.withCString(encodedAs: UTF16.self) {
                CreateFileW(
                    $0, DWORD(FILE_LIST_DIRECTORY), DWORD(FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE),
                    nil, DWORD(OPEN_EXISTING), DWORD(FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OVERLAPPED), nil)
            }
            guard let directory, directory != INVALID_HANDLE_VALUE else {
                buffer.deallocate()
                overlapped.deallocate()
                return nil
            }
            guard let ioEvent = CreateEventW(nil, true, false, nil) else {
                CloseHandle(directory)
                buffer.deallocate()
                overlapped.deallocate()
                return nil
            }
            guard let stopEvent = CreateEventW(nil, true, false, nil) else {
                CloseHandle(ioEvent)
                CloseHandle(directory)
                buffer.deallocate()
                overlapped.deallocate()
                return nil
            }
            self.directory = directory
            self.ioEvent = ioEvent
            self.stopEvent = stopEvent
            self.names = names.map { $0.lowercased() }
            self.onChange = onChange
        }

        deinit {
            CloseHandle(stopEvent)
            CloseHandle(ioEvent)
            CloseHandle(directory)
            buffer.deallocate()
            overlapped.deallocate()
        }

        func requestStop() {
            SetEvent(stopEvent)
        }

        /// Reads changes until a stop is requested or a read fails.
        func run() {
            let filter = DWORD(FILE_NOTIFY_CHANGE_LAST_WRITE | FILE_NOTIFY_CHANGE_SIZE | FILE_NOTIFY_CHANGE_FILE_NAME)
            while true {
                overlapped.initialize(to: OVERLAPPED())
                overlapped.pointee.hEvent = ioEvent
                ResetEvent(ioEvent)
                guard
                    ReadDirectoryChangesW(
                        directory, buffer, DWORD(Self.bufferSize), false, filter, nil, overlapped, nil)
                else { return }
                var handles: [HANDLE?] = [ioEvent, stopEvent]
                let woken = WaitForMultipleObjects(2, &handles, false, INFINITE)
                var transferred: DWORD = 0
                guard woken == WAIT_OBJECT_0 else {
                    // Stopped (or the wait failed): the read is cancelled and waited for, so that it no longer
                    // writes the buffer.
                    CancelIoEx(directory, overlapped)
                    _ = GetOverlappedResult(directory, overlapped, &transferred, true)
                    return
                }
                guard GetOverlappedResult(directory, overlapped, &transferred, false) else { return }
                // No bytes: the changes did not fit in the buffer, and any of them may be a commit.
                if transferred == 0 || namesWatchedFile(byteCount: Int(transferred)) { onChange() }
            }
        }

        /// Whether a FILE_NOTIFY_INFORMATION record in the buffer names a watched file (compared without regard to
        /// case, as Windows compares names).
        private func namesWatchedFile(byteCount: Int) -> Bool {
            var offset = 0
            // NextEntryOffset, Action and FileNameLength (bytes), then the name in UTF-16.
            while offset + 12 <= byteCount {
                let next = Int(buffer.load(fromByteOffset: offset, as: UInt32.self))
                let length = Int(buffer.load(fromByteOffset: offset + 8, as: UInt32.self))
                guard offset + 12 + length <= byteCount else { return true }
                let units = UnsafeBufferPointer(
                    start: (buffer + offset + 12).assumingMemoryBound(to: UInt16.self), count: length / 2)
                if names.contains(String(decoding: units, as: UTF16.self).lowercased()) { return true }
                guard next > 0 else { return false }
                offset += next
            }
            return false
        }
    }
#endif
