import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A read-only view of a database that Litestream replicates, read where the replica is (a folder, an S3 bucket)
/// without restoring it first, through Litestream's SQLite VFS extension.
///
/// ```swift
/// try LitestreamReplica.loadVFS(atPath: "/opt/litestream/litestream-vfs.so")  // once per process
/// let replica = try LitestreamReplica(replicaURL: "file:///var/backups/app-replica")
/// let count = try replica.read { db in try db.queryRequiredValue("SELECT count(*) FROM player", as: Int.self) }
/// ```
///
/// Each `read` runs in a deferred transaction, and so sees one state of the database that the primary
/// committed: Litestream's replica holds whole transactions (its LTX files), and the VFS moves its view forward
/// only between read transactions, when its background poll (every ``pollInterval``) has found new files. Reads
/// never see a state older than one they saw before. How far behind the primary they are is Litestream's
/// `sync-interval` plus its `monitor-interval` plus the poll interval; <doc:ReplicatingWithLitestream> gives the
/// measured figures.
///
/// - The replica is read-only: a statement that writes throws ``DatabaseError/Reason/writeOnReplica`` (with
///   `SQLITE_READONLY`), and the type has no `write`.
/// - Accesses run one after another on one connection, as on a ``DatabaseQueue``; open several replicas for reads
///   in parallel (each connection of the VFS polls and caches pages on its own).
/// - A database encrypted by the toolkit has no replica: Litestream cannot read it (see
///   <doc:ReplicatingWithLitestream>).
///
/// The VFS is Litestream's Go library, loaded into the process: it starts Go's runtime (its threads and signal
/// handlers) beside the application, once.
public final class LitestreamReplica: DatabaseReader, Sendable {
    private let queue: DatabaseQueue
    /// ``path``: the connection's URI with any password of the replica URL masked, for errors and display.
    private let maskedPath: String

    /// The replica's URL, as given: `file:///path/to/replica`, `s3://bucket/path`, and the other forms Litestream
    /// accepts.
    public let replicaURL: String

    /// How often the VFS looks for new transactions on the replica, in seconds; `nil` for its default (1 second).
    public let pollInterval: TimeInterval?

    /// The name of the VFS Litestream's extension registers.
    public static let vfsName = "litestream"

    /// The name of the extension's init function, which ``loadVFS(atPath:)`` calls.
    public static let entryPoint = "sqlite3_litestreamvfs_init"

    /// Loads Litestream's VFS extension (`litestream-vfs.so`, `litestream-vfs.dylib`) into the process, once: the
    /// VFS is then there for every replica, and its SQL functions (`litestream_txid()`, `litestream_lag()`,
    /// `litestream_time()`, `litestream_set_time()`) on each replica's connection. A second call with the same path
    /// does nothing.
    ///
    /// The extension's init function registers the VFS with SQLite for the whole process, and asks SQLite to run
    /// a function on every new connection (`sqlite3_auto_extension`) that adds its SQL functions. In release
    /// 0.5.17 that function fails on every connection that is not a replica's, and SQLite then refuses to open it
    /// ("automatic extension loading failed", observed with the `sqlite3` shell too): after a plain `.load`, no
    /// other database of the process opens. So the toolkit loads the library itself and gives its init function a
    /// copy of SQLite's routines whose `sqlite3_auto_extension` records the function instead of registering it,
    /// and runs it only on the connections of ``LitestreamReplica``. The library stays loaded until the process
    /// ends (Go's runtime cannot be unloaded), and loading it twice would register the VFS twice: the toolkit
    /// keeps the path it loaded, and ``Database/loadExtension(atPath:entryPoint:)`` (so
    /// ``Database/Configuration/extensions`` too) refuses that library.
    ///
    /// - Throws: ``DatabaseError`` with ``DatabaseError/Reason/extensionLoadFailed(path:)`` when the library cannot
    ///   be loaded, lacks ``entryPoint`` or its init function fails; ``DatabaseError/Reason/replicaVFSLoadedFromAnotherPath``
    ///   when the VFS was already loaded from another library.
    public static func loadVFS(atPath path: String) throws {
        try loadedVFS.withLock { loaded in
            if let loaded {
                guard loaded.path == path else {
                    throw DatabaseError.misuse(
                        "Litestream's VFS is already loaded from another library: a process loads it once",
                        reason: .replicaVFSLoadedFromAnotherPath)
                }
                return
            }
            let db = try Database()
            defer { db.close() }
            var failure: (code: ResultCode, message: String) = (.error, "")
            guard
                let library = CapturedExtensionLibrary(
                    path: path, entryPoint: entryPoint, on: try db.connection(), failure: &failure)
            else {
                var error = DatabaseError(
                    extendedCode: failure.code, message: failure.message, reason: .extensionLoadFailed(path: path))
                error.path = path
                throw error
            }
            loaded = (path, library)
        }
    }

