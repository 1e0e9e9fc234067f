import Atomics

/// An atomic integer alone on its cache lines: the state word of a pool's reader, and the pool's entry flags.
///
/// Why swift-atomics, the libraries' one dependency: `Synchronization.Atomic` needs macOS 15, iOS 18, tvOS 18 and
/// watchOS 11, above the package's deployment targets, and cannot be a stored property of a class without them.
/// C11 atomics in the C target's shim header would have to be exposed by SQLiteBindings (the only module that
/// imports the C target), putting API that has nothing to do with SQLite into the thin layer over SQLite's C API,
/// and Swift calls a C header's inline functions through code the thread sanitizer may not instrument, so the
/// sanitizer would see the pool's hand-offs between threads as races. swift-atomics 1.3 compiles to the compiler's
/// own atomic instructions (no C call, inlined into the read path), which the sanitizer understands, on every
/// platform Swift supports, at any deployment target; it has no dependencies of its own.
///
/// Why alone on its lines: a word that one thread writes on every access (a reader's state) must not share a cache
/// line with a word another thread writes, or each write takes the line from the other core (false sharing), which
/// serializes the two threads as a lock would. 128 bytes, since some processors fetch lines in adjacent pairs.
///
/// Non-copyable: the word owns its allocation and frees it in `deinit`, so a copy (which would free it twice, or
/// leave one copy pointing at freed memory) cannot be made.
struct AtomicWord: ~Copyable, @unchecked Sendable {
    // @unchecked Sendable: the word is only ever read and written through atomic operations.
    private let storage: UnsafeMutablePointer<UnsafeAtomic<Int>.Storage>

    /// The bytes each word occupies, at that alignment.
    private static let isolation = 128

    /// A new word holding `value`, freed when its owner is.
    init(_ value: Int) {
        let raw = UnsafeMutableRawPointer.allocate(byteCount: Self.isolation, alignment: Self.isolation)
        storage = raw.bindMemory(to: UnsafeAtomic<Int>.Storage.self, capacity: 1)
        storage.initialize(to: UnsafeAtomic<Int>.Storage(value))
    }

    deinit {
        storage.deinitialize(count: 1)
        UnsafeMutableRawPointer(storage).deallocate()
    }

    @inline(__always)
    private var atomic: UnsafeAtomic<Int> { UnsafeAtomic(at: storage) }

    /// The value, sequentially consistent with every other operation on every `AtomicWord`.
    @inline(__always)
    func load() -> Int { atomic.load(ordering: .sequentiallyConsistent) }

    /// Stores `value`, sequentially consistent.
    @inline(__always)
    func store(_ value: Int) { atomic.store(value, ordering: .sequentiallyConsistent) }

    /// Replaces `expected` with `desired` when the word holds `expected`; whether it did. Sequentially consistent.
    @inline(__always)
    func compareExchange(expected: Int, desired: Int) -> Bool {
        atomic.compareExchange(expected: expected, desired: desired, ordering: .sequentiallyConsistent).exchanged
    }

    /// Adds `delta` (wrapping), sequentially consistent; returns the new value.
    @discardableResult
    @inline(__always)
    func add(_ delta: Int) -> Int {
        atomic.wrappingIncrementThenLoad(by: delta, ordering: .sequentiallyConsistent)
    }
}
