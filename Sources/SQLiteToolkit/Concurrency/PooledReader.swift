// DispatchQueue: Dispatch is its own module (Foundation only re-exports it).
import Dispatch

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A reader connection of a ``DatabasePool``, its state word, and the serial dispatch queue its async reads run on.
///
/// The state word says who may use the reader: ``idle`` (any read may take it, with one compare-and-exchange),
/// ``inUse`` (one read holds it), ``retiresWhenGivenBack`` (one read holds it, and the pool, closing, dropped it),
/// ``retired`` (the pool dropped it; nobody takes it again). A read takes a reader by exchanging idle for in use and
/// gives it back by exchanging in use for idle; the pool retires an idle one by exchanging idle for retired, and
/// marks one in use by exchanging in use for retires-when-given-back, so of a read and the pool exactly one
/// succeeds, and a read that finds its reader marked retires it instead of giving it back.
final class PooledReader: @unchecked Sendable {
    // @unchecked Sendable: `state` is atomic. `database` is read and written only by the read that holds the reader
    // (its state is in use), or by the pool once it retired it: the exchange that takes the reader and the store
    // that gives it back order each holder's use after the previous one's.
    /// The reader is free: a read may take it.
    static let idle = 0
    /// A read holds the reader.
    static let inUse = 1
    /// The pool dropped the reader (closed, or its connection failed): no read takes it any more.
    static let retired = 2
    /// A read holds the reader, and the pool dropped it while it did (a close): the read retires it at its end.
    static let retiresWhenGivenBack = 3

    /// ``idle``, ``inUse`` or ``retired``; a new reader is in use by the read that made it.
    private let state = AtomicWord(PooledReader.inUse)
    /// The connection; `nil` until the first read that takes this reader opens it.
    var database: Database?
    /// Runs the async reads that take this reader: one at a time, since one access at a time holds the reader.
    let queue = DispatchQueue(label: "SQLiteToolkit.DatabasePool.reader")
    /// The cancellation record of the async reads that run in place on this reader: one at a time, each holding the
    /// reader until its cancellation handler is removed, so one record serves them all, without an allocation per
    /// access.
    let inPlaceCancellation = AccessCancellation()
    /// The interrupt handle of the reader's connection, which a suspension of the pool uses from its own thread
    /// (``database`` belongs to the read that holds the reader); set when the connection opens.
    private let interruptTarget = LockedState<InterruptHandle?>(nil)

    /// When the access holding the reader began its read transaction, in nanoseconds of Dispatch's uptime clock, for
    /// the WAL report (``WALHygiene``); 0 while no access holds it. Written by the holder, read by anyone.
    let readSince = AtomicWord(0)
    /// Whether the access holding the reader is an observed query's run (1) rather than a read (0).
    let readIsObservation = AtomicWord(0)

    /// Records the start of an access's read transaction on the reader.
    @inline(__always)
    func markReadStarted(observation: Bool) {
        readIsObservation.store(observation ? 1 : 0)
        readSince.store(Int(truncatingIfNeeded: DispatchTime.now().uptimeNanoseconds))
    }

    /// Records the interrupt handle of the reader's newly opened connection.
    func setInterruptHandle(_ handle: InterruptHandle) {
        interruptTarget.withLock { $0 = handle }
    }

    /// Interrupts the statement the reader's connection runs now, if any, from any thread.
    func interrupt() {
        interruptTarget.withLock { $0 }?.interrupt()
    }

    /// Takes the reader when it is idle; whether it did.
    @inline(__always)
    func tryTake() -> Bool {
        state.compareExchange(expected: Self.idle, desired: Self.inUse)
    }

    /// Gives the reader back: idle again. `false` when the pool marked it ``retiresWhenGivenBack`` meanwhile: the
    /// caller then retires it.
    @inline(__always)
    func giveBack() -> Bool {
        state.compareExchange(expected: Self.inUse, desired: Self.idle)
    }

    /// Marks a reader that a read holds as retiring when given back; whether it did (`false` when it is not in use).
    func markRetiresWhenGivenBack() -> Bool {
        state.compareExchange(expected: Self.inUse, desired: Self.retiresWhenGivenBack)
    }

    /// Retires the reader when it is idle; whether it did. A reader in use stays in use.
    func tryRetire() -> Bool {
        state.compareExchange(expected: Self.idle, desired: Self.retired)
    }

    /// Retires a reader its caller holds (in use): its connection failed or was closed.
    func retireHeld() {
        state.store(Self.retired)
    }

    /// Whether a read holds the reader now (and the pool did not mark it retiring).
    var isInUse: Bool { state.load() == Self.inUse }

    /// Whether a close marked the reader retiring while a read held it.
    var isMarkedRetiring: Bool { state.load() == Self.retiresWhenGivenBack }

    /// Whether the reader is idle or in use: not retired, and not marked retiring.
    var isIdleOrInUse: Bool {
        let current = state.load()
        return current == Self.idle || current == Self.inUse
    }
}