    /// Whether ``loadVFS(atPath:)`` has loaded the VFS in this process.
    public static var isVFSLoaded: Bool { loadedVFS.withLock { $0 != nil } }

    /// Whether `path`, as ``Database/loadExtension(atPath:entryPoint:)`` takes it (with or without its suffix),
    /// names the library ``loadVFS(atPath:)`` loaded, symbolic links resolved.
    static func isVFSLibrary(_ path: String) -> Bool {
        guard let loaded = loadedVFS.withLock({ $0?.path }) else { return false }
        let target = URL(fileURLWithPath: loaded).resolvingSymlinksInPath().path
        return [path, path + ".so", path + ".dylib"].contains {
            URL(fileURLWithPath: $0).resolvingSymlinksInPath().path == target
        }
    }

    /// The library the VFS was loaded from, `nil` until it is.
    private static let loadedVFS = LockedState<(path: String, library: CapturedExtensionLibrary)?>(nil)

    /// Opens the replica at `replicaURL` through the VFS and reads its newest state once, so that a replica that
    /// cannot be read throws here.
    ///
    /// A `file:` replica that holds no transaction yet (Litestream has not shipped its first snapshot, or never
    /// will, as for an encrypted database) throws at once: the VFS itself would wait until a transaction appears.
    /// For other stores (S3 and the like) the open waits so, and the store's credentials come from Litestream's
    /// environment variables (`LITESTREAM_ACCESS_KEY_ID`, `LITESTREAM_SECRET_ACCESS_KEY`, or the AWS ones).
    ///
    /// - Parameters:
    ///   - replicaURL: the replica's URL, passed to the VFS as the URI parameter `replica_url`.
    ///   - pollInterval: how often the VFS looks for new transactions (from a millisecond to a day); `nil` for its
    ///     default, 1 second.
    ///   - configuration: the connection's options; it is opened read-only whatever
    ///     ``Database/Configuration/isReadOnly`` says, and a key or a ``Database/Configuration/vfs`` is refused.
    ///   - setUp: runs on the connection before its first use (functions, collations, pragmas).
    /// - Throws: ``DatabaseError/Reason/replicaVFSNotLoaded`` before ``loadVFS(atPath:)``;
    ///   ``DatabaseError/Reason/replicaHasNoTransaction`` for a `file:` replica with no transaction;
    ///   ``DatabaseError/Reason/invalidReplicaSetting(_:)`` for an empty URL, a `file:` URL whose path holds a
    ///   space or a question mark (the VFS never reads it), a poll interval under a millisecond or over a day, a
    ///   key or a VFS; the error of the open or of the first read otherwise.
    public init(
        replicaURL: String,
        pollInterval: TimeInterval? = nil,
        configuration: Database.Configuration = Database.Configuration(),
        setUp: (@Sendable (Database) throws -> Void)? = nil
    ) throws {
        guard let library = LitestreamReplica.loadedVFS.withLock({ $0?.library }) else {
            throw DatabaseError.misuse(
                "Litestream's VFS is not loaded: call LitestreamReplica.loadVFS(atPath:) first",
                reason: .replicaVFSNotLoaded)
        }
        guard !replicaURL.isEmpty else {
            throw DatabaseError.misuse("a replica needs a replica URL", reason: .invalidReplicaSetting("replicaURL"))
        }
        if let pollInterval, !(0.001...86_400).contains(pollInterval) {
            throw DatabaseError.misuse(
                "a replica's poll interval must be from a millisecond to a day (it is \(pollInterval) seconds)",
                reason: .invalidReplicaSetting("pollInterval"))
        }
        guard configuration.vfs == nil else {
            throw DatabaseError.misuse(
                "a replica is read through Litestream's VFS: the configuration cannot name another",
                reason: .invalidReplicaSetting("vfs"))
        }
        guard configuration.key == nil else {
            throw DatabaseError.misuse(
                "Litestream cannot replicate an encrypted database: a replica takes no key",
                reason: .invalidReplicaSetting("key"))
        }
        if let folder = LitestreamReplica.fileReplicaFolder(replicaURL),
            folder.contains(where: { $0 == " " || $0 == "?" })
        {
            // Observed with release 0.5.17: whether written as is or percent-encoded, the VFS never finds such a
            // folder's transactions, and its open waits forever.
            throw DatabaseError.misuse(
                "Litestream's VFS cannot read a file replica whose path holds a space or a question mark",
                reason: .invalidReplicaSetting("replicaURL"))
        }
        if let folder = LitestreamReplica.fileReplicaFolder(replicaURL),
            !LitestreamReplica.holdsTransaction(folder)
        {
            throw DatabaseError(
                extendedCode: .cantopen,
                message: "the replica holds no transaction (no LTX file under its ltx folder): Litestream has not "
                    + "shipped the database's first snapshot there",
                reason: .replicaHasNoTransaction)
        }
        var configuration = configuration
        configuration.isReadOnly = true
        configuration.additionalOpenFlags.insert(.uri)
        let poll = pollInterval.map { "&poll_interval=\(Int(($0 * 1000).rounded()))ms" } ?? ""
        let prefix = "file:replica.sqlite?vfs=\(LitestreamReplica.vfsName)&replica_url="
        let uri = prefix + Database.percentEncodedPath(replicaURL) + poll
        let maskedPath = prefix + Database.percentEncodedPath(LitestreamReplica.maskingPassword(replicaURL)) + poll
        self.replicaURL = replicaURL
        self.pollInterval = pollInterval
        self.maskedPath = maskedPath
        queue = try LitestreamReplica.mapping(uri, to: maskedPath) {
            try DatabaseQueue(path: uri, configuration: configuration) { db in
                // The extension's functions, which SQLite would have added at the open (see loadVFS(atPath:)).
                library.runAutoExtensions(on: try db.connection())
                try setUp?(db)
                // The VFS refuses writes too; this makes SQLite refuse them before they reach it.
                try db.execute("PRAGMA query_only = ON")
            }
        }
        // The first read fetches the replica's newest state: an unreadable replica throws from the initializer.
        _ = try read { db in try db.queryValue("SELECT count(*) FROM sqlite_schema", as: Int.self) }
    }

