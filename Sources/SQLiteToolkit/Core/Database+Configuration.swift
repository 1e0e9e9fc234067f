// DispatchTime, the monotonic clock of the busy handler: Dispatch is its own module, not part of Foundation.
import Dispatch
import SQLiteBindings

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// `usleep`, for the busy handler's sub-millisecond sleeps; Windows has none (see `fairBusyHandler`).
#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

extension Database {
    /// How a connection waits when another connection holds a lock.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/busy_timeout.html>
    public enum BusyMode: Sendable {
        /// Fail at once with `SQLITE_BUSY` (SQLite's own default, and the first cause of "database is locked").
        case immediateError
        /// Retry for up to this many seconds, then fail with `SQLITE_BUSY` (FMDB's `maxBusyRetryTimeInterval`).
        ///
        /// The toolkit's handler, not SQLite's: it tries again after short sleeps of random length (0.1 to 1 ms), so
        /// a waiter gets the lock in the short gaps between another connection's transactions, even when processes
        /// compete for CPU. The time is measured on the monotonic clock from the first try. See
        /// <doc:Concurrency> for what the default promises.
        case timeout(TimeInterval)
        /// Ask `handler` with the number of retries so far; `true` retries, `false` fails with `SQLITE_BUSY`.
        case handler(@Sendable (_ retryCount: Int) -> Bool)
        /// SQLite's own busy handler (`sqlite3_busy_timeout`): sleeps of 1, 2, 5, 10, ... up to 100 ms, until their
        /// sum reaches this many seconds, then fails with `SQLITE_BUSY`. Under contention a writer that commits and
        /// begins again at once can keep a waiter out for the whole time; ``timeout(_:)`` is fairer.
        case sqliteTimeout(TimeInterval)
    }

    /// Options of a connection, applied at open. Each default is what most applications want.
    public struct Configuration: Sendable {
        /// Open read-only; the file must exist. Default `false`.
        public var isReadOnly = false
        /// Create the file when it is missing (ignored when read-only). Default `true`.
        public var createsFile = true
        /// Further open flags, for example `.uri` or `.memory`; the access and threading flags come from the
        /// other properties.
        public var additionalOpenFlags: OpenFlags = []
        /// The VFS to use, or `nil` for the default.
        public var vfs: String?
        /// How to wait for locks. Default: retry for 5 seconds.
        public var busyMode: BusyMode = .timeout(5)
        /// Whether write transactions queue for the database in a cross-process write gate before they ask SQLite
        /// for its write lock. Default `false`.
        ///
        /// With it, ``Database/beginTransaction(_:)`` of an immediate or exclusive transaction (and so every
        /// ``Database/transaction(_:_:)`` and the `write` of ``DatabaseQueue`` and ``DatabasePool``) first takes
        /// a kernel file lock beside the database (`DATABASE-writegate`, queued through `DATABASE-writequeue`), and
        /// ``Database/commit()`` or ``Database/rollback()`` gives it back. Writers that use it take turns in the
        /// order they asked, however long each holds the lock, where SQLite's own locks have no queue and a
        /// writer that commits and begins again at once can keep the others out until their busy timeout. The wait
        /// for the gate is bounded by ``busyMode`` like any lock wait: past the timeout the transaction fails with
        /// `SQLITE_BUSY` and ``DatabaseError/Reason/writeGateTimeout``.
        ///
        /// It helps only writers that use it: a connection without it (another tool, the `sqlite3` shell) still
        /// competes for SQLite's lock as before, with the writer that holds the gate. In-memory and temporary
        /// databases, read-only connections and deferred transactions never take it. See <doc:Concurrency>.
        public var usesWriteGate = false
        /// `PRAGMA foreign_keys`: foreign key constraints are enforced. Default `true`.
        public var foreignKeysEnabled = true
        /// `SQLITE_DBCONFIG_DEFENSIVE`: SQL cannot corrupt the file (no writable schema, ...). Default `true`.
        public var isDefensive = true
        /// Extended result codes (`SQLITE_CONSTRAINT_UNIQUE` rather than `SQLITE_CONSTRAINT`) from the C API, for
        /// code that uses ``Database/handle`` directly. Default `true`. ``DatabaseError/extendedCode`` is extended
        /// either way.
        ///
        /// Related SQLite documentation: <https://sqlite.org/c3ref/extended_result_codes.html>
        public var usesExtendedResultCodes = true
        /// `SQLITE_DBCONFIG_DQS_DML` and `SQLITE_DBCONFIG_DQS_DDL`: whether a double-quoted word that names no column
        /// is taken as a string literal, a legacy misfeature that hides typos. Default `false`: `SELECT "nme"` fails
        /// with "no such column".
        ///
        /// Related SQLite documentation: <https://sqlite.org/quirks.html#dblquote>
        public var allowsDoubleQuotedStringLiterals = false
        /// The most prepared statements the cache keeps (0 disables it). Default 64. Of SQL run for the first time,
        /// at most 8 statements are kept; SQL that comes back after its statement was evicted fills the rest.
        public var statementCacheCapacity = 64
        /// Whether errors carry the bound arguments. Default `false`: errors never contain user data.
        public var includesArgumentsInErrors = false
        /// The key of an encrypted database, applied right after the file opens and before anything reads it, then
        /// checked by reading the schema: a wrong key throws ``DatabaseError/Reason/wrongKeyOrNotADatabase`` from
        /// the initializer, not later from a random query. Default `nil`: a plain database. A new file given a key
        /// is created encrypted. The open connection does not keep it (its ``Database/configuration`` has no
        /// key). See <doc:Encryption>.
        ///
        /// Related SQLite documentation: <https://utelle.github.io/SQLite3MultipleCiphers/docs/configuration/config_capi/>
        public var key: DatabaseKey?
        /// Whether opening an existing, non-empty database file without ``key`` first reads its first 16 bytes and
        /// throws ``DatabaseError/Reason/notADatabase`` (naming the path) when they are not SQLite's header, instead
        /// of a bare `SQLITE_NOTADB` from the first query. Default `true`.
        ///
        /// An encrypted file has no such header: set this to `false` to open one without ``key`` and set the key
        /// afterwards (``Database/setKey(_:cipher:)``, or a queue's or pool's set-up hook). In-memory and
        /// temporary databases, `file:` URIs and custom VFSes are never checked.
        ///
        /// Related SQLite documentation: <https://sqlite.org/fileformat.html#the_database_header>
        public var checksHeaderAtOpen = true
        /// The encryption scheme ``key`` is used with. Default ``Cipher/default`` (ChaCha20-Poly1305); use
        /// ``Cipher/sqlcipher(version:kdfIterations:pageSize:usesHMAC:kdfAlgorithm:hmacAlgorithm:plaintextHeaderSize:)``
        /// for files SQLCipher reads and writes. Ignored without a key.
        public var cipher: Cipher = .default
        /// How every `Date` bound on the connection is stored: ``Database/DateStorage/unixSeconds`` (REAL, the
        /// default), ``Database/DateStorage/iso8601`` (TEXT) or ``Database/DateStorage/julianDay`` (REAL). Reads
        /// accept every form (see ``Database/DateStorage``).
        ///
        /// Related SQLite documentation: <https://sqlite.org/lang_datefunc.html>
        public var dateStorage: DateStorage = .unixSeconds
        /// SQLite extensions every connection opened with this configuration loads, in order, right after it
        /// opens (after ``key``) and again after each reopen: libraries by path
        /// (``Database/Extension/library(atPath:entryPoint:)``) and extensions compiled into the program
        /// (``Database/Extension/linked(_:named:)``). A ``DatabaseQueue`` or ``DatabasePool`` loads them on every
        /// connection it opens: the writer, each new reader, after ``DatabaseQueue/reopen()`` and after a key
        /// change. Default: none. A failure throws from the open, and nothing stays open. See
        /// <doc:ExtensionsAndVectorSearch>.
        public var extensions: [Extension] = []

