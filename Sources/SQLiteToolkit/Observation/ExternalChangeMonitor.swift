// DispatchQueue, DispatchSource: Dispatch is its own module (Foundation only re-exports it).
import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Says when a database may have changed: the file system's events for the database file, its `-wal` and its
/// `-journal`, or a timer. It never reads the database; ``ExternalChangeWatch`` looks when told.
///
/// Every monitor runs on one serial dispatch queue of the process (``queue``), whose handlers only schedule a look:
/// a monitor has no thread of its own (but on Windows, whose directory changes are read by a blocking call). A
/// stopped monitor has released its descriptor, or does when the dispatch source's cancellation runs, just after.
final class ExternalChangeMonitor: Sendable {
    /// What a monitor listens to.
    enum Kind: Sendable, Equatable {
        case fileSystemEvents
        case polling
    }

    /// The queue of every monitor's handlers.
    static let queue = DispatchQueue(label: "SQLiteToolkit.ExternalChangeMonitor")

    let kind: Kind
    /// The inotify descriptor on Linux, for tests that check it is closed once the monitor stopped.
    let fileDescriptor: Int32?
    /// Set once that descriptor is closed.
    private let descriptorClosed: LockedState<Bool>
    private let stopAction: @Sendable () -> Void

    init(
        kind: Kind, fileDescriptor: Int32? = nil, descriptorClosed: LockedState<Bool> = LockedState(false),
        stop: @escaping @Sendable () -> Void
    ) {
        self.kind = kind
        self.fileDescriptor = fileDescriptor
        self.descriptorClosed = descriptorClosed
        self.stopAction = stop
    }

    /// Whether ``fileDescriptor`` was closed (after the stop, when the source's cancellation ran), for tests.
    var hasClosedDescriptor: Bool { descriptorClosed.withLock { $0 } }

    /// Stops the events; never waits.
    func stop() {
        stopAction()
    }

    /// A timer that calls `onTick` every `interval` (validated by ``ExternalChangeDetection/validate()``).
    static func polling(interval: DispatchTimeInterval, _ onTick: @escaping @Sendable () -> Void)
        -> ExternalChangeMonitor
    {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(1))
        timer.setEventHandler(handler: onTick)
        timer.resume()
        let source = CancellableSource(timer)
        return ExternalChangeMonitor(kind: .polling) { source.cancel() }
    }

    /// `monitor` with a timer beside it that calls `onTick` every `interval`: the backstop of file-system events,
    /// for a commit that becomes visible long after its last event (a sync slower than the looks that follow the
    /// events). Stopping it stops both.
    static func backstopped(
        _ monitor: ExternalChangeMonitor, interval: DispatchTimeInterval, _ onTick: @escaping @Sendable () -> Void
    ) -> ExternalChangeMonitor {
        let timer = polling(interval: interval, onTick)
        return ExternalChangeMonitor(
            kind: monitor.kind, fileDescriptor: monitor.fileDescriptor, descriptorClosed: monitor.descriptorClosed
        ) {
            monitor.stop()
            timer.stop()
        }
    }

    /// The folder of the database file at `path` (absolute, as `sqlite3_db_filename` gives it) and the names in it
    /// whose changes may be a commit: the file, its `-wal` and its `-journal`.
    static func watchedNames(path: String) -> (folder: String, names: [String]) {
        let separators: Set<Character> = ["/", "\\"]
        guard let slash = path.lastIndex(where: { separators.contains($0) }) else { return (".", suffixed(path)) }
        let folder = slash == path.startIndex ? String(path[...slash]) : String(path[..<slash])
        return (folder, suffixed(String(path[path.index(after: slash)...])))
    }

    private static func suffixed(_ name: String) -> [String] {
        [name, name + "-wal", name + "-journal"]
    }

    /// A monitor of the file system's events for the database at `path`; `nil` where the platform gives none, or
    /// when they cannot be had (the caller polls instead).
    static func fileSystem(path: String, _ onChange: @escaping @Sendable () -> Void) -> ExternalChangeMonitor? {
        #if canImport(Glibc)
            return inotify(path: path, onChange)
        #elseif canImport(Darwin)
            return dispatchFileSystemSources(path: path, onChange)
        #elseif os(Windows)
            return directoryChanges(path: path, onChange)
        #else
            return nil
        #endif
    }

    #if canImport(Glibc)
        /// inotify on the database's folder, not on its files: the `-wal` and the `-journal` come and go, and a
        /// watch of a file ends with it. Events for other names in the folder are read and dropped.
        private static func inotify(path: String, _ onChange: @escaping @Sendable () -> Void)
            -> ExternalChangeMonitor?
        {
            let (folder, names) = watchedNames(path: path)
            let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard descriptor >= 0 else { return nil }
            // A commit writes the file (rollback journal) or the -wal, and deletes or truncates the -journal; a
            // file replaced by a rename is a change too.
            let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM)
            guard inotify_add_watch(descriptor, folder, mask) >= 0 else {
                close(descriptor)
                return nil
            }
            let matcher = InotifyEventMatcher(names: names)
            let readSource = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
            readSource.setEventHandler {
                if matcher.drain(descriptor) { onChange() }
            }
            // The descriptor is closed once the source no longer uses it.
            let closed = LockedState(false)
            readSource.setCancelHandler {
                close(descriptor)
                closed.withLock { $0 = true }
            }
            readSource.resume()
            let source = CancellableSource(readSource)
            return ExternalChangeMonitor(kind: .fileSystemEvents, fileDescriptor: descriptor, descriptorClosed: closed)
            {
                source.cancel()
            }
        }
    #endif
}