    /// The `file:` URI the connection is opened with, any password in the replica URL (`sftp://user:password@host`)
    /// shown as `***`, as in the ``DatabaseError/path`` of the replica's errors.
    public var path: String { maskedPath }

    /// Whether the replica is open (not closed by ``close()``).
    public var isOpen: Bool { queue.isOpen }

    /// Runs `body` in a deferred transaction, which sees one state the primary committed, the newest the VFS had
    /// found when the transaction began.
    ///
    /// - Throws: the error of `body`; ``DatabaseError/Reason/writeOnReplica`` when it writes;
    ///   ``DatabaseError/Reason/accessAfterClose`` after ``close()``.
    @discardableResult
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try LitestreamReplica.mapping(queue.path, to: maskedPath) { try queue.read(body) }
    }

    /// The blocking ``read(_:)`` for async code: waits without blocking a thread of Swift's cooperative pool.
    @discardableResult
    public func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        try await LitestreamReplica.mappingAsync(queue.path, to: maskedPath) { try await queue.read(body) }
    }

    /// The newest transaction ID the VFS has found (`litestream_txid()`): it grows with each transaction the
    /// primary commits and Litestream ships, and never goes back. See ``transactionID(in:)``: it can be newer than
    /// the state a read sees.
    public func transactionID() throws -> UInt64 {
        try read { db in try LitestreamReplica.transactionID(in: db) }
    }

    /// The newest transaction ID the VFS has found, inside a `read`: the VFS's position, not that of the state
    /// `db`'s read transaction sees, which can be older. The VFS keeps a read's state while its poll moves on
    /// (observed: the ID moved by six transactions inside one read whose rows stayed the same), so an ID read
    /// after the read's first statement is at least that of its state, and one read before may be older.
    public static func transactionID(in db: Database) throws -> UInt64 {
        let text = try db.queryRequiredValue("SELECT litestream_txid()", as: String.self)
        guard let id = UInt64(text, radix: 16) else {
            throw DatabaseError.mismatch(
                "litestream_txid() returned text that is not a hexadecimal transaction ID",
                reason: .valueMismatch)
        }
        return id
    }

    /// Waits for the access in progress, then closes the connection; later reads throw
    /// ``DatabaseError/Reason/accessAfterClose``. The VFS stays loaded.
    public func close() {
        queue.close()
    }

    /// A replica's error as the caller sees it: a refused write as ``DatabaseError/Reason/writeOnReplica``, and the
    /// connection's URI in its path with the replica URL's password masked.
    private static func mapped(_ error: DatabaseError, path: String, maskedPath: String) -> DatabaseError {
        var error = error
        if error.code == .readonly { error.reason = .writeOnReplica }
        if error.path == path { error.path = maskedPath }
        return error
    }

    private static func mapping<T>(_ path: String, to maskedPath: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw mapped(error, path: path, maskedPath: maskedPath)
        }
    }

    private static func mappingAsync<T>(_ path: String, to maskedPath: String, _ body: () async throws -> T)
        async throws -> T
    {
        do {
            return try await body()
        } catch let error as DatabaseError {
            throw mapped(error, path: path, maskedPath: maskedPath)
        }
    }

    /// `url` with the password of its user information (`scheme://user:password@host`) replaced by `***`.
    static func maskingPassword(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let authority = url[scheme.upperBound...].prefix { $0 != "/" }
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else {
            return url
        }
        return String(url[..<authority.index(after: colon)]) + "***" + String(url[at...])
    }

    /// The folder of a `file:` replica URL, `nil` for another store. The VFS reads the scheme in any case,
    /// `file:/path` as `file:///path`, and the path as written: `%41` is not decoded (a folder named `lit%41` is read
    /// from `file:///lit%41`, and `file:///a%23b` is not the folder `a#b`). Each is checked here, or the open of an
    /// empty folder would wait forever.
    static func fileReplicaFolder(_ url: String) -> String? {
        guard url.lowercased().hasPrefix("file:") else { return nil }
        let rest = url.dropFirst("file:".count)
        if rest.hasPrefix("//") { return String(rest.dropFirst(2)) }
        guard rest.hasPrefix("/") else { return nil }
        return String(rest)
    }

    /// Whether a replica folder holds an LTX file at any compaction level (`ltx/LEVEL/MIN-MAX.ltx`).
    static func holdsTransaction(_ folder: String) -> Bool {
        let ltx = folder + "/ltx"
        let levels = (try? FileManager.default.contentsOfDirectory(atPath: ltx)) ?? []
        return levels.contains { level in
            let files = (try? FileManager.default.contentsOfDirectory(atPath: ltx + "/" + level)) ?? []
            return files.contains { $0.hasSuffix(".ltx") }
        }
    }
}
