import Foundation
import SQLiteToolkit
import Testing

/// A `Date` aggregate: the latest date of the group.
private struct Latest: DatabaseAggregate {
    var latest: Date?

    mutating func step(_ arguments: FunctionValues) throws {
        let date = try arguments.value(at: 0, as: Date.self)
        if latest.map({ date > $0 }) ?? true { latest = date }
    }

    func finalize() -> Date? { latest }
}

/// `Date` arguments and results of custom functions follow the connection's `Configuration.dateStorage`, as binds
/// and `Row` reads do. Expected stored forms are checked with SQLite's own date functions.
@Suite("Dates in custom functions")
struct FunctionDateTests {
    /// 2013-02-20 12:00:00.25 UTC: a quarter second is exact in binary and in milliseconds.
    static let date = Date(timeIntervalSince1970: 1_361_361_600.25)
    static let seconds = date.timeIntervalSince1970

    static func database(_ storage: Database.DateStorage) throws -> Database {
        var configuration = Database.Configuration()
        configuration.dateStorage = storage
        return try Database(configuration: configuration)
    }

    /// Whether the value SQL expression `expression` stands for the test's instant, in the form `storage` stores.
    static func storesTheInstant(_ db: Database, _ expression: String, _ storage: Database.DateStorage) throws -> Bool {
        let type = try db.queryValue("SELECT typeof(\(expression))", as: String.self)
        let check: String
        switch storage {
        case .unixSeconds:
            guard type == "real" else { return false }
            check = "SELECT \(expression) = ?"
            return try db.queryValue(check, seconds, as: Bool.self) == true
        case .julianDay:
            guard type == "real" else { return false }
            check = "SELECT abs(\(expression) - julianday(?, 'unixepoch')) < 1e-8"
        case .iso8601:
            guard type == "text" else { return false }
            check = "SELECT \(expression) = strftime('%Y-%m-%dT%H:%M:%fZ', ?, 'unixepoch')"
        }
        return try db.queryValue(check, seconds, as: Bool.self) == true
    }

    @Test(
        "a Date result is stored in the connection's form, from every function form",
        arguments: [Database.DateStorage.unixSeconds, .julianDay, .iso8601])
    func results(storage: Database.DateStorage) throws {
        let db = try Self.database(storage)
        let date = Self.date
        try db.createFunction("none") { () -> Date in date }
        try db.createFunction("one") { (_: Int) -> Date in date }
        try db.createFunction("two") { (_: Int, _: Int) -> Date? in date }
        try db.createFunction("three") { (_: Int, _: Int, _: Int) -> Date in date }
        try db.createFunction("four") { (_: Int, _: Int, _: Int, _: Int) -> Date in date }
        try db.createFunction("any", argumentCount: nil) { _ in date }
        try db.createAggregate("latest", argumentCount: 1, Latest.self)
        for expression in ["none()", "one(1)", "two(1, 2)", "three(1, 2, 3)", "four(1, 2, 3, 4)", "any(1, 2)"] {
            #expect(try Self.storesTheInstant(db, expression, storage), "\(expression)")
        }
        try db.execute("CREATE TABLE t (d)")
        try db.execute("INSERT INTO t VALUES (?), (?)", date, date.addingTimeInterval(-60))
        #expect(try Self.storesTheInstant(db, "(SELECT latest(d) FROM t)", storage))
        // nil is NULL whatever the strategy.
        try db.createFunction("noDate") { () -> Date? in nil }
        #expect(try db.queryValue("SELECT noDate() IS NULL", as: Bool.self) == true)
        #expect(try db.queryValue("SELECT latest(d) IS NULL FROM t WHERE 0", as: Bool.self) == true)
    }

