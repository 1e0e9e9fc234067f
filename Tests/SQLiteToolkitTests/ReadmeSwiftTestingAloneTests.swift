import SQLiteBindings
import SQLiteToolkit
import Testing

/// The README's testing section, line for line (`DocsSampleTests` checks it), and why its natural first spelling
/// cannot work.
@Suite("README: testing code that uses the database")
struct ReadmeSwiftTestingAloneTests {
    @Test("a second player with the same name is refused") func duplicateName() throws {
        let db = try Database()  // private to this test
        try db.execute("CREATE TABLE player (name TEXT UNIQUE)")
        try db.execute("INSERT INTO player VALUES (?)", "Arthur")
        let error = try #require(throws: DatabaseError.self) {
            try db.execute("INSERT INTO player VALUES (?)", "Arthur")
        }
        #expect(error.code == .constraint)
        #expect(error.extendedCode == .constraintUnique)
    }

    @Test("#expect(throws: ResultCode.constraint) cannot match: a DatabaseError does not cast to ResultCode")
    func naturalSpellingCannotMatch() throws {
        let db = try Database()
        try db.execute("CREATE TABLE player (name TEXT UNIQUE)")
        try db.execute("INSERT INTO player VALUES (?)", "Arthur")
        let thrown: any Error = try #require(throws: DatabaseError.self) {
            try db.execute("INSERT INTO player VALUES (?)", "Arthur")
        }
        // What #expect(throws: ResultCode.constraint) does with the thrown error: cast it, then compare.
        #expect((thrown as? ResultCode) == nil)
        // What `catch ResultCode.constraint` does: match through ResultCode's ~=, which reads the error's code.
        #expect(ResultCode.constraint ~= thrown)
        // A typed reason, for the errors the toolkit finds itself.
        let nested = try #require(throws: DatabaseError.self) {
            try db.transaction { db in try db.transaction { _ in } }
        }
        #expect(nested.reason == .nestedTransaction)
    }
}
