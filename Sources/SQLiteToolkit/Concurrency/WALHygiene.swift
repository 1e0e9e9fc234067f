#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How a ``DatabasePool`` keeps its WAL file small: a watermark past which it reports who pins the WAL, a
/// `journal_size_limit` for its writer, and the truncation of the WAL once the pool is idle. See
/// <doc:SharingADatabase>.
///
/// ```swift
/// var hygiene = WALHygiene()
/// hygiene.report = { report in
///     for holder in report.holders { log("WAL at \(report.walBytes) bytes, pinned by \(holder.label) for \(holder.age) s") }
/// }
/// let pool = try DatabasePool(path: path, walHygiene: hygiene)
/// ```
public struct WALHygiene: Sendable {
    /// The WAL's size, in bytes, past which ``report`` is called: 64 MiB by default; `nil` for no report.
    ///
    /// A WAL only grows while something keeps it from starting again at its beginning: a long read, a forgotten
    /// ``DatabaseSnapshot``, an observation that runs for long, or a connection of another process in a read
    /// transaction. At the pool's automatic checkpoints (1000 pages, 4 MiB with 4 KiB pages) a healthy WAL stays
    /// below a few MiB, so 64 MiB (sixteen times that) never fires in normal use, yet fires long before the WAL
    /// costs an app's users noticeable storage or a slow first read after a crash (recovery reads the whole WAL).
    /// The report is called again each time the WAL grows by another watermark, and counts from zero once the WAL
    /// restarts.
    public var watermark: Int? = WALHygiene.defaultWatermark

    /// The writer's `PRAGMA journal_size_limit`, in bytes: 64 MiB by default; `nil` leaves SQLite's default (no
    /// limit). Set before the set-up hook runs, so the hook can change it.
    ///
    /// Without a limit, a WAL file that grew (while a read pinned it) keeps its size on disk for as long as the
    /// database is open, even once its content was copied back: SQLite reuses the file from its beginning rather
    /// than shrinking it. With the limit, the writer truncates the file to at most this size whenever the WAL
    /// restarts. It is the watermark by default: a WAL that stays below the watermark is never truncated for
    /// nothing, one that grew past it gives the space back.
    ///
    /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_journal_size_limit>
    public var journalSizeLimit: Int? = WALHygiene.defaultWatermark

    /// How long the pool must stay idle (no access in progress, no commit) before it truncates its WAL to zero
    /// bytes (`PRAGMA wal_checkpoint(TRUNCATE)`): 1 second by default; `nil` never truncates.
    ///
    /// The truncation takes the writer only when no access holds it or waits for it, and never waits for a lock:
    /// when a read (of this process or another) still pins the WAL, it tries again later, less and less often.
    public var idleTruncationDelay: Double? = 1

    /// Called, on a dispatch queue of the pool's, when the WAL passes ``watermark``, with who holds a read
    /// transaction in the pool now and since when. It runs outside any access: it may use the pool.
    public var report: (@Sendable (WALReport) -> Void)?

    /// 64 MiB.
    public static let defaultWatermark = 64 << 20

    /// The defaults: a watermark and a `journal_size_limit` of 64 MiB, truncation after one idle second, no report.
    public init() {}

    /// Throws ``DatabaseError/Reason/invalidPoolSetting(_:)`` naming a setting the pool cannot honour.
    func validate() throws {
        func refuse(_ name: String, _ value: String, least: String = "0 or more") -> DatabaseError {
            DatabaseError.misuse(
                "a database pool's WALHygiene.\(name) must be a number, \(least) (it is \(value))",
                reason: .invalidPoolSetting("walHygiene.\(name)"))
        }
        if let watermark, watermark <= 0 { throw refuse("watermark", "\(watermark)", least: "above 0") }
        if let journalSizeLimit, journalSizeLimit < 0 { throw refuse("journalSizeLimit", "\(journalSizeLimit)") }
        if let delay = idleTruncationDelay, !(delay >= 0 && delay.isFinite) {
            throw refuse("idleTruncationDelay", "\(delay)")
        }
    }
}

/// What a ``DatabasePool`` reports when its WAL passes ``WALHygiene/watermark``.
public struct WALReport: Sendable {
    /// The WAL's size, in bytes, after the commit that passed the watermark: its header and the frames it holds.
    public var walBytes: Int
    /// The watermark it passed.
    public var watermark: Int
    /// The pool's reads, snapshots and observation runs that hold a read transaction now, oldest first: one of them
    /// (or a connection of another process, which the pool cannot see) pins the WAL.
    public var holders: [WALReadHolder]
}

/// A read transaction of a ``DatabasePool`` that may keep its WAL from starting again at its beginning.
public struct WALReadHolder: Sendable, Hashable {
    /// What holds the read transaction.
    public enum Kind: Sendable, Hashable {
        /// A read access (``DatabasePool/read(_:)-2mi4f``), a snapshot's read included.
        case read
        /// A ``DatabaseSnapshot``, for as long as it is open.
        case snapshot
        /// The run of an observed query after a commit.
        case observation
    }

    /// What holds it.
    public var kind: Kind
    /// A name for it: a snapshot's ``DatabaseSnapshot/label``, or the kind of access.
    public var label: String
    /// How long it has held its read transaction, in seconds.
    public var age: Double
}
