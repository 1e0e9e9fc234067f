import SQLiteBindings

/// Finds columns by name: exact spellings first, then case-insensitively.
///
/// It also holds, for the inlined read by name of ``Statement/columnIndex(named:)``, each column's name as raw
/// bytes and its leftmost index, in memory it owns; the names it keeps keep those bytes meaningful.
@usableFromInline
final class ColumnNameIndex {
    /// A column's name as the 16 bytes of its `String`, the leftmost column matching it, and the position to try
    /// after it (the next column, or the first after the last).
    @usableFromInline
    struct Entry {
        @usableFromInline let first: UInt64
        @usableFromInline let second: UInt64
        @usableFromInline let leftmost: Int32
        @usableFromInline let next: Int32

        /// The two words of a `String`: equal words mean equal strings (the same short string, or the same
        /// storage), which is all the inlined lookup needs; different words say nothing.
        @inlinable
        static func bits(of name: String) -> Bits {
            let words = unsafeBitCast(name, to: (UInt64, UInt64).self)
            return Bits(first: words.0, second: words.1)
        }

        @inlinable
        var bits: Bits { Bits(first: first, second: second) }
    }

    /// Two words, compared together.
    @usableFromInline
    struct Bits: Equatable {
        @usableFromInline let first: UInt64
        @usableFromInline let second: UInt64

        @inlinable
        init(first: UInt64, second: UInt64) {
            self.first = first
            self.second = second
        }
    }

    /// The names as SQLite reports them.
    let names: [String]
    /// For each column, the index of the leftmost column whose name matches it case-insensitively.
    let leftmost: [Int32]
    /// Exact spelling to the position of its first column.
    private let exact: [String: Int]
    /// Lowercased name to leftmost index.
    private let lowercased: [String: Int32]
    /// One entry per column for the inlined lookup; `nil` (and no fast path) where a `String` is not two words.
    let entries: UnsafePointer<Entry>?

    /// The inlined lookup's table when there is no name index: one entry whose two words are zero, which no
    /// `String` has (its second word always holds a discriminator or a pointer), so it never matches. Allocated
    /// once and never freed; `nonisolated(unsafe)` because nothing writes it after its initialisation.
    @usableFromInline
    nonisolated(unsafe) static let noEntries: UnsafePointer<Entry> = {
        let entry = UnsafeMutablePointer<Entry>.allocate(capacity: 1)
        entry.initialize(to: Entry(first: 0, second: 0, leftmost: 0, next: 0))
        return UnsafePointer(entry)
    }()

    init(names: [String]) {
        var lowercased: [String: Int32] = [:]
        var leftmost: [Int32] = []
        var exact: [String: Int] = [:]
        for (index, name) in names.enumerated() {
            let key = name.lowercased()
            let first = lowercased[key] ?? Int32(index)
            lowercased[key] = first
            leftmost.append(first)
            if exact[name] == nil { exact[name] = index }
        }
        self.names = names
        self.leftmost = leftmost
        self.exact = exact
        self.lowercased = lowercased
        if MemoryLayout<String>.size == 2 * MemoryLayout<UInt64>.size, !names.isEmpty {
            let entries = UnsafeMutablePointer<Entry>.allocate(capacity: names.count)
            for (index, name) in names.enumerated() {
                let bits = Entry.bits(of: name)
                let next = index + 1 == names.count ? 0 : index + 1
                (entries + index).initialize(
                    to: Entry(
                        first: bits.first, second: bits.second, leftmost: leftmost[index],
                        next: Int32(truncatingIfNeeded: next)))
            }
            self.entries = UnsafePointer(entries)
        } else {
            self.entries = nil
        }
    }

    deinit {
        entries?.deallocate()
    }

    /// The leftmost column named `name`: the one at `guess` when spelled the same, else by exact spelling, else
    /// case-insensitively. Moves `guess` to the position after the one found.
    func index(of name: String, guess: inout Int) -> Int32? {
        let position: Int
        if guess < names.count, names[guess] == name {
            position = guess
        } else if let found = exact[name] {
            position = found
        } else {
            return lowercased[name.lowercased()]
        }
        guess = position + 1 == names.count ? 0 : position + 1
        return leftmost[position]
    }
}
