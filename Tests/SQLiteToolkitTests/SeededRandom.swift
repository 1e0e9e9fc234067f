import Foundation

/// A small deterministic random generator (SplitMix64) for the randomized tests: one seed always gives the same
/// sequence, on every platform, so a failing seed can be replayed and turned into a regular test.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// The seed a randomized test uses: `SQLTK_SEED` from the environment when set (to replay or explore), else
    /// `defaultSeed`, so the normal run is the same every time.
    static func seed(default defaultSeed: UInt64) -> UInt64 {
        environmentInteger("SQLTK_SEED").map { UInt64(truncatingIfNeeded: $0) } ?? defaultSeed
    }
}

/// An integer from the environment, or `nil` when it is unset or not a number.
func environmentInteger(_ name: String) -> Int? {
    ProcessInfo.processInfo.environment[name].flatMap { Int($0) }
}
