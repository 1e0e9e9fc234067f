import Foundation
import SQLiteBindings
import SQLiteToolkit
import Testing

@Suite("Typed reads follow SQLite's conversions")
struct ConversionTests {
    @Test(
        "text read as an integer converts as SQLite does; text that is not a number reads as 0",
        arguments: [
            ("5", 5), ("-12", -12), ("  7", 7), ("12abc", 12), ("1.9", 1), ("abc", 0), ("", 0),
            ("9223372036854775807", Int64.max),
        ] as [(String, Int64)]
    )
    func textAsInteger(_ text: String, expected: Int64) throws {
        let db = try Database()
        #expect(try db.queryValue("SELECT ?", text, as: Int64.self) == expected)
        #expect(try db.queryValue("SELECT ?", text, as: Int.self) == Int(expected))
    }

    @Test("numbers read as text give SQLite's text form")
    func numberAsText() throws {
        let db = try Database()
        #expect(try db.queryValue("SELECT 5", as: String.self) == "5")
        #expect(try db.queryValue("SELECT ?", -42, as: String.self) == "-42")
        #expect(try db.queryValue("SELECT 1.5", as: String.self) == "1.5")
        #expect(try db.queryValue("SELECT ?", Int64.min, as: String.self) == "-9223372036854775808")
        // Numbers read as bytes give the bytes of their text form.
        #expect(try db.queryValue("SELECT 5", as: [UInt8].self) == Array("5".utf8))
        #expect(try db.queryValue("SELECT 5", as: Data.self) == Data("5".utf8))
    }

    @Test("text and blobs convert into each other as UTF-8")
    func textAndBlob() throws {
        let db = try Database()
        #expect(try db.queryValue("SELECT X'C3A9'", as: String.self) == "é")
        #expect(try db.queryValue("SELECT 'é'", as: [UInt8].self) == [0xC3, 0xA9])
        #expect(try db.queryValue("SELECT 'é'", as: Data.self) == Data([0xC3, 0xA9]))
    }

    @Test("reals read as integers truncate toward zero; integers read as reals are exact")
    func realAndInteger() throws {
        let db = try Database()
        #expect(try db.queryValue("SELECT 1.9", as: Int.self) == 1)
        #expect(try db.queryValue("SELECT -1.9", as: Int.self) == -1)
        #expect(try db.queryValue("SELECT 3", as: Double.self) == 3.0)
        #expect(try db.queryValue("SELECT ?", 1 << 53, as: Double.self) == 9_007_199_254_740_992)
        #expect(try db.queryValue("SELECT '2.5'", as: Double.self) == 2.5)
        #expect(try db.queryValue("SELECT 'abc'", as: Double.self) == 0)
        #expect(try db.queryValue("SELECT 0.5", as: Float.self) == 0.5)
    }

    @Test(
        "Bool reads non-zero as true, with SQLite's conversions",
        arguments: [
            ("1", true), ("0", false), ("2", true), ("-1", true), ("'1'", true), ("'0'", false), ("'yes'", false),
        ]
    )
    func bool(_ expression: String, expected: Bool) throws {
        let db = try Database()
        #expect(try db.queryValue("SELECT \(expression)", as: Bool.self) == expected)
    }

    @Test(
        "an integer that does not fit the type read throws a mismatch instead of truncating",
        arguments: [
            ("Int8 300", { @Sendable (db: Database) throws in _ = try db.queryValue("SELECT 300", as: Int8.self) }),
            ("Int8 -129", { @Sendable (db: Database) throws in _ = try db.queryValue("SELECT -129", as: Int8.self) }),
            ("Int8? 300", { @Sendable (db: Database) throws in _ = try db.queryValue("SELECT 300", as: Int8?.self) }),
            ("UInt8 256", { @Sendable (db: Database) throws in _ = try db.queryValue("SELECT 256", as: UInt8.self) }),
            ("UInt8 -1", { @Sendable (db: Database) throws in _ = try db.queryValue("SELECT -1", as: UInt8.self) }),
            (
                "Int16 40000",
                { @Sendable (db: Database) throws in _ = try db.queryValue("SELECT 40000", as: Int16.self) }
            ),
            ("UInt16 -1", { @Sendable (db: Database) throws in _ = try db.queryValue("SELECT -1", as: UInt16.self) }),
            (
                "Int32 2^31",
                { @Sendable (db: Database) throws in _ = try db.queryValue("SELECT 2147483648", as: Int32.self) }
            ),
            (
                "UInt32 2^32",
                { @Sendable (db: Database) throws in _ = try db.queryValue("SELECT 4294967296", as: UInt32.self) }
            ),
            ("UInt -1", { @Sendable (db: Database) throws in _ = try db.queryValue("SELECT -1", as: UInt.self) }),
            (
                "UInt64 min",
                { @Sendable (db: Database) throws in _ = try db.queryValue("SELECT ?", Int64.min, as: UInt64.self) }
            ),
            (
                "Int8 text '300'",
                { @Sendable (db: Database) throws in _ = try db.queryValue("SELECT '300'", as: Int8.self) }
            ),
        ] as [(String, @Sendable (Database) throws -> Void)]
    )
    func narrowingThrows(_ name: String, read: @Sendable (Database) throws -> Void) throws {
        let db = try Database()
        let error = try #require(throws: DatabaseError.self) { try read(db) }
        #expect(error.extendedCode == .mismatch)
        #expect(error.reason == .valueMismatch)
        #expect(error.message.contains("range"))
    }

