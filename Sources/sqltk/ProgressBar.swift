import Foundation

/// A one-line progress bar on standard error, drawn only when standard error is a terminal and the work has taken
/// long enough to be worth showing; when piped, it writes nothing at all.
final class ProgressBar {
    private let title: String
    private let isEnabled: Bool
    private let start = Date()
    private var isShown = false
    private var lastDraw = Date.distantPast

    /// - Parameters:
    ///   - title: what is being done (`import`, `dump`, `backup`).
    ///   - enabled: whether drawing is allowed at all (a terminal on standard error, and not mixing with output
    ///     on the same screen).
    init(_ title: String, enabled: Bool) {
        self.title = title
        self.isEnabled = enabled
    }

    /// Shows `done` out of `total`, at most ten times a second, starting half a second in.
    func update(done: Int, total: Int) {
        guard isEnabled, total > 0 else { return }
        let now = Date()
        guard now.timeIntervalSince(start) >= 0.5, now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        isShown = true
        let fraction = min(1, max(0, Double(done) / Double(total)))
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        writeError("\r\(title) [\(bar)] \(Int(fraction * 100))% (\(done)/\(total))")
    }

    /// Clears the bar's line, if it was drawn.
    func finish() {
        guard isShown else { return }
        isShown = false
        writeError("\r\u{1B}[2K")
    }
}