        /// The defaults.
        public init() {}

        /// The flags passed to `sqlite3_open_v2`: access, creation, no mutex (the connection is confined to one
        /// thread at a time), extended result codes unless turned off.
        public var openFlags: OpenFlags {
            var flags: OpenFlags = [.nomutex]
            if usesExtendedResultCodes { flags.insert(.exrescode) }
            if isReadOnly {
                flags.insert(.readonly)
            } else {
                flags.insert(.readwrite)
                if createsFile { flags.insert(.create) }
            }
            return flags.union(additionalOpenFlags)
        }
    }

    /// Changes how the connection waits for locks; ``busyMode`` reads it back.
    public func setBusyMode(_ mode: BusyMode) throws {
        let connection = try connection()
        let code: ResultCode
        let scope = runningCallbacks
        switch mode {
        case .immediateError:
            code = connection.busyTimeout(0)
        case .timeout(let seconds):
            let closure = Database.fairBusyHandler(timeout: seconds)
            scope.keep(closure, as: .busyHandler)
            code = connection.setBusyHandler(closure)
        case .sqliteTimeout(let seconds):
            let milliseconds = max(0, min(Double(Int32.max), (seconds * 1000).rounded()))
            code = connection.busyTimeout(Int32(milliseconds))
        case .handler(let handler):
            // A connection closed from inside a callback stops waiting: its statement fails with SQLITE_BUSY.
            let closure: (Int32) -> Bool = { retries in
                !scope.isClosing && scope.run { handler(Int(retries)) } && !scope.isClosing
            }
            // The replaced closure is kept until any running callback returns: this may be called from inside it.
            scope.keep(closure, as: .busyHandler)
            code = connection.setBusyHandler(closure)
        }
        if code != .ok { throw error(code, sql: nil) }
        busyMode = mode
    }

    /// The shortest and longest sleep of ``BusyMode/timeout(_:)`` between two tries, in microseconds.
    static let busyRetrySleep: ClosedRange<UInt32> = 100...1_000

    /// The handler of ``BusyMode/timeout(_:)``: retries after a short sleep of random length until `timeout` seconds
    /// have passed since the first try (measured on the monotonic clock, so a process starved of CPU does not wait
    /// longer than asked).
    ///
    /// SQLite's own handler sleeps longer and longer, up to 100 ms a time. A writer that holds the lock commits and
    /// begins its next transaction within microseconds, so a waiter that sleeps that long almost never tries in the
    /// gap, and when the processes also compete for CPU it can miss every gap until its timeout. Short sleeps try
    /// often; random lengths keep several waiters from trying in lockstep.
    static func fairBusyHandler(timeout: TimeInterval) -> (Int32) -> Bool {
        let limit = timeout.isNaN ? 0 : max(0, timeout)
        var episodeStart: UInt64 = 0
        return { retries in
            let now = DispatchTime.now().uptimeNanoseconds
            if retries == 0 { episodeStart = now }
            let elapsed = Double(now &- episodeStart) / 1e9
            guard elapsed < limit else { return false }
            let remaining = (limit - elapsed) * 1e6
            let sleep = UInt32.random(in: busyRetrySleep)
            #if os(Windows)
                // Windows sleeps in whole milliseconds (and its timer ticks every 15.6 ms unless an application asks
                // for finer): the shortest sleep it has, through SQLite's portable sleep.
                _ = SQLiteLibrary.sleep(milliseconds: 1)
            #else
                usleep(remaining < Double(sleep) ? UInt32(max(1, remaining)) : sleep)
            #endif
            return true
        }
    }
}