    @Test("an integer that fits a narrower type reads exactly")
    func narrowingFits() throws {
        let db = try Database()
        #expect(try db.queryValue("SELECT 127", as: Int8.self) == 127)
        #expect(try db.queryValue("SELECT -128", as: Int8.self) == -128)
        #expect(try db.queryValue("SELECT 255", as: UInt8.self) == 255)
        #expect(try db.queryValue("SELECT 4294967295", as: UInt32.self) == UInt32.max)
        #expect(try db.queryValue("SELECT '42'", as: UInt8.self) == 42)
    }

    // MARK: - Dates

    @Test(
        "dates read from Unix seconds, SQLite's UTC text and ISO-8601",
        arguments: [
            ("0", 0),
            ("1700000000", 1_700_000_000),
            ("1700000000.25", 1_700_000_000.25),
            ("'2024-02-29 12:34:56'", 1_709_210_096),
            ("'2024-02-29 12:34:56.789'", 1_709_210_096.789),
            ("'2024-02-29 12:34'", 1_709_210_040),
            ("'2024-02-29'", 1_709_164_800),
            ("'2024-02-29T12:34:56'", 1_709_210_096),
            ("'2024-02-29T12:34:56Z'", 1_709_210_096),
            ("'2024-02-29T12:34:56.789Z'", 1_709_210_096.789),
            ("'2024-02-29T13:34:56+01:00'", 1_709_210_096),
            ("'1969-12-31 23:59:59'", -1),
        ] as [(String, Double)]
    )
    func dateReads(_ expression: String, expected: Double) throws {
        let db = try Database()
        let date = try #require(try db.queryValue("SELECT \(expression)", as: Date.self))
        #expect(abs(date.timeIntervalSince1970 - expected) < 1e-6)
    }

    @Test("what CURRENT_TIMESTAMP and datetime() write reads back as the same instant")
    func currentTimestamp() throws {
        let db = try Database()
        let now = Date()
        let read = try #require(try db.queryValue("SELECT CURRENT_TIMESTAMP", as: Date.self))
        #expect(abs(read.timeIntervalSince(now)) < 5)
        let unix = try #require(try db.queryValue("SELECT unixepoch('now', 'subsec')", as: Double.self))
        let subsecond = try #require(
            try db.queryValue("SELECT datetime(?, 'unixepoch', 'subsec')", unix, as: Date.self))
        #expect(abs(subsecond.timeIntervalSince1970 - unix) < 0.001)
    }

    @Test("SQLite's date functions read dates stored as Unix seconds")
    func sqliteUnderstandsStoredDates() throws {
        let db = try Database()
        let date = Date(timeIntervalSince1970: 1_709_210_096)
        #expect(try db.queryValue("SELECT datetime(?, 'unixepoch')", date, as: String.self) == "2024-02-29 12:34:56")
    }

    @Test(
        "text that is not a date throws a mismatch",
        arguments: [
            "'not a date'", "'2024-13-45 99:99:99'", "'2024-13-01'", "'2024-02-30'", "'2023-02-29 10:00:00'",
            "'2024-01-01 24:00:00'", "'2024-01-01 12:60'", "'2024-01-01 12:00:60'", "'2024-01-01 12:00:00.'",
            "'2024-01-01 12'", "''", "X'00'",
        ])
    func invalidDate(_ expression: String) throws {
        let db = try Database()
        let error = try #require(throws: DatabaseError.self) {
            try db.queryValue("SELECT \(expression)", as: Date.self)
        }
        #expect(error.extendedCode == .mismatch)
    }

    @Test("ISO8601Date binds ISO-8601 text in UTC with milliseconds and reads it back")
    func iso8601Date() throws {
        let db = try Database()
        let date = Date(timeIntervalSince1970: 1_709_210_096.789)
        #expect(try db.queryValue("SELECT typeof(?)", ISO8601Date(date), as: String.self) == "text")
        #expect(try db.queryValue("SELECT ?", ISO8601Date(date), as: String.self) == "2024-02-29T12:34:56.789Z")
        let read = try #require(try db.queryValue("SELECT ?", ISO8601Date(date), as: ISO8601Date.self))
        #expect(abs(read.date.timeIntervalSince(date)) < 0.001)
        // A plain Date reads the ISO-8601 text too, and ISO8601Date reads Unix seconds.
        let plain = try #require(try db.queryValue("SELECT ?", ISO8601Date(date), as: Date.self))
        #expect(abs(plain.timeIntervalSince(date)) < 0.001)
        #expect(try db.queryValue("SELECT ?", date, as: ISO8601Date.self) == ISO8601Date(date))
    }

    // MARK: - UUID

    @Test(
        "a UUID reads from its 16-byte blob and from its text form in either case",
        arguments: [
            "X'E621E1F8C36C495A93FC0C247A3E6E5F'", "'E621E1F8-C36C-495A-93FC-0C247A3E6E5F'",
            "'e621e1f8-c36c-495a-93fc-0c247a3e6e5f'",
        ]
    )
    func uuidReads(_ expression: String) throws {
        let db = try Database()
        let expected = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(try db.queryValue("SELECT \(expression)", as: UUID.self) == expected)
    }

    @Test(
        "a blob that is not 16 bytes, or text that is not a UUID, throws a mismatch",
        arguments: ["X'E621E1F8C36C495A93FC0C247A3E6E'", "X''", "'not-a-uuid'", "42"]
    )
    func invalidUUID(_ expression: String) throws {
        let db = try Database()
        let error = try #require(throws: DatabaseError.self) {
            try db.queryValue("SELECT \(expression)", as: UUID.self)
        }
        #expect(error.extendedCode == .mismatch)
    }
}
