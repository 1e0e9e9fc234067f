// expect: none
// #available in an if (the true branch only) and in a guard (the rest of the scope after it).
func text(_ date: Date) -> String {
    if #available(macOS 12, iOS 15, tvOS 15, watchOS 8, *) {
        return date.formatted(Date.ISO8601FormatStyle())
    } else {
        return String(date.timeIntervalSince1970)
    }
}

func pause() async throws {
    guard #available(macOS 13, iOS 16, tvOS 16, watchOS 9, *) else {
        try await Task.sleep(nanoseconds: 1_000_000)
        return
    }
    try await Task.sleep(for: .seconds(1))
}
