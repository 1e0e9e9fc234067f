// expect: none
// Names in comments and string literals are no uses; a `// platforms:` comment justifies a use.
/// Returns a `Duration` in seconds (a doc comment, not code). Regex, ContinuousClock.
func describe() -> String {
    let text = "Duration and Regex in a string"
    let block = """
        Date.now, ISO8601FormatStyle
        """
    /* Duration in a block comment */
    return text + block
}

// platforms: this file is compiled only by the Linux-only tool, where the API has no minimum.
let started = Date.now
let stopped = Date.now  // platforms: the same Linux-only tool.
