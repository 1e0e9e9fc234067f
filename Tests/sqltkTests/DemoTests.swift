import Testing

@Suite("sqltk --demo")
struct DemoTests {
    @Test("the demo searches an encrypted full-text table, highlights through mark(), and shows a wrong key refused")
    func demo() throws {
        let result = try ShellProcess.run(["--demo"])
        #expect(result.status == 0)
        #expect(result.error == "")
        // Piped, mark() highlights with brackets; the prefix term key* matches "key".
        #expect(result.output.contains("A database [key] is set before the first read"))
        #expect(result.output.contains("the default [cipher]"))
        #expect(result.output.contains("Error: wrong key: "))
        #expect(result.output.contains("   8 notes\n"))
    }
}