#if canImport(Glibc)
    /// Reads the waiting inotify events and says whether one names a watched file.
    struct InotifyEventMatcher: Sendable {
        let names: [[UInt8]]

        init(names: [String]) {
            self.names = names.map { Array($0.utf8) }
        }

        /// Reads until none is left (the descriptor does not block); `true` when an event names one of `names`,
        /// or the kernel dropped events (its queue overflowed).
        func drain(_ descriptor: Int32) -> Bool {
            var matched = false
            // Room for many events: each is 16 bytes and its name, padded.
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { return matched }
                if matches(buffer[..<count]) { matched = true }
            }
        }

        /// Whether one of the events in `bytes` (whole events, as `read` returns them) is for a watched name.
        func matches(_ bytes: ArraySlice<UInt8>) -> Bool {
            // struct inotify_event: int wd, uint32 mask, uint32 cookie, uint32 len, then len bytes of name,
            // NUL-padded.
            let headerSize = 16
            var offset = bytes.startIndex
            while bytes.endIndex - offset >= headerSize {
                let mask = Self.uint32(bytes, at: offset + 4)
                let length = Int(Self.uint32(bytes, at: offset + 12))
                let nameStart = offset + headerSize
                guard length <= bytes.endIndex - nameStart else { return true }
                if mask & UInt32(IN_Q_OVERFLOW) != 0 { return true }
                let name = bytes[nameStart..<(nameStart + length)].prefix { $0 != 0 }
                if names.contains(where: { $0.elementsEqual(name) }) { return true }
                offset = nameStart + length
            }
            return false
        }

        private static func uint32(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt32 {
            // Native byte order, as the kernel writes it.
            var value: UInt32 = 0
            withUnsafeMutableBytes(of: &value) { raw in
                for index in 0..<4 { raw[index] = bytes[offset + index] }
            }
            return value
        }
    }
#endif

/// A dispatch source, cancelled from any thread (`cancel()` is thread-safe): the one reference a monitor's stop
/// keeps.
final class CancellableSource: @unchecked Sendable {
    // @unchecked Sendable: the source is only cancelled, which Dispatch allows from any thread, once or more.
    private let source: any DispatchSourceProtocol

    init(_ source: any DispatchSourceProtocol) {
        self.source = source
    }

    func cancel() {
        source.cancel()
    }
}
