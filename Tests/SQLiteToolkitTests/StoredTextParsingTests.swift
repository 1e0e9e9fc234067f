import Foundation
import SQLiteToolkit
import Testing

/// Every parser of stored text is total: any text read as `Date`, `Date?` or `ISO8601Date` gives a date or throws
/// `SQLITE_MISMATCH`, never a trap.
@Suite("Parsing stored text")
struct StoredTextParsingTests {
    /// 2026-01-01T00:00:00Z in Unix seconds.
    static let newYear2026: TimeInterval = 1_767_225_600

    @Test("a date with 20 fraction digits reads without overflowing")
    func longFraction() throws {
        let db = try Database()
        let text = "2026-01-01 00:00:00." + String(repeating: "9", count: 20)
        let date = try #require(try db.queryValue("SELECT ?", text, as: Date.self))
        #expect(abs(date.timeIntervalSince1970 - (Self.newYear2026 + 1)) < 1e-6)
        let optional = try db.queryValue("SELECT ?", text, as: Date?.self)
        #expect(optional == date)
        let iso = try #require(try db.queryValue("SELECT ?", text, as: ISO8601Date.self))
        #expect(iso.date == date)
    }

    @Test(
        "long runs of digits in every field throw a mismatch",
        arguments: [
            "99999999999999999999-01-01", "2026-99999999999999999999-01", "2026-01-01 99999999999999999999:00",
            "2026-01-01 00:00:99999999999999999999", "2026-01-01 00:00:00.", "2026-01-01 00:00:00.5x",
        ])
    func digitRuns(_ text: String) throws {
        let db = try Database()
        let error = #expect(throws: DatabaseError.self) { _ = try db.queryValue("SELECT ?", text, as: Date.self) }
        #expect(error?.code == .mismatch)
    }

    @Test(
        "the readable forms of the same instant agree",
        arguments: [
            "1767225600", "1767225600.0", "1767225600.000", "2026-01-01", "2026-01-01 00:00", "2026-01-01 00:00:00",
            "2026-01-01 00:00:00.000", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00.000Z", "2026-01-01T01:00:00+01:00",
        ])
    func forms(_ text: String) throws {
        let db = try Database()
        let date = try #require(try db.queryValue("SELECT ?", text, as: Date.self))
        #expect(date.timeIntervalSince1970 == Self.newYear2026)
    }

    @Test("numeric text that is not a finite number is no date", arguments: ["nan", "inf", "-inf", "1e400", "", " "])
    func notFinite(_ text: String) throws {
        let db = try Database()
        #expect(throws: DatabaseError.self) { _ = try db.queryValue("SELECT ?", text, as: Date.self) }
    }

    @Test("randomized text never traps, and well-formed dates read back exactly (seeded)")
    func fuzz() throws {
        let db = try Database()
        let statement = try db.prepare("SELECT ?")
        var generator = SeededRandom(seed: 20_261_124)
        let alphabet = Array("0123456789999-:. TZ+e")
        for _ in 0..<3000 {
            // Random text over a date-like alphabet: anything may come back, nothing may trap.
            let length = Int.random(in: 0...40, using: &generator)
            let text = String((0..<length).map { _ in alphabet.randomElement(using: &generator) ?? "0" })
            let rows = try statement.query(text)
            if try rows.next() != nil {
                _ = try? rows.statement.currentRow.value(at: 0, as: Date.self)
                _ = try? rows.statement.currentRow.value(at: 0, as: Date?.self)
                _ = try? rows.statement.currentRow.value(at: 0, as: ISO8601Date.self)
            }
            rows.close()
        }
        for _ in 0..<1000 {
            // A well-formed `YYYY-MM-DD HH:MM:SS.fraction` reads as the instant its fields name.
            let day = Int.random(in: 1...28, using: &generator)
            let hour = Int.random(in: 0...23, using: &generator)
            let minute = Int.random(in: 0...59, using: &generator)
            let second = Int.random(in: 0...59, using: &generator)
            let digits = Int.random(in: 1...30, using: &generator)
            let fraction = String((0..<digits).map { _ in "0123456789".randomElement(using: &generator) ?? "0" })
            let text = String(format: "2026-02-%02d %02d:%02d:%02d.", day, hour, minute, second) + fraction
            let date = try #require(try db.queryValue("SELECT ?", text, as: Date.self))
            let whole = 1_769_904_000 + (day - 1) * 86_400 + hour * 3_600 + minute * 60 + second
            let expectedFraction = (Double("0." + fraction) ?? 0)
            #expect(abs(date.timeIntervalSince1970 - (Double(whole) + expectedFraction)) < 1e-5, "\(text)")
        }
    }

    @Test("a Date round-trips through a column declared TEXT")
    func dateInTextColumn() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (d TEXT)")
        let date = Date(timeIntervalSince1970: 1_361_361_600)
        try db.execute("INSERT INTO t VALUES (?)", date)
        #expect(try db.queryValue("SELECT typeof(d) FROM t", as: String.self) == "text")
        #expect(try db.queryValue("SELECT d FROM t", as: Date.self) == date)
        let fractional = Date(timeIntervalSince1970: 1_361_361_600.25)
        try db.execute("UPDATE t SET d = ?", fractional)
        #expect(try db.queryValue("SELECT d FROM t", as: Date.self) == fractional)
    }

    @Test(
        "an ISO8601Date outside what the format holds throws instead of storing a wrong date",
        arguments: [Double.nan, -1e20, 1e15, .infinity, -.infinity, -62_135_769_601, 253_402_300_800]
    )
    func isoOutOfRange(_ seconds: Double) throws {
        let db = try Database()
        let value = ISO8601Date(Date(timeIntervalSince1970: seconds))
        let error = #expect(throws: DatabaseError.self) { _ = try db.queryValue("SELECT ?", value, as: String.self) }
        #expect(error?.reason == .valueMismatch)
        let named = #expect(throws: DatabaseError.self) {
            _ = try db.query("SELECT :d", arguments: ["d": value])
        }
        #expect(named?.reason == .valueMismatch)
    }

    @Test("ISO8601Date stores the first and last instants of its range")
    func isoEdges() throws {
        let db = try Database()
        let first = ISO8601Date(Date(timeIntervalSince1970: -62_135_769_600))
        let last = ISO8601Date(Date(timeIntervalSince1970: 253_402_300_799))
        #expect(try db.queryValue("SELECT ?", first, as: String.self) == "0001-01-01T00:00:00.000Z")
        #expect(try db.queryValue("SELECT ?", last, as: String.self) == "9999-12-31T23:59:59.000Z")
    }
}
