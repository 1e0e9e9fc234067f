// expect: none
// Uses inside declarations marked @available with at least the versions the API needs.
@available(macOS 13, iOS 16, tvOS 16, watchOS 9, visionOS 1, *)
func pause() async throws {
    try await Task.sleep(for: .milliseconds(5))
}

@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
extension String {
    var firstDigits: Substring? {
        let digits = /[0-9]+/
        return firstMatch(of: digits).map { $0.output }
    }

    func elapsed() -> Duration { .zero }
}

@available(macOS, introduced: 13)
@available(iOS, introduced: 16)
@available(tvOS, introduced: 16)
@available(watchOS, introduced: 9)
struct Timer {
    let clock = ContinuousClock()
}
