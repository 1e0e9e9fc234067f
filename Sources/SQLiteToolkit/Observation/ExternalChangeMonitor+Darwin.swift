#if canImport(Darwin)
    import Darwin
    // DispatchSource: Dispatch is its own module (Foundation only re-exports it).
    import Dispatch

    extension ExternalChangeMonitor {
        /// Dispatch's file-system object sources (kqueue) on the database's folder, whose entries change when the
        /// `-wal` or the `-journal` comes or goes, and on each of the three files that exists: a vnode source hears
        /// of writes to its own file only, and ends with it.
        static func dispatchFileSystemSources(path: String, _ onChange: @escaping @Sendable () -> Void)
            -> ExternalChangeMonitor?
        {
            let (folder, names) = watchedNames(path: path)
            let watcher = DarwinFileWatcher(folder: folder, files: names.map { folder + "/" + $0 }, onChange: onChange)
            guard watcher.start() else { return nil }
            return ExternalChangeMonitor(kind: .fileSystemEvents) { watcher.stop() }
        }
    }

    /// The sources of one monitor on Apple platforms.
    final class DarwinFileWatcher: @unchecked Sendable {
        // @unchecked Sendable: every variable is used on ExternalChangeMonitor.queue only (start() runs there
        // synchronously, stop() asynchronously, the handlers there).
        private let folder: String
        private let files: [String]
        private let onChange: @Sendable () -> Void
        private var folderSource: (any DispatchSourceFileSystemObject)?
        private var fileSources: [String: any DispatchSourceFileSystemObject] = [:]
        private var isStopped = false

        init(folder: String, files: [String], onChange: @escaping @Sendable () -> Void) {
            self.folder = folder
            self.files = files
            self.onChange = onChange
        }

        /// Watches the folder and the files that exist; `false` when the folder cannot be watched.
        func start() -> Bool {
            ExternalChangeMonitor.queue.sync {
                folderSource = Self.source(path: folder, mask: [.write, .delete, .rename]) { [weak self] in
                    self?.folderChanged()
                }
                guard folderSource != nil else { return false }
                watchFiles()
                return true
            }
        }

        /// Cancels every source; their cancellation handlers close the descriptors.
        func stop() {
            ExternalChangeMonitor.queue.async { [self] in
                isStopped = true
                folderSource?.cancel()
                folderSource = nil
                for source in fileSources.values { source.cancel() }
                fileSources.removeAll()
            }
        }

        private func folderChanged() {
            guard !isStopped else { return }
            watchFiles()
            onChange()
        }

        /// Watches each file that exists and is not watched yet (a `-wal` just made).
        private func watchFiles() {
            for file in files where fileSources[file] == nil {
                fileSources[file] = Self.source(path: file, mask: [.write, .extend, .delete, .rename, .revoke]) {
                    [weak self] in self?.fileChanged(file)
                }
            }
        }

        private func fileChanged(_ file: String) {
            guard !isStopped, let source = fileSources[file] else { return }
            if !source.data.isDisjoint(with: [.delete, .rename, .revoke]) {
                // The file went: its source ends; the folder's event watches the next one.
                source.cancel()
                fileSources[file] = nil
            }
            onChange()
        }

        /// A source on the file or folder at `path`, opened for events only; `nil` when it does not exist.
        private static func source(
            path: String, mask: DispatchSource.FileSystemEvent, handler: @escaping @Sendable () -> Void
        ) -> (any DispatchSourceFileSystemObject)? {
            let descriptor = open(path, O_EVTONLY)
            guard descriptor >= 0 else { return nil }
            let source = DispatchSource.makeFileSystemObjectSource(
                fileDescriptor: descriptor, eventMask: mask, queue: ExternalChangeMonitor.queue)
            source.setEventHandler(handler: handler)
            source.setCancelHandler { close(descriptor) }
            source.resume()
            return source
        }
    }
#endif
