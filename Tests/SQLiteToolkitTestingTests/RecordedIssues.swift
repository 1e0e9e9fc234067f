import Foundation
import Testing

/// The issues that code recorded while it ran, taken away from the test run so that the test checks them with
/// `#expect`.
///
/// The expectations of SQLiteToolkitTesting record an issue when they fail, and their tests make them fail on
/// purpose to check that issue's message. Wrapped in `withKnownIssue`, each would end the run's summary as a
/// "known issue", which reads as a failure; captured here, the test passes when the message is right and fails
/// when it is wrong or missing, like any other test. Only the issues recorded inside `recordedIssues(_:)`, on its
/// task, are taken: an issue recorded anywhere else in the test fails it as usual.
///
/// A suite that calls `recordedIssues(_:)` carries the trait ``Testing/Trait/capturingRecordedIssues``, which does
/// the taking: Swift Testing hands every issue of the test to it, at the moment the issue is recorded, on the
/// task that records it.
final class RecordedIssues: @unchecked Sendable {
    // @unchecked Sendable: `issues` is read and written only while holding `lock`.
    private let lock = NSLock()
    private var issues: [Issue] = []

    /// The capture in progress on this task, if any.
    @TaskLocal static var current: RecordedIssues?

    func append(_ issue: Issue) { lock.withLock { issues.append(issue) } }
    var all: [Issue] { lock.withLock { issues } }
}

extension Trait where Self == IssueHandlingTrait {
    /// Takes the issues recorded inside `recordedIssues(_:)` out of the test's results and lets every other issue
    /// through.
    static var capturingRecordedIssues: Self {
        .compactMapIssues { issue in
            guard let capture = RecordedIssues.current else { return issue }
            capture.append(issue)
            return nil
        }
    }
}

/// Runs `body` and returns the issues it recorded, which do not fail the test (its suite must carry
/// `.capturingRecordedIssues`).
func recordedIssues(_ body: () throws -> Void) rethrows -> [Issue] {
    let capture = RecordedIssues()
    try RecordedIssues.$current.withValue(capture, operation: body)
    return capture.all
}

/// Awaits `body` and returns the issues it recorded, which do not fail the test (its suite must carry
/// `.capturingRecordedIssues`).
func recordedIssues(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Void
) async rethrows -> [Issue] {
    let capture = RecordedIssues()
    try await RecordedIssues.$current.withValue(capture, operation: body)
    return capture.all
}

extension Issue {
    /// The issue's comments, one per line: the message an expectation of SQLiteToolkitTesting recorded.
    var message: String { comments.map(\.rawValue).joined(separator: "\n") }
}
