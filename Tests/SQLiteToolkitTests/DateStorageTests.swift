import Foundation
import SQLiteToolkit
import Testing

/// `Configuration.dateStorage`: every way of binding a `Date` follows the connection's strategy, and reads accept
/// every form. Expected stored values come from SQLite's own date functions, not from the code under test.
@Suite("Date storage strategies")
struct DateStorageTests {
    /// 2013-02-20 12:00:00.25 UTC: a quarter second is exact in binary and in milliseconds.
    static let date = Date(timeIntervalSince1970: 1_361_361_600.25)

    static func database(_ storage: Database.DateStorage) throws -> Database {
        var configuration = Database.Configuration()
        configuration.dateStorage = storage
        let db = try Database(configuration: configuration)
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, d)")
        return db
    }

    /// Every bind path of the toolkit, each inserting `date` into row `id` of `t`.
    static let bindPaths: [(String, @Sendable (Database, Int, Date) throws -> Void)] = [
        ("positional", { db, id, date in try db.execute("INSERT INTO t (id, d) VALUES (?, ?)", id, date) }),
        (
            "optional positional",
            { db, id, date in try db.execute("INSERT INTO t (id, d) VALUES (?, ?)", id, Optional(date)) }
        ),
        ("kept statement", { db, id, date in try db.prepare("INSERT INTO t (id, d) VALUES (?, ?)").execute(id, date) }),
        (
            "named pairs in order",
            { db, id, date in
                try db.prepare("INSERT INTO t (id, d) VALUES (:id, :d)").execute(named: ("id", id), ("d", date))
            }
        ),
        (
            "named pairs out of order",
            { db, id, date in
                try db.prepare("INSERT INTO t (id, d) VALUES (:id, :d)").execute(named: (":d", date), ("id", id))
            }
        ),
        (
            "dictionary literal",
            { db, id, date in
                try db.execute("INSERT INTO t (id, d) VALUES (:id, :d)", arguments: ["id": id, "d": date])
            }
        ),
        (
            "dictionary with prefixed keys",
            { db, id, date in
                let values: [String: (any DatabaseValueConvertible)?] = ["@id": id, "@d": date]
                try db.execute("INSERT INTO t (id, d) VALUES (@id, @d)", arguments: StatementArguments(values))
            }
        ),
        (
            "array literal",
            { db, id, date in try db.execute("INSERT INTO t (id, d) VALUES (?, ?)", arguments: [id, date]) }
        ),
        (
            "array of existentials",
            { db, id, date in
                let values: [(any DatabaseValueConvertible)?] = [id, date]
                try db.execute("INSERT INTO t (id, d) VALUES (?, ?)", arguments: StatementArguments(values))
            }
        ),
        ("interpolation", { db, id, date in try db.execute(sql: "INSERT INTO t (id, d) VALUES (\(id), \(date))") }),
        (
            "interpolated optional",
            { db, id, date in
                let optional: Date? = date
                try db.execute(sql: "INSERT INTO t (id, d) VALUES (\(id), \(optional))")
            }
        ),
    ]

    @Test(
        "every bind path stores a Date in the connection's form",
        arguments: [Database.DateStorage.unixSeconds, .iso8601, .julianDay])
    func bindPathsFollowTheStrategy(storage: Database.DateStorage) throws {
        let db = try Self.database(storage)
        let seconds = Self.date.timeIntervalSince1970
        for (offset, (name, bind)) in Self.bindPaths.enumerated() {
            try bind(db, offset, Self.date)
            let type = try db.queryValue("SELECT typeof(d) FROM t WHERE id = ?", offset, as: String.self)
            let matches: Bool?
            switch storage {
            case .unixSeconds:
                #expect(type == "real", "\(name)")
                matches = try db.queryValue("SELECT d = ? FROM t WHERE id = ?", seconds, offset, as: Bool.self)
            case .iso8601:
                #expect(type == "text", "\(name)")
                matches = try db.queryValue(
                    "SELECT d = strftime('%Y-%m-%dT%H:%M:%fZ', ?, 'unixepoch') FROM t WHERE id = ?", seconds, offset,
                    as: Bool.self)
            case .julianDay:
                #expect(type == "real", "\(name)")
                matches = try db.queryValue(
                    "SELECT abs(d - julianday(?, 'unixepoch')) < 1e-9 FROM t WHERE id = ?", seconds, offset,
                    as: Bool.self)
            }
            #expect(matches == true, "\(name)")
            // Round trip, through the same connection.
            let read = try db.queryValue("SELECT d FROM t WHERE id = ?", offset, as: Date.self)
            #expect(abs((read?.timeIntervalSince1970 ?? 0) - seconds) < 1e-4, "\(name)")
        }
    }

    @Test("SQLite's date functions read the stored forms as the bound instant")
    func sqliteReadsTheStoredForms() throws {
        let seconds = Self.date.timeIntervalSince1970
        let iso = try Self.database(.iso8601)
        try iso.execute("INSERT INTO t (id, d) VALUES (1, ?)", Self.date)
        #expect(
            try iso.queryValue(
                "SELECT strftime('%s', d) = strftime('%s', ?, 'unixepoch') FROM t", seconds, as: Bool.self)
                == true)
        let julian = try Self.database(.julianDay)
        try julian.execute("INSERT INTO t (id, d) VALUES (1, ?)", Self.date)
        #expect(
            try julian.queryValue("SELECT datetime(d) = datetime(?, 'unixepoch') FROM t", seconds, as: Bool.self)
                == true)
        let unix = try Self.database(.unixSeconds)
        try unix.execute("INSERT INTO t (id, d) VALUES (1, ?)", Self.date)
        #expect(
            try unix.queryValue("SELECT datetime(d, 'unixepoch') = '2013-02-20 12:00:00' FROM t", as: Bool.self)
                == true)
    }

    @Test(
        "nil binds NULL and reads back as nil in every strategy", arguments: [Database.DateStorage.iso8601, .julianDay])
    func nilDates(storage: Database.DateStorage) throws {
        let db = try Self.database(storage)
        let none: Date? = nil
        try db.execute("INSERT INTO t (id, d) VALUES (?, ?)", 1, none)
        try db.execute("INSERT INTO t (id, d) VALUES (:id, :d)", arguments: ["id": 2, "d": none])
        try db.execute(sql: "INSERT INTO t (id, d) VALUES (\(3), \(none))")
        #expect(try db.queryValue("SELECT count(*) FROM t WHERE d IS NULL", as: Int.self) == 3)
        let rows = try db.query("SELECT d FROM t")
        while let row = try rows.next() { #expect(try row.value(at: 0, as: Date?.self) == nil) }
    }

    /// Stored values of every form, with the instant each stands for in a connection of each strategy.
    @Test(
        "reads accept every form: numbers in the connection's unit, text in any format",
        arguments: [Database.DateStorage.unixSeconds, .iso8601, .julianDay])
    func readsOfAllForms(storage: Database.DateStorage) throws {
        let db = try Self.database(storage)
        let seconds = Self.date.timeIntervalSince1970
        // Numbers stand for Julian days on a Julian-day connection, Unix seconds otherwise.
        let number = storage == .julianDay ? seconds / 86_400 + 2_440_587.5 : seconds
        try db.execute("INSERT INTO t (id, d) VALUES (1, ?)", number)
        try db.execute("INSERT INTO t (id, d) VALUES (2, CAST(? AS TEXT))", number)
        try db.execute("INSERT INTO t (id, d) VALUES (3, strftime('%Y-%m-%dT%H:%M:%fZ', ?, 'unixepoch'))", seconds)
        try db.execute("INSERT INTO t (id, d) VALUES (4, strftime('%Y-%m-%d %H:%M:%f', ?, 'unixepoch'))", seconds)
        try db.execute("INSERT INTO t (id, d) VALUES (5, strftime('%Y-%m-%dT%H:%M:%f+00:00', ?, 'unixepoch'))", seconds)
        for id in 1...5 {
            let read = try db.queryRequiredValue("SELECT d FROM t WHERE id = ?", id, as: Date.self)
            #expect(abs(read.timeIntervalSince1970 - seconds) < 1e-4, "row \(id)")
        }
        // Whole numbers: 1 Julian day after the epoch's, or 86,400 seconds.
        let whole: Int64 = storage == .julianDay ? 2_440_588 : 86_400
        try db.execute("INSERT INTO t (id, d) VALUES (6, ?)", whole)
        let expected = storage == .julianDay ? 43_200.0 : 86_400.0
        #expect(
            try db.queryRequiredValue("SELECT d FROM t WHERE id = 6", as: Date.self).timeIntervalSince1970 == expected)
        // Text that is no date and a blob throw a mismatch, not a crash.
        try db.execute("INSERT INTO t (id, d) VALUES (7, 'not a date'), (8, x'0102')")
        for id in [7, 8] {
            let error = #expect(throws: DatabaseError.self) {
                try db.queryValue("SELECT d FROM t WHERE id = ?", id, as: Date.self)
            }
            #expect(error?.code == .mismatch)
        }
    }

    @Test("reading by name follows the strategy too")
    func readByName() throws {
        let db = try Self.database(.julianDay)
        try db.execute("INSERT INTO t (id, d) VALUES (1, ?)", Self.date)
        let rows = try db.query("SELECT d FROM t")
        let row = try #require(try rows.next())
        let read: Date = try row.value(named: "d")
        #expect(abs(read.timeIntervalSince1970 - Self.date.timeIntervalSince1970) < 1e-4)
    }

    @Test("ISO-8601 storage refuses dates it cannot hold, on every bind path")
    func iso8601Range() throws {
        let db = try Self.database(.iso8601)
        for seconds in [Double.nan, -1e20, 1e15, .infinity] {
            for (name, bind) in Self.bindPaths {
                let error = #expect(throws: DatabaseError.self, "\(name)") {
                    try bind(db, 1, Date(timeIntervalSince1970: seconds))
                }
                #expect(error?.reason == .valueMismatch, "\(name)")
            }
        }
        #expect(try db.queryValue("SELECT count(*) FROM t", as: Int.self) == 0)
    }

    @Test("ISO8601Date stores text whatever the connection's strategy")
    func iso8601DateIgnoresTheStrategy() throws {
        let db = try Self.database(.julianDay)
        try db.execute("INSERT INTO t (id, d) VALUES (1, ?)", ISO8601Date(Self.date))
        #expect(try db.queryValue("SELECT typeof(d) FROM t", as: String.self) == "text")
        let read = try db.queryRequiredValue("SELECT d FROM t", as: ISO8601Date.self)
        #expect(read.date == Self.date)
    }

    @Test("the default stores REAL Unix seconds, exactly")
    func defaultIsUnixSeconds() throws {
        let db = try Database()
        #expect(db.configuration.dateStorage == .unixSeconds)
        let date = Date(timeIntervalSince1970: 1_234_567_890.123_456)
        #expect(try db.queryValue("SELECT ?", date, as: Double.self) == date.timeIntervalSince1970)
        #expect(try db.queryValue("SELECT ?", date, as: Date.self) == date)
    }
}