    @Test(
        "Date arguments read every form, numbers in the connection's unit",
        arguments: [Database.DateStorage.unixSeconds, .julianDay, .iso8601])
    func arguments(storage: Database.DateStorage) throws {
        let db = try Self.database(storage)
        try db.createFunction("seconds") { (date: Date) in date.timeIntervalSince1970 }
        try db.createFunction("maybe") { (date: Date?) in date?.timeIntervalSince1970 }
        try db.createFunction("later", argumentCount: 2) { arguments in
            try arguments.value(at: 1, as: Date.self).timeIntervalSince1970
        }
        let seconds = Self.seconds
        let number = storage == .julianDay ? seconds / 86_400 + 2_440_587.5 : seconds
        let forms: [(String, Double)] = [
            ("?", number),
            ("CAST(? AS TEXT)", number),
            ("strftime('%Y-%m-%dT%H:%M:%fZ', ?, 'unixepoch')", seconds),
            ("strftime('%Y-%m-%d %H:%M:%f', ?, 'unixepoch')", seconds),
            ("strftime('%Y-%m-%dT%H:%M:%f+00:00', ?, 'unixepoch')", seconds),
        ]
        for (form, value) in forms {
            for function in ["seconds(\(form))", "maybe(\(form))", "later(0, \(form))"] {
                let read = try db.queryValue("SELECT \(function)", value, as: Double.self)
                #expect(abs((read ?? 0) - seconds) < 1e-4, "\(function)")
            }
        }
        // Whole numbers: 1 Julian day after the epoch's, or 86,400 seconds.
        let whole: Int64 = storage == .julianDay ? 2_440_588 : 86_400
        #expect(
            try db.queryValue("SELECT seconds(?)", whole, as: Double.self) == (storage == .julianDay ? 43_200 : 86_400))
        #expect(try db.queryValue("SELECT maybe(NULL) IS NULL", as: Bool.self) == true)
        // What is no date fails the statement with a mismatch.
        for bad in ["'not a date'", "x'0102'", "NULL"] {
            let error = #expect(throws: DatabaseError.self, "\(bad)") {
                try db.queryValue("SELECT seconds(\(bad))", as: Double.self)
            }
            #expect(error?.code == .mismatch, "\(bad)")
        }
    }

    @Test(
        "a date goes through a function and back unchanged, in every strategy",
        arguments: [Database.DateStorage.unixSeconds, .julianDay, .iso8601])
    func roundTrip(storage: Database.DateStorage) throws {
        let db = try Self.database(storage)
        try db.createFunction("same") { (date: Date) in date }
        let read = try db.queryRequiredValue("SELECT same(?)", Self.date, as: Date.self)
        #expect(abs(read.timeIntervalSince1970 - Self.seconds) < 1e-4)
    }

    @Test("an ISO-8601 connection refuses a Date result the format cannot hold")
    func unrepresentableResult() throws {
        let db = try Self.database(.iso8601)
        try db.createFunction("far") { () -> Date in Date(timeIntervalSince1970: 1e15) }
        let error = try #require(throws: DatabaseError.self) { try db.queryValue("SELECT far()", as: String.self) }
        #expect(error.reason == .valueMismatch)
        #expect(error.code == .mismatch)
        // ISO8601Date refuses it whatever the strategy.
        let unix = try Self.database(.unixSeconds)
        try unix.createFunction("farISO") { () in ISO8601Date(Date(timeIntervalSince1970: -1e15)) }
        let isoError = try #require(throws: DatabaseError.self) {
            try unix.queryValue("SELECT farISO()", as: String.self)
        }
        #expect(isoError.reason == .valueMismatch)
        try unix.createFunction("nearISO") { () in ISO8601Date(Self.date) }
        #expect(try unix.queryValue("SELECT nearISO()", as: String.self) == "2013-02-20T12:00:00.250Z")
    }

    @Test("a connection's date storage does not change results of other types")
    func otherTypesUnchanged() throws {
        let db = try Self.database(.julianDay)
        try db.createFunction("anyValue", argumentCount: 0) { _ in 0 }
        try db.createFunction("int") { () -> Int? in 5 }
        try db.createFunction("real") { () -> Double in 2.5 }
        try db.createFunction("text") { () -> String? in "x" }
        try db.createFunction("blob") { () -> Data in Data([1, 2]) }
        try db.createFunction("flag") { () -> Bool in true }
        try db.createFunction("none") { () -> Int64? in nil }
        let row = try allValues(db, "SELECT int(), real(), text(), blob(), flag(), none(), anyValue()")
        #expect(row == [[.integer(5), .real(2.5), .text("x"), .blob(Data([1, 2])), .integer(1), .null, .integer(0)]])
    }
}
