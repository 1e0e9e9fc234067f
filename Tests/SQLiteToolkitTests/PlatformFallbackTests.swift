import Foundation
import Testing

@testable import SQLiteToolkit

/// The code paths that exist for other platforms or older systems than this machine's, run here against the path
/// this machine takes, so a difference shows up before a real device of that platform sees it.
@Suite("Platform fallbacks")
struct PlatformFallbackTests {
    /// Instants where the text could go wrong: the range's ends, the switch from the Julian to the Gregorian
    /// calendar, leap days, milliseconds at the edges of rounding, and negative times (before 1970).
    static let edgeSeconds: [Double] = [
        -62_135_769_600, -62_135_769_599.999, 253_402_300_799.999, 253_402_300_799, 0, -0.0005, -0.0004, 0.0005,
        0.9995, 0.9999, -0.9996, -12_219_292_800, -12_219_292_800.001, -12_219_379_200, -12_219_292_799.999,
        951_782_400, 951_868_799.999, 4_107_542_400, -2_203_891_200, 1_361_361_600.25, 1_700_000_000.0015,
        1_700_000_000.0025, 978_307_200, 978_307_199.9995,
    ]

    @Test(
        "the ISO-8601 text computed for systems without the format style equals the format style's",
        arguments: edgeSeconds)
    func fallbackTextAtEdges(seconds: Double) {
        let date = ISO8601Date(Date(timeIntervalSince1970: seconds))
        #expect(date.fallbackText == date.formatStyleText)
    }

    @Test("the ISO-8601 fallback text equals the format style's for 200,000 seeded random instants of years 1 to 9999")
    func fallbackTextRandomized() {
        var random = SeededRandom(seed: SeededRandom.seed(default: 27))
        var mismatches: [Double] = []
        let range = ISO8601Date.representableSeconds
        for index in 0..<200_000 {
            // Half uniformly over the range, half on whole milliseconds (where rounding matters most).
            let seconds =
                index.isMultiple(of: 2)
                ? Double.random(in: range, using: &random)
                : Double(Int64.random(in: -62_135_769_600_000...253_402_300_799_999, using: &random)) / 1000
            let date = ISO8601Date(Date(timeIntervalSince1970: seconds))
            if date.fallbackText != date.formatStyleText { mismatches.append(seconds) }
        }
        #expect(mismatches.isEmpty, "first differing instants: \(mismatches.prefix(5))")
    }

    @Test("a date the fallback text cannot hold stays unrepresentable, so the fallback never sees it")
    func fallbackNeverSeesUnrepresentableDates() {
        for seconds in [-62_135_769_600.001, 253_402_300_800, .nan, .infinity, -.infinity] {
            #expect(ISO8601Date(Date(timeIntervalSince1970: seconds)).text == nil)
        }
    }

    @Test("the white space a script trims around a statement is Foundation's whitespacesAndNewlines, scalar by scalar")
    func whitespaceSetsAgree() {
        var differing: [UInt32] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if Database.isTrimmedWhitespace(Character(scalar))
                != CharacterSet.whitespacesAndNewlines.contains(scalar)
            {
                differing.append(value)
            }
        }
        #expect(differing.isEmpty, "scalars in one set only: \(differing.prefix(10))")
    }

    #if !os(Windows)
        @Test("a deadline's seconds clamp to the range of a 32-bit time_t instead of trapping")
        func deadlineSecondsClampToNarrowTypes() {
            let far: Int32 = clampedInteger(Date.distantFuture.timeIntervalSince1970)
            #expect(far == Int32.max)
            let huge: Int64 = clampedInteger(1e300)
            #expect(huge == Int64.max)
            let exactTop: Int64 = clampedInteger(Double(Int64.max))
            #expect(exactTop == Int64.max)
            let fraction: Int32 = clampedInteger(1_361_361_600.75)
            #expect(fraction == 1_361_361_600)
            let notANumber: Int = clampedInteger(.nan)
            #expect(notANumber == 0)
        }

        @Test("waiting until a deadline past the monotonic clock's end on the toolkit's lock returns when signalled")
        func waitUntilDistantFutureIsSignalled() async {
            let lock = Lock()
            let state = WakeState()
            let waiter = Thread {
                lock.lock()
                state.isWaiting = true
                var woken = false
                while !state.isSignalled { woken = lock.wait(until: MonotonicDeadline(secondsFromNow: .infinity)) }
                state.wasWoken = woken
                lock.unlock()
            }
            waiter.start()
            while !(lock.withLock { state.isWaiting }) { await Task.yield() }
            lock.withLock {
                state.isSignalled = true
                lock.broadcast()
            }
            while !(lock.withLock { state.wasWoken != nil }) { await Task.yield() }
            #expect(lock.withLock { state.wasWoken } == true)
        }

        @Test("a timed wait whose deadline passed, or is not a number, ends at once without a wake-up")
        func timedWaitPastDeadline() {
            let lock = Lock()
            for seconds in [-1.0, 0, .nan, 0.001] {
                let deadline = MonotonicDeadline(secondsFromNow: seconds)
                lock.withLock {
                    // Nothing wakes this wait; a spurious wake-up may still return `true` before the deadline.
                    while !deadline.hasPassed { _ = lock.wait(until: deadline) }
                    #expect(!lock.wait(until: deadline))
                }
            }
        }
    #endif
}

/// The shared flags of the lock test; touched only while holding its lock.
private final class WakeState: @unchecked Sendable {
    // @unchecked Sendable: every read and write happens while holding the test's `Lock`.
    var isWaiting = false
    var isSignalled = false
    var wasWoken: Bool?
}
