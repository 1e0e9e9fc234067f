// expect: symbol symbol symbol
// A version below the API's, an attribute naming macOS only (iOS would build it at iOS 13), and the else branch
// of an #available test.
@available(macOS 12, iOS 15, tvOS 15, watchOS 8, *)
func digits(_ text: String) -> Bool {
    (try? Regex("[0-9]+")) != nil
}

@available(macOS 13, *)
func zero() -> Duration { .zero }

func text(_ date: Date) -> String {
    if #available(macOS 12, iOS 15, tvOS 15, watchOS 8, *) {
        return String(date.timeIntervalSince1970)
    } else {
        return date.ISO8601Format()
    }
}
